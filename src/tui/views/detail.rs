//! The detail pane: the selected message whole — its parts, tool arguments as indented JSON,
//! results, reasoning, usage — long content folded with a count of the hidden lines.
//!
//! JSON arguments, JSON results and fenced code in text are highlighted through the theme's
//! highlighter, which only ever sees the lines shown here; this file decides what is shown.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

use super::thousands;
use crate::session::{Message, Part};
use crate::text::inline;
use crate::tui::highlight::Kind;
use crate::tui::state::{AppState, DetailMode, Focus};
use crate::tui::theme::Theme;

/// Lines of one part shown before the rest is folded.
const FOLD_AT: usize = 60;

/// Draws the pane; returns the rows its content takes (0: it does not scroll).
pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) -> usize {
    let border = if state.focus == Focus::Detail {
        "title"
    } else {
        "dim"
    };
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.fg(border));
    if let Some(s) = &state.summarizing {
        super::summarizing::render(frame, area, s, theme);
        return 0;
    }
    let lines = match state.detail_mode {
        DetailMode::Summarizer => super::summarizer::lines(state, theme),
        DetailMode::Diff => super::diff::lines(state, theme, area.width),
        DetailMode::Result => super::result::lines(state, theme),
        DetailMode::Timeline => {
            super::timeline::render(frame, area, state, theme);
            return 0;
        }
        DetailMode::Message => match state.analysis.session.messages.get(state.selected) {
            Some(m) => message_lines(state, m, theme),
            None => vec![Line::styled("no messages", theme.fg("dim"))],
        },
    };
    let (shown, rows) = window(lines, area, state.detail_scroll);
    let block = match position(shown.scroll, rows, area.height) {
        Some(at) => block.title_top(Line::styled(at, theme.fg("dim")).right_aligned()),
        None => block,
    };
    let para = Paragraph::new(shown.lines)
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((shown.within, 0));
    frame.render_widget(para, area);
    rows
}

/// The lines a pane of `area` scrolled `scroll` rows down shows, from the first line it cuts
/// into, and how many of that line's rows are above the pane.
struct Window<'a> {
    lines: Vec<Line<'a>>,
    /// The pane's scroll, clamped so that it ends on the content's last row.
    scroll: usize,
    within: u16,
}

/// The part of `lines` (wrapped to the pane's width) a pane scrolled `scroll` rows shows, and
/// the rows the whole content takes with the pane's border. Only the lines on screen are
/// drawn: a message of many parts is hundreds of thousands of rows, more than a paragraph's
/// own scroll reaches.
fn window(lines: Vec<Line<'_>>, area: Rect, scroll: usize) -> (Window<'_>, usize) {
    let width = area.width;
    let heights: Vec<usize> = lines
        .iter()
        .map(|l| match l.width() <= usize::from(width) {
            // A line that fits is one row, as the paragraph wraps it.
            true => 1,
            false => Paragraph::new(l.clone())
                .wrap(Wrap { trim: false })
                .line_count(width),
        })
        .collect();
    // The border takes the pane's first row.
    let rows = heights.iter().sum::<usize>() + 1;
    let height = usize::from(area.height);
    // Never past the last row: the pane ends on its content, not on a blank page.
    let scroll = scroll.min(rows.saturating_sub(height));
    let (mut first, mut above) = (0, 0);
    while first < heights.len() && above + heights[first] <= scroll {
        above += heights[first];
        first += 1;
    }
    let mut last = first;
    let mut shown = above;
    while last < heights.len() && shown < scroll + height {
        shown += heights[last];
        last += 1;
    }
    let within = u16::try_from(scroll - above).unwrap_or(u16::MAX);
    let lines = lines.into_iter().skip(first).take(last - first).collect();
    let w = Window {
        lines,
        scroll,
        within,
    };
    (w, rows)
}

/// `rows 41–60 of 212`: where the pane is in its content, when it does not all fit.
fn position(scroll: usize, rows: usize, height: u16) -> Option<String> {
    // The border takes the pane's first row and counts as the content's first.
    let (content, shown) = (
        rows.saturating_sub(1),
        usize::from(height).saturating_sub(1),
    );
    if content <= shown || shown == 0 {
        return None;
    }
    let first = scroll + 1;
    let last = (scroll + shown).min(content);
    Some(format!(
        " rows {}–{} of {} ",
        thousands(first as u64),
        thousands(last as u64),
        thousands(content as u64)
    ))
}

