//! The message list: index, group bracket, role, token bar, count, reported tokens, part kinds
//! and tool names; compaction marks and the preset's cut as rules; fates shaded. Only the
//! visible window is built, so a frame costs the same at 100 messages or 100,000.

use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::thousands;
use crate::session::{CompactionMark, Message, Part};
use crate::tui::state::{AppState, Fate, Focus};
use crate::tui::theme::Theme;

const BAR: usize = 14;

/// Renders the list; returns its inner area and the message each row shows (`None`: a rule).
pub fn render(
    frame: &mut Frame,
    area: Rect,
    state: &AppState,
    theme: &Theme,
) -> (Rect, Vec<Option<usize>>) {
    let border = if state.focus == Focus::List {
        "title"
    } else {
        "dim"
    };
    let block = Block::default()
        .borders(Borders::RIGHT)
        .border_style(theme.fg(border));
    let mut inner = block.inner(area);
    frame.render_widget(block, area);
    // The column header, when there is room for it and a few rows under it.
    if inner.height > 4 {
        frame.render_widget(
            Paragraph::new(column_header(theme)),
            Rect { height: 1, ..inner },
        );
        inner.y += 1;
        inner.height -= 1;
    }
    let rows = usize::from(inner.height);
    let a = &state.analysis;
    let largest = a
        .counts
        .messages
        .iter()
        .map(|c| c.total())
        .max()
        .unwrap_or(0);
    let cut = state.cut_before();
    let mut lines: Vec<Line> = Vec::with_capacity(rows);
    let mut shows: Vec<Option<usize>> = Vec::with_capacity(rows);
    let mut marks = a
        .session
        .marks
        .iter()
        .filter(|k| k.before_message >= state.offset)
        .peekable();
    // Where a rewind left a branch: a rule after the last message the branch shares.
    let mut rewinds: Vec<(usize, usize)> = (a.session.source.abandoned.iter())
        .map(|b| {
            let after = a
                .session
                .messages
                .partition_point(|m| m.source_index <= b.fork);
            (after, b.records.len())
        })
        .filter(|(after, _)| *after > state.offset)
        .collect();
    rewinds.sort_unstable();
    let mut rewinds = rewinds.into_iter().peekable();
    for m in a.session.messages.iter().skip(state.offset) {
        while let Some(mark) = marks.next_if(|k| k.before_message <= m.index) {
            lines.push(mark_line(mark, theme));
            shows.push(None);
        }
        while let Some((_, n)) = rewinds.next_if(|(after, _)| *after <= m.index) {
            lines.push(Line::styled(
                format!(
                    "──── rewind: {n} record{} of an abandoned branch, not in context ────",
                    if n == 1 { "" } else { "s" }
                ),
                theme.fg("mark"),
            ));
            shows.push(None);
        }
        if cut == Some(m.index) {
            lines.push(Line::styled(
                "──── cut: summarized above · kept below ────",
                theme.bold("cut"),
            ));
            shows.push(None);
        }
        lines.push(message_line(state, m, largest, theme));
        shows.push(Some(m.index));
        if lines.len() >= rows {
            break;
        }
    }
    if a.holds_sessions() {
        lines.push(Line::styled(
            format!("  {} sessions in this file: a lists them", a.children.len()),
            theme.fg("info"),
        ));
    }
    lines.truncate(rows);
    shows.truncate(rows);
    // Rows below the last message still count as rows a page can fill.
    shows.resize(rows, None);
    frame.render_widget(Paragraph::new(lines), inner);
    (inner, shows)
}

/// The names of the columns `message_line` draws, aligned with them.
fn column_header<'a>(theme: &Theme) -> Line<'a> {
    let style = theme.bold("dim");
    Line::from(vec![
        Span::styled(format!("{:>6}", "#"), style),
        Span::styled(format!("  {:<9} ", "role"), style),
        Span::styled(format!("{:<width$}", "tokens", width = BAR), style),
        Span::styled(format!(" {:>7}", "total"), style),
        Span::styled(format!(" {:>6} ", "out"), style),
        Span::styled("content · tools", style),
    ])
}

