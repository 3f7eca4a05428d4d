//! The diff view: per summarized message, how much the summarizer sees, what it loses, and
//! the evidence-survival score; then the plan's findings with the messages they name.

use ratatui::text::{Line, Span};

use super::thousands;
use crate::tui::state::AppState;
use crate::tui::theme::Theme;

const BAR: usize = 20;

pub fn lines<'a>(state: &AppState, theme: &Theme) -> Vec<Line<'a>> {
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
            out.push(Line::styled(
                format!("        lost: {}", lost.line()),
                theme.fg("error"),
            ));
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
            Span::styled(f.detail.clone(), theme.fg("dim")),
        ]));
    }
    out
}
