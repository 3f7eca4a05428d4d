//! The loading screen: which source, what phase (reading, parsing, counting, waiting for a
//! followed file's first record) and a gauge where the phase can be measured.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Gauge, Paragraph};
use ratatui::Frame;

use super::thousands;
use crate::progress::Phase;
use crate::tui::app::Loading;
use crate::tui::theme::Theme;

pub fn render(frame: &mut Frame, area: Rect, loading: &Loading, theme: &Theme) {
    let [_, title, gauge, hint, _] = Layout::vertical([
        Constraint::Percentage(40),
        Constraint::Length(2),
        Constraint::Length(1),
        Constraint::Length(2),
        Constraint::Min(0),
    ])
    .areas(area);
    let p = &loading.progress;
    let phase = p.phase();
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!(" {}", loading.source),
            theme.bold("title"),
        )),
        title,
    );
    let (done, total) = p.amounts();
    let label = match (phase, total) {
        (Phase::Reading, t) if t > 0 => format!(
            "{} · {:.1} / {:.1} MB",
            phase.as_str(),
            done as f64 / 1e6,
            total as f64 / 1e6
        ),
        (Phase::Counting, t) if t > 0 => format!(
            "{} · {} / {} messages",
            phase.as_str(),
            thousands(done),
            thousands(total)
        ),
        _ => format!("{}…", phase.as_str()),
    };
    let ratio = p.ratio().unwrap_or(0.0);
    let bar = Gauge::default()
        .gauge_style(theme.fg("gauge"))
        .ratio(ratio)
        .label(label);
    let inner = Rect {
        x: gauge.x + 1,
        width: gauge.width.saturating_sub(2),
        ..gauge
    };
    frame.render_widget(bar, inner);
    frame.render_widget(
        Paragraph::new(Line::styled(" q quits", theme.fg("dim"))),
        hint,
    );
}