fn message_lines<'a>(state: &AppState, m: &Message, theme: &Theme) -> Vec<Line<'a>> {
    let count = state
        .analysis
        .counts
        .messages
        .get(m.index)
        .copied()
        .unwrap_or_default();
    let role = m.role.as_str();
    let mut head = vec![
        Span::styled(format!(" #{} ", m.index), theme.bold("title")),
        Span::styled(role.to_string(), theme.bold(role)),
        Span::styled(
            format!(
                "  {} tokens + {} overhead · records {:?}",
                thousands(count.tokens as u64),
                count.overhead,
                m.source_indices
            ),
            theme.fg("dim"),
        ),
    ];
    if let Some(u) = &m.usage {
        head.push(Span::styled(
            format!(
                " · reported in {} out {}",
                u.context_input().map_or("-".into(), thousands),
                u.output.map_or("-".into(), thousands)
            ),
            theme.fg("info"),
        ));
    }
    let mut lines = vec![Line::from(head)];
    for part in &m.parts {
        part_lines(part, theme, &mut lines);
    }
    lines
}

fn part_lines<'a>(part: &Part, theme: &Theme, out: &mut Vec<Line<'a>>) {
    match part {
        Part::Text { text } => folded(text, theme, "title", out),
        Part::Summary { text } => {
            out.push(Line::styled("▸ summary", theme.bold("mark")));
            folded(text, theme, "title", out);
        }
        Part::Reasoning { text, opaque_len } => {
            out.push(Line::styled(
                format!(
                    "▸ reasoning{}",
                    if *opaque_len > 0 {
                        format!(" (+{opaque_len} encrypted chars)")
                    } else {
                        String::new()
                    }
                ),
                theme.fg("dim"),
            ));
            folded(text, theme, "dim", out);
        }
        Part::ToolCall {
            id,
            name,
            arguments,
            server,
        } => {
            let side = if *server { " (provider-run)" } else { "" };
            let (name, id) = (inline(name), inline(id));
            out.push(Line::styled(
                format!("▸ call {name} [{id}]{side}"),
                theme.bold("tool"),
            ));
            shown(arguments, Kind::Json, theme, "assistant", FOLD_AT, out);
        }
        Part::ToolResult {
            call_id,
            content,
            is_error,
        } => {
            let role = if *is_error == Some(true) {
                "error"
            } else {
                "tool"
            };
            out.push(Line::styled(
                format!(
                    "▸ result [{}]{}",
                    inline(call_id),
                    if *is_error == Some(true) {
                        " error"
                    } else {
                        ""
                    }
                ),
                theme.bold(role),
            ));
            for p in content {
                match p {
                    Part::Text { text } => {
                        shown(text, Kind::MaybeJson, theme, "title", FOLD_AT, out)
                    }
                    _ => part_lines(p, theme, out),
                }
            }
        }
        Part::Image(img) => out.push(Line::styled(
            format!(
                "▸ image {} {}{}",
                inline(img.media_type.as_deref().unwrap_or("")),
                img.width
                    .zip(img.height)
                    .map_or(String::new(), |(w, h)| format!("{w}×{h} ")),
                img.bytes.map_or_else(
                    || inline(img.url.as_deref().unwrap_or_default()).into_owned(),
                    |b| format!("{b} bytes")
                )
            ),
            theme.fg("info"),
        )),
        Part::Opaque { kind, raw } => {
            out.push(Line::styled(
                format!(
                    "▸ {} (not sent to the model as text, {} chars)",
                    inline(kind),
                    raw.chars().count()
                ),
                theme.fg("dim"),
            ));
        }
    }
}

/// A text part (fenced code highlighted), folded after `FOLD_AT` lines.
pub(super) fn folded<'a>(text: &str, theme: &Theme, role: &str, out: &mut Vec<Line<'a>>) {
    shown(text, Kind::Text, theme, role, FOLD_AT, out);
}

/// The first `fold_at` lines of `text` as `kind` (highlighted where it is code, the rest in
/// `role`), then a count of the lines folded away.
pub(super) fn shown<'a>(
    text: &str,
    kind: Kind,
    theme: &Theme,
    role: &str,
    fold_at: usize,
    out: &mut Vec<Line<'a>>,
) {
    let shown = theme
        .highlighter()
        .show(text, kind, theme.fg(role), fold_at);
    out.extend(shown.lines.iter().cloned());
    if shown.total > fold_at {
        out.push(Line::styled(
            format!("… {} more lines", shown.total - fold_at),
            theme.fg("dim"),
        ));
    }
}