fn message_line<'a>(state: &AppState, m: &Message, largest: usize, theme: &Theme) -> Line<'a> {
    let a = &state.analysis;
    let count = a.counts.messages.get(m.index).copied().unwrap_or_default();
    let (glyph, glyph_role) = group_glyph(state, m.index);
    let fate = state.fate(m.index);
    // Without colour each fate has a glyph of its own (with colour, the shade tells them apart).
    let plain = theme.depth() == crate::tui::color_depth::ColorDepth::None;
    let fate_mark = match (fate, plain) {
        (Fate::Pinned, true) => ("◆", "pinned"),
        (Fate::Summarized, true) => ("░", "summarized"),
        (Fate::Dropped, true) => ("×", "dropped"),
        (Fate::Pinned, false) => ("▌", "pinned"),
        (Fate::Summarized, false) => ("▌", "summarized"),
        (Fate::Dropped, false) => ("▌", "dropped"),
        (Fate::Kept, _) => ("▌", "kept"),
        (Fate::Untouched, _) => (" ", "dim"),
    };
    let role = m.role.as_str();
    let filled = (count.total() * BAR).checked_div(largest).unwrap_or(0);
    let text_part = (count.tokens * BAR)
        .checked_div(largest)
        .unwrap_or(0)
        .min(filled);
    let reported = m
        .usage
        .as_ref()
        .and_then(|u| u.output)
        .map_or(String::new(), thousands);
    let mut spans = vec![
        Span::styled(fate_mark.0, theme.fg(fate_mark.1)),
        Span::styled(
            format!("{:>5}", m.index),
            if is_match(state, m.index) {
                theme.bold("search")
            } else {
                theme.fg("dim")
            },
        ),
        Span::styled(glyph, theme.fg(glyph_role)),
        Span::styled(format!(" {role:<9} "), theme.fg(role)),
        Span::styled("█".repeat(text_part), theme.fg("bar")),
        Span::styled("▒".repeat(filled - text_part), theme.fg("bar_overhead")),
        Span::raw(" ".repeat(BAR - filled)),
        Span::styled(
            format!(" {:>7}", thousands(count.total() as u64)),
            theme.fg("title"),
        ),
        Span::styled(format!(" {reported:>6} "), theme.fg("dim")),
        Span::styled(summary(m), theme.fg("dim")),
    ];
    if matches!(fate, Fate::Summarized | Fate::Dropped) {
        for s in spans.iter_mut().skip(3) {
            s.style = s.style.add_modifier(Modifier::DIM);
        }
    }
    let line = Line::from(spans);
    if m.index == state.selected {
        line.style(theme.selected())
    } else {
        line
    }
}

fn is_match(state: &AppState, index: usize) -> bool {
    state
        .search
        .as_ref()
        .is_some_and(|s| s.matches.binary_search(&index).is_ok())
}

fn group_glyph(state: &AppState, index: usize) -> (&'static str, &'static str) {
    let grouping = &state.analysis.grouping;
    let Some(g) = grouping.of_message.get(index).copied().flatten() else {
        return (" ", "dim");
    };
    let group = &grouping.groups[g];
    let first = group.messages.first() == Some(&index);
    let last = group.messages.last() == Some(&index);
    let glyph = match (first, last) {
        (true, true) => "[",
        (true, false) => "┌",
        (false, true) => "└",
        _ => "│",
    };
    (
        glyph,
        if group.complete() {
            "group"
        } else {
            "group_broken"
        },
    )
}

fn summary(m: &Message) -> String {
    let tools = m.tool_names();
    if !tools.is_empty() {
        return crate::text::inline(&tools.join(", ")).into_owned();
    }
    let text = m
        .parts
        .iter()
        .map(Part::plain_text)
        .find(|t| !t.trim().is_empty())
        .unwrap_or_else(|| m.parts.iter().map(Part::kind).collect::<Vec<_>>().join(","));
    let line: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(80)
        .collect();
    crate::text::inline(&line).into_owned()
}

fn mark_line<'a>(mark: &CompactionMark, theme: &Theme) -> Line<'a> {
    let tokens = match (mark.pre_tokens, mark.post_tokens) {
        (Some(a), Some(b)) => format!(" {} → {} tokens", thousands(a), thousands(b)),
        (Some(a), None) => format!(" from {} tokens", thousands(a)),
        _ => String::new(),
    };
    let kind = crate::text::inline(&mark.kind);
    Line::styled(format!("──── {kind}{tokens} ────"), theme.fg("mark"))
}
