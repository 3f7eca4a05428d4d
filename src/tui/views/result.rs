//! The result of a compaction (`c`): the history's tokens before and after side by side, what
//! was freed, the findings only a real run shows, and the summary as it was inserted.

use ratatui::text::{Line, Span};

use super::thousands;
use crate::tui::state::AppState;
use crate::tui::theme::Theme;

/// Width of the before/after bars.
const BAR: usize = 24;

pub fn lines<'a>(state: &AppState, theme: &Theme) -> Vec<Line<'a>> {
    let Some(c) = &state.compaction else {
        return vec![Line::styled(
            "no compaction yet: c compacts with the active preset",
            theme.fg("dim"),
        )];
    };
    let mut out = vec![Line::from(vec![
        Span::styled(
            format!(" compaction {} · {} · ", c.generation, c.preset),
            theme.bold("title"),
        ),
        Span::styled(
            format!(
                "summarizer {} · Esc returns to {}",
                c.summarizer,
                if state.crumb.is_some() {
                    "the replay"
                } else {
                    "the history before"
                }
            ),
            theme.fg("dim"),
        ),
    ])];
    let largest = c.tokens_before.max(c.tokens_after).max(1);
    for (label, tokens, messages, role) in [
        ("before", c.tokens_before, c.messages_before, "bar"),
        ("after", c.tokens_after, state.len(), "kept"),
    ] {
        let width = tokens * BAR / largest;
        out.push(Line::from(vec![
            Span::styled(format!(" {label:<7}"), theme.fg("dim")),
            Span::styled("█".repeat(width), theme.fg(role)),
            Span::raw(" ".repeat(BAR - width)),
            Span::styled(
                format!(
                    " {:>9} tokens · {messages} messages",
                    thousands(tokens as u64)
                ),
                theme.fg("title"),
            ),
        ]));
    }
    let freed = c.tokens_before as i64 - c.tokens_after as i64;
    out.push(Line::styled(
        format!(
            " {} {} tokens ({:.1}%)",
            if freed >= 0 { "freed" } else { "grew by" },
            thousands(freed.unsigned_abs()),
            freed.unsigned_abs() as f64 * 100.0 / c.tokens_before.max(1) as f64
        ),
        theme.fg(if freed > 0 { "info" } else { "error" }),
    ));
    for f in &c.findings {
        out.push(Line::from(vec![
            Span::styled(
                format!(" {:<5} ", f.severity.as_str()),
                theme.fg(f.severity.as_str()),
            ),
            Span::styled(format!("{} ", f.code), theme.bold("title")),
            Span::styled(crate::text::inline(&f.detail).into_owned(), theme.fg("dim")),
        ]));
    }
    out.push(Line::raw(""));
    match (&c.summary, c.summary_at) {
        (Some(summary), Some(at)) => {
            out.push(Line::styled(
                format!(" ▸ summary, inserted as message #{at}"),
                theme.bold("mark"),
            ));
            super::detail::folded(summary, theme, "mark", &mut out);
        }
        (Some(summary), None) => {
            out.push(Line::styled(
                " ▸ summary, rejected: the history stays as it was",
                theme.bold("warn"),
            ));
            super::detail::folded(summary, theme, "dim", &mut out);
        }
        _ => out.push(Line::styled(
            " no summary: this strategy only drops or truncates",
            theme.fg("dim"),
        )),
    }
    out
}
