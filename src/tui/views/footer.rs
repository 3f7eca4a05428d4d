//! The footer: the active preset's state, then one line that is the open prompt (`/`, `:`), a
//! notice, or the position, search and the keys most used (the replay's keys while it plays).

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
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
            let s = &plan.split;
            let verdict = if plan.trigger.fired {
                "fires"
            } else {
                "does not fire"
            };
            Line::from(vec![
                Span::styled(format!(" {name} {verdict}: "), theme.bold("threshold")),
                Span::styled(
                    format!(
                        "{} pinned · {} summarized · {} kept · {} dropped · {} findings",
                        s.pinned.len(),
                        s.summarized.len(),
                        s.kept.len(),
                        s.dropped.len(),
                        plan.findings.len()
                    ),
                    theme.fg("dim"),
                ),
            ])
        }
        (Some(name), None, Some(err)) => Line::styled(format!(" {name}: {err}"), theme.fg("warn")),
        (Some(name), None, None) => Line::styled(format!(" {name}"), theme.fg("dim")),
    };
    let follow = match (state.following, state.unseen) {
        (false, _) => String::new(),
        (true, 0) => " ● following ·".to_string(),
        (true, n) => format!(" ● {n} new (G) ·"),
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
        ])
    } else if let Some(notice) = &state.notice {
        Line::styled(
            format!(" {}", crate::text::inline(notice)),
            theme.fg("warn"),
        )
    } else if state.replay.is_some() {
        Line::styled(
            " replay · space pause/play · [ ] step · < > speed · Home End jump · ? help · Esc q r leave",
            theme.fg("dim"),
        )
    } else {
        let search = match &state.search {
            Some(s) => {
                let at = s.matches.partition_point(|&i| i < state.selected);
                let on = s.matches.get(at) == Some(&state.selected);
                format!(
                    " /{} {}{} of {} (n/N) ·",
                    s.query,
                    if on { "" } else { "~" },
                    (at + usize::from(on)).min(s.matches.len()),
                    s.matches.len()
                )
            }
            None => String::new(),
        };
        let crumb = if state.parent.is_some() {
            " subagent (Esc: parent) ·"
        } else {
            ""
        };
        Line::styled(
            format!(
                "{follow}{crumb}{search} {} of {} · j/k move · Tab detail · p preset · +/- knob · : set · / search · s summarizer · d diff · ? help · q quit",
                state.selected + 1,
                state.len()
            ),
            theme.fg("dim"),
        )
    };
    frame.render_widget(Paragraph::new(vec![status, second]), area);
}
