//! The footer: the active preset's state, a notice when there is one, then one line that is the
//! open prompt (`/`, `:`) or the position, search and the keys most used (the replay's keys
//! while it plays), ending in `? help · q quit` at any width.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use crate::tui::msg::PromptKind;
use crate::tui::state::AppState;
use crate::tui::theme::Theme;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let status = match (&state.preset, &state.plan, &state.plan_error) {
        (None, _, _) => Line::styled(
            " no preset — p to preview a framework's compaction",
            theme.fg("dim"),
        ),
        (Some(name), Some(plan), _) => {
            let verdict = if plan.trigger.fired {
                "fires"
            } else {
                "does not fire"
            };
            // Each message once, as the list shades it; a framework that also renders kept
            // messages to its summarizer (Codex's user turns) says how many.
            let ([pinned, kept, summarized, dropped], also) = state.fate_counts();
            let also = match also {
                0 => String::new(),
                n => format!(" (+{n} kept also summarized)"),
            };
            Line::from(vec![
                Span::styled(format!(" {name} {verdict}: "), theme.bold("threshold")),
                Span::styled(
                    format!(
                        "{pinned} pinned · {summarized} summarized{also} · {kept} kept · {dropped} dropped · {} findings",
                        plan.findings.len()
                    ),
                    theme.fg("dim"),
                ),
            ])
        }
        (Some(name), None, Some(err)) => Line::styled(format!(" {name}: {err}"), theme.fg("warn")),
        (Some(name), None, None) => Line::styled(format!(" {name}"), theme.fg("dim")),
    };
    let second = if let Some((kind, text)) = &state.prompt {
        let sigil = match kind {
            PromptKind::Search => "/",
            PromptKind::Command => ":",
        };
        Line::from(vec![
            Span::styled(format!(" {sigil}"), theme.bold("title")),
            Span::styled(text.clone(), theme.fg("title")),
            Span::styled("▏", theme.fg("title")),
            Span::styled(
                state
                    .prompt_hint
                    .as_ref()
                    .map_or_else(String::new, |h| format!("  {h}")),
                theme.fg("dim"),
            ),
        ])
    } else {
        hints(state, area.width, theme)
    };
    let first = Rect { height: 1, ..area };
    frame.render_widget(Paragraph::new(status), first);
    let mut rest = Rect {
        y: area.y + 1,
        height: area.height.saturating_sub(1),
        ..area
    };
    // A notice goes above the hints, which stay on the last row.
    if let (None, Some(notice)) = (&state.prompt, &state.notice) {
        let above = Rect {
            height: rest.height.saturating_sub(1),
            ..rest
        };
        let line = Line::styled(notice_text(notice), theme.fg("warn"));
        frame.render_widget(Paragraph::new(line).wrap(Wrap { trim: false }), above);
        rest.y += above.height;
        rest.height -= above.height;
    }
    frame.render_widget(Paragraph::new(second), rest);
}

/// The position, the search and the keys most used (the replay's keys while it plays).
fn hints<'a>(state: &AppState, width: u16, theme: &Theme) -> Line<'a> {
    if state.replay.is_some() {
        hints_line(
            "replay",
            &[
                "space pause/play",
                "[ ] step",
                "< > speed",
                "s d Enter open the step",
                "Home End jump",
                "Esc q r leave",
            ],
            width,
            theme,
        )
    } else {
        let follow = match (state.following, state.unseen) {
            (false, _) => String::new(),
            (true, 0) => " ● following ·".to_string(),
            (true, n) => format!(" ● {n} new (G) ·"),
        };
        let search = match &state.search {
            Some(s) => {
                let at = s.matches.partition_point(|&i| i < state.selected);
                let on = s.matches.get(at) == Some(&state.selected);
                let children = match s.in_children {
                    0 => String::new(),
                    n => format!(" · {n} in {} (a)", state.analysis.children_noun().1),
                };
                format!(
                    " /{} {}{} of {} (n/N){children} ·",
                    s.query,
                    if on { "" } else { "~" },
                    (at + usize::from(on)).min(s.matches.len()),
                    s.matches.len()
                )
            }
            None => String::new(),
        };
        let crumb = match (&state.crumb, &state.parent) {
            (Some(c), _) => format!(" {c} ·"),
            (None, Some(p)) if p.analysis.holds_sessions() => format!(
                " session {} of {} (Esc: sessions) ·",
                p.subagents.unwrap_or(0) + 1,
                p.analysis.children.len()
            ),
            (None, Some(_)) => " subagent (Esc: parent) ·".into(),
            (None, None) => String::new(),
        };
        let position = match state.len() {
            0 => format!("{follow}{crumb}{search} no messages"),
            n => format!("{follow}{crumb}{search} {} of {n}", state.selected + 1),
        };
        hints_line(
            position.trim_start(),
            &[
                "p preset",
                "w demo",
                "s summarizer",
                "d diff",
                "c compact",
                "j/k move",
                "Tab detail",
                "t timeline",
                "+/- knob",
                ": set",
                "/ search",
                "L legend",
            ],
            width,
            theme,
        )
    }
}

/// Rows the footer takes at `width`: the preset's state, a notice wrapped whole (up to five
/// rows, so that a long one is read, not cut), and the prompt or hints line.
pub fn height(state: &AppState, width: u16) -> u16 {
    let notice = match (&state.prompt, &state.notice) {
        (None, Some(notice)) => {
            let w = u16::try_from(notice_text(notice).chars().count()).unwrap_or(u16::MAX);
            w.div_ceil(width.max(1)).clamp(1, 5)
        }
        _ => 0,
    };
    2 + notice
}

fn notice_text(notice: &str) -> String {
    format!(" {}", crate::text::inline(notice))
}

/// `lead · hint · hint … · ? help · q quit`: hints in the order given while they fit, and
/// help and quit always.
fn hints_line<'a>(lead: &str, hints: &[&str], width: u16, theme: &Theme) -> Line<'a> {
    const TAIL: &str = " · ? help · q quit";
    let room = usize::from(width);
    let mut text = format!(" {lead}");
    for hint in hints {
        let more = format!(" · {hint}");
        if text.chars().count() + more.chars().count() + TAIL.chars().count() > room {
            break;
        }
        text.push_str(&more);
    }
    Line::from(vec![
        Span::styled(text, theme.fg("dim")),
        Span::styled(TAIL, theme.fg("title")),
    ])
}
