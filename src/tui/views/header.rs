//! The header: the session's identity and the context gauge with the preset's trigger on it.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::thousands;
use crate::tui::state::AppState;
use crate::tui::theme::Theme;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let a = &state.analysis;
    let s = &a.session;
    let approx = if a.info.approximate { " ≈" } else { "" };
    let title = Line::from(vec![
        Span::styled(
            format!(" {} ", crate::text::inline(&s.source.path)),
            theme.bold("title"),
        ),
        Span::styled(format!("{} · ", s.format.name()), theme.fg("dim")),
        Span::styled(
            (a.model.as_deref()).map_or_else(
                || "unknown model".into(),
                |m| crate::text::inline(m).into_owned(),
            ),
            theme.fg("assistant"),
        ),
        Span::styled(
            format!(" · {}{approx}", a.counter.encoding()),
            theme.fg("dim"),
        ),
    ]);
    let used = a.total_tokens() as u64;
    let (window, window_from) = state.gauge_window();
    let window = window.max(1);
    let width = usize::from(area.width.saturating_sub(2)).clamp(10, 80);
    let gauge = gauge_line(state, theme, used, window, width);
    let mut title = title;
    if !a.children.is_empty() {
        title.spans.push(Span::styled(
            format!(" · {} subagents (a)", a.children.len()),
            theme.fg("info"),
        ));
    }
    if let Some((read, total)) = state.loading {
        title.spans.push(Span::styled(
            format!(" · reading {}%…", read * 100 / total.max(1)),
            theme.fg("info"),
        ));
    }
    let mut lines = vec![title, gauge];
    if let (Some((summarizer, _)), Some(plan)) = (&state.compacting, &state.plan) {
        lines.push(Line::from(vec![
            Span::styled(format!(" {}: ", plan.preset), theme.fg("threshold")),
            Span::styled(
                format!("compacting ({summarizer})… Esc cancels"),
                theme.fg("info"),
            ),
        ]));
    } else if let Some((preset, ..)) = &state.planning {
        let shown = match &state.plan {
            Some(p) if p.preset != preset.as_str() => format!(" · showing {} meanwhile", p.preset),
            Some(_) => " · showing the last plan meanwhile".into(),
            None => String::new(),
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {preset}: "), theme.fg("threshold")),
            Span::styled(format!("planning…{shown}"), theme.fg("info")),
        ]));
    } else if let Some(plan) = &state.plan {
        let t = &plan.trigger;
        lines.push(Line::from(vec![
            Span::styled(format!(" {}: ", plan.preset), theme.fg("threshold")),
            Span::styled(
                format!(
                    "{} {} by its estimator vs threshold {} · {}",
                    thousands(t.value),
                    t.measure,
                    thousands(t.threshold),
                    t.reason
                ),
                theme.fg("dim"),
            ),
            Span::styled(format!(" · window from {window_from}"), theme.fg("dim")),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

fn gauge_line<'a>(
    state: &AppState,
    theme: &Theme,
    used: u64,
    window: u64,
    width: usize,
) -> Line<'a> {
    let fill = ((used as f64 / window as f64) * width as f64).round() as usize;
    let threshold_at = state
        .plan
        .as_ref()
        .filter(|p| p.trigger.measure == "tokens" && p.trigger.threshold > 0)
        .map(|p| ((p.trigger.threshold as f64 / window as f64) * width as f64).round() as usize);
    let high = used as f64 / window as f64 > 0.8;
    let mut spans = vec![Span::raw(" ")];
    for i in 0..width {
        let (glyph, role) = if Some(i) == threshold_at {
            ("│", "threshold")
        } else if i < fill {
            ("█", if high { "gauge_high" } else { "gauge" })
        } else {
            ("░", "dim")
        };
        spans.push(Span::styled(glyph, theme.fg(role)));
    }
    spans.push(Span::styled(
        format!(
            " {} / {} ({:.1}%)",
            thousands(used),
            thousands(window),
            used as f64 * 100.0 / window as f64
        ),
        theme.fg("title"),
    ));
    if let Some(reported) = state.analysis.last_reported_context() {
        spans.push(Span::styled(
            format!(" · last reported {}", thousands(reported)),
            theme.fg("dim"),
        ));
    }
    Line::from(spans)
}
