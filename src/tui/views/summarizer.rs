//! The summarizer-input view: the exact messages the active preset would send, role by role.

use ratatui::text::Line;

use super::detail::shown;
use super::thousands;
use crate::tui::highlight::Kind;
use crate::tui::state::AppState;
use crate::tui::theme::Theme;

/// Lines folded per summarizer message before "… N more lines".
const SHOWN: usize = 400;

pub fn lines<'a>(state: &AppState, theme: &Theme) -> Vec<Line<'a>> {
    let Some(plan) = &state.plan else {
        return vec![Line::styled(
            state
                .plan_error
                .clone()
                .unwrap_or_else(|| " no preset: p picks one".into()),
            theme.fg("dim"),
        )];
    };
    if plan.summarizer.is_empty() {
        return vec![Line::styled(
            format!(
                " {}: no summarizer request — {}",
                plan.preset, plan.trigger.reason
            ),
            theme.fg("dim"),
        )];
    }
    let mut out = vec![Line::styled(
        format!(
            " summarizer request of {} ({} message(s))",
            plan.preset,
            plan.summarizer.len()
        ),
        theme.bold("title"),
    )];
    for m in &plan.summarizer {
        let chars = m.content.chars().count() as u64;
        let tokens = state.analysis.counter.count(&m.content) as u64;
        out.push(Line::styled(
            format!(
                "▸ {} · {} chars · {} tokens",
                m.role.as_str(),
                thousands(chars),
                thousands(tokens)
            ),
            theme.bold(m.role.as_str()),
        ));
        shown(&m.content, Kind::Text, theme, "title", SHOWN, &mut out);
    }
    out
}
