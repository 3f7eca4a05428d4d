//! The diff view: per summarized message, how much the summarizer sees, what it loses, and
//! the evidence-survival score; then the plan's findings with the messages they name.

use ratatui::text::{Line, Span};

use super::thousands;
use crate::tui::state::AppState;
use crate::tui::theme::Theme;

const BAR: usize = 20;

/// Where a loss starts, under the message's role.
const LOST_INDENT: usize = 8;

/// `text` indented by `indent` and cut into rows of at most `width` columns at spaces, each row
/// after the first indented by `indent` plus the width of its first word (`lost: `), or less
/// for a word that would not fit so indented. A word wider than the row is left whole for the
/// pane to wrap.
fn hang(text: &str, indent: usize, width: usize) -> Vec<String> {
    let cols = |s: &str| Span::raw(s).width();
    let first = text.split(' ').next().map_or(0, |w| cols(w) + 1);
    let mut rows = Vec::new();
    let mut row = " ".repeat(indent);
    let mut empty = true;
    for word in text.split(' ') {
        let fits = cols(&row) + usize::from(!empty) + cols(word) <= width;
        if !empty && !fits {
            let under = (indent + first).min(width.saturating_sub(cols(word)));
            rows.push(std::mem::replace(&mut row, " ".repeat(under)));
            empty = true;
        }
        if !empty {
            row.push(' ');
        }
        row.push_str(word);
        empty = false;
    }
    rows.push(row);
    rows
}

/// The lines of the diff view for a pane `width` columns wide (a loss that does not fit goes on
/// under itself, not under the message numbers).
pub fn lines<'a>(state: &AppState, theme: &Theme, width: u16) -> Vec<Line<'a>> {
    let (Some(plan), Some(d)) = (&state.plan, &state.diff) else {
        let why = match &state.plan {
            Some(_) => " comparing the summarized range with the summarizer input…",
            None => " no preset: p picks one",
        };
        return vec![Line::styled(why, theme.fg("dim"))];
    };
    let mut out = vec![Line::styled(
        format!(
            " {} summarized · {} of {} chars reach the summarizer · evidence survival {}/{} ({:.0}%)",
            d.messages.len(),
            thousands(d.seen_chars as u64),
            thousands(d.raw_chars as u64),
            d.evidence_survived,
            d.evidence_total,
            d.evidence_survival() * 100.0
        ),
        theme.bold("title"),
    )];
    for m in &d.messages {
        let filled = (m.seen_chars * BAR)
            .checked_div(m.raw_chars)
            .unwrap_or(BAR)
            .min(BAR);
        out.push(Line::from(vec![
            Span::styled(
                format!("{:>5} {:<9} ", m.index, m.role.as_str()),
                theme.fg(m.role.as_str()),
            ),
            Span::styled("█".repeat(filled), theme.fg("gauge")),
            Span::styled("░".repeat(BAR - filled), theme.fg("dropped")),
            Span::styled(
                format!(" {}/{}", m.seen_chars, m.raw_chars),
                theme.fg("dim"),
            ),
        ]));
        let lost = crate::report::lost::Lost::of(m);
        if !lost.is_empty() {
            let text = format!("lost: {}", crate::text::inline(&lost.line()));
            for row in hang(&text, LOST_INDENT, usize::from(width)) {
                out.push(Line::styled(row, theme.fg("error")));
            }
        }
    }
    out.push(Line::raw(""));
    let jumped = state.finding.and_then(|i| state.findings().get(i).copied());
    for f in state.analysis.findings.iter().chain(&plan.findings) {
        let at: Vec<String> = f.messages.iter().take(8).map(|i| format!("#{i}")).collect();
        let here = jumped.is_some_and(|j| std::ptr::eq(j, f));
        out.push(Line::from(vec![
            Span::styled(if here { "▶" } else { " " }, theme.bold("title")),
            Span::styled(
                format!("{:<5} ", f.severity.as_str()),
                theme.fg(f.severity.as_str()),
            ),
            Span::styled(format!("{} {} ", f.code, at.join(",")), theme.bold("title")),
            Span::styled(crate::text::inline(&f.detail).into_owned(), theme.fg("dim")),
        ]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::hang;

    #[test]
    fn a_long_loss_goes_on_under_itself() {
        let rows = hang(
            "lost: tools Glob · 4/4 argument values · evidence ./a/b",
            8,
            30,
        );
        assert_eq!(
            rows,
            [
                "        lost: tools Glob · 4/4",
                "              argument values",
                "              · evidence ./a/b",
            ]
        );
        assert!(rows.iter().all(|r| r.chars().count() <= 30));
        assert_eq!(hang("lost: x", 8, 80), ["        lost: x"]);
        // A word too wide for the hanging indent moves left rather than wrapping.
        assert_eq!(
            hang("lost: a /a/very/long/path.rs", 8, 24),
            ["        lost: a", "    /a/very/long/path.rs"]
        );
    }
}
