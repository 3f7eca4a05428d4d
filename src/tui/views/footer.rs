//! The footer: the active preset's state and the keys most used.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

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
    let keys = Line::styled(
        format!(
            "{follow} {} of {} · j/k move · Tab detail · p preset · s summarizer · d diff · ? help · q quit",
            state.selected + 1,
            state.len()
        ),
        theme.fg("dim"),
    );
    frame.render_widget(Paragraph::new(vec![status, keys]), area);
}
