//! The header: the session's identity and the context gauge with the preset's trigger on it.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::thousands;
use crate::tui::state::AppState;
use crate::tui::theme::Theme;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    frame.render_widget(Paragraph::new(lines(state, theme, area.width)), area);
}

/// Rows the header takes: the lines `lines` gives.
pub fn height(state: &AppState) -> u16 {
    let trigger = (state.compacting.is_some() && state.plan.is_some())
        || state.planning.is_some()
        || state.plan.is_some();
    2 + u16::from(state.analysis.reported().is_some()) + u16::from(trigger)
}

/// The header's lines: who the session is; the gauge with its numbers; what the provider
/// reported against what the file holds; the active preset's trigger.
fn lines<'a>(state: &AppState, theme: &Theme, width: u16) -> Vec<Line<'a>> {
    let a = &state.analysis;
    let used = a.total_tokens() as u64;
    let (window, window_from) = state.gauge_window();
    let mut lines = vec![
        title_line(state, theme, width),
        gauge_line(state, theme, used, window.max(1), width),
    ];
    if let Some(r) = a.reported() {
        lines.push(reported_line(r, theme, width));
    }
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
        lines.push(trigger_line(state, plan, &window_from, theme, width));
    }
    lines
}

fn title_line<'a>(state: &AppState, theme: &Theme, width: u16) -> Line<'a> {
    let a = &state.analysis;
    let s = &a.session;
    let approx = if a.info.approximate { " ≈" } else { "" };
    let line = |path: String, full: bool| {
        let mut title = Line::from(vec![Span::styled(format!(" {path} "), theme.bold("title"))]);
        if full {
            title.spans.push(Span::styled(
                format!("{} · ", s.format.name()),
                theme.fg("dim"),
            ));
        }
        title.spans.push(Span::styled(
            (a.model.as_deref()).map_or_else(
                || "unknown model".into(),
                |m| crate::text::inline(m).into_owned(),
            ),
            theme.fg("assistant"),
        ));
        if full {
            title.spans.push(Span::styled(
                format!(" · {}{approx}", a.counter.encoding()),
                theme.fg("dim"),
            ));
        }
        if !a.children.is_empty() {
            title.spans.push(Span::styled(
                format!(
                    " · {} {} (a)",
                    a.children.len(),
                    a.children_word(a.children.len())
                ),
                theme.fg("info"),
            ));
        }
        if let Some((read, total)) = state.loading {
            title.spans.push(Span::styled(
                format!(" · reading {}%…", read * 100 / total.max(1)),
                theme.fg("info"),
            ));
        }
        title
    };
    // The whole path, else its file name, else without format and encoding: the model and
    // the subagents matter more than the folders.
    let path = crate::text::inline(&s.source.path).into_owned();
    let name = std::path::Path::new(&path)
        .file_name()
        .map_or_else(|| path.clone(), |n| n.to_string_lossy().into_owned());
    super::first_fitting(
        width,
        [
            line(path, true),
            line(name.clone(), true),
            line(name, false),
        ],
    )
}

/// The gauge: its numbers first, the bar in the room left (none below 8 columns), so a narrow
/// terminal keeps the numbers.
fn gauge_line<'a>(state: &AppState, theme: &Theme, used: u64, window: u64, width: u16) -> Line<'a> {
    let numbers = format!(
        " {} / {} in context ({:.1}%)",
        thousands(used),
        thousands(window),
        used as f64 * 100.0 / window as f64
    );
    let room = usize::from(width).saturating_sub(numbers.chars().count() + 2);
    let bar = room.min(80);
    let mut spans = vec![Span::raw(" ")];
    if bar >= 8 {
        spans.extend(bar_spans(state, theme, used, window, bar));
    }
    spans.push(Span::styled(numbers, theme.fg("title")));
    Line::from(spans)
}

fn bar_spans<'a>(
    state: &AppState,
    theme: &Theme,
    used: u64,
    window: u64,
    width: usize,
) -> Vec<Span<'a>> {
    let fill = ((used as f64 / window as f64) * width as f64).round() as usize;
    let threshold_at = state
        .plan
        .as_ref()
        .filter(|p| p.trigger.measure == "tokens" && p.trigger.threshold > 0)
        .map(|p| ((p.trigger.threshold as f64 / window as f64) * width as f64).round() as usize);
    let high = used as f64 / window as f64 > 0.8;
    (0..width)
        .map(|i| {
            let (glyph, role) = if Some(i) == threshold_at {
                ("│", "threshold")
            } else if i < fill {
                ("█", if high { "gauge_high" } else { "gauge" })
            } else {
                ("░", "dim")
            };
            Span::styled(glyph, theme.fg(role))
        })
        .collect()
}

/// What the provider last reported against what the file holds of that request, and the
/// difference named: the prompt parts a session file does not record. Shorter words when the
/// long ones do not fit.
fn reported_line<'a>(r: crate::analysis::Reported, theme: &Theme, width: u16) -> Line<'a> {
    let missing = r.not_in_file();
    let (parts, since) = if r.since_compaction {
        (
            "system prompt, tools, what the compaction left",
            " since its compaction",
        )
    } else {
        ("system prompt, tools", "")
    };
    let long = [
        format!(" provider reported {}", thousands(r.tokens)),
        format!(
            " at #{} · the file holds {} of it{since}",
            r.at,
            thousands(r.in_file)
        ),
        format!(" · not in the file: {parts} ≈ {}", thousands(missing)),
    ];
    let short = [
        format!(" reported {}", thousands(r.tokens)),
        format!(" · file {}", thousands(r.in_file)),
        format!(" · not in file ({parts}) ≈ {}", thousands(missing)),
    ];
    let line = |words: [String; 3]| {
        let [reported, file, not_in] = words;
        let mut spans = vec![
            Span::styled(reported, theme.fg("title")),
            Span::styled(file, theme.fg("dim")),
        ];
        if missing > 0 {
            spans.push(Span::styled(not_in, theme.fg("info")));
        }
        Line::from(spans)
    };
    super::first_fitting(width, [line(long), line(short)])
}

/// The active plan's trigger, most telling first (the line is cut at the right edge): whether
/// it fires, and if not at what size it would and how to see it fire; demo mode when it is on;
/// then the framework's reason and where the window came from. Shorter words at a width where
/// the verdict and the demo key would not show whole.
fn trigger_line<'a>(
    state: &AppState,
    plan: &crate::compaction::Plan,
    window_from: &str,
    theme: &Theme,
    width: u16,
) -> Line<'a> {
    let t = &plan.trigger;
    let verdict = |short: bool| -> Vec<Span<'a>> {
        let mut spans = vec![Span::styled(
            format!(" {}: ", plan.preset),
            theme.fg("threshold"),
        )];
        spans.push(match (t.fired, short) {
            (true, _) => Span::styled(
                format!(
                    "fires · {} {} vs threshold {}",
                    thousands(t.value),
                    t.measure,
                    thousands(t.threshold)
                ),
                theme.bold("threshold"),
            ),
            (false, false) => Span::styled(
                format!("does not fire · {}", fires_at(t)),
                theme.fg("title"),
            ),
            (false, true) => Span::styled(
                format!("no fire · at {} {}", thousands(t.threshold), t.measure),
                theme.fg("title"),
            ),
        });
        match (state.demo_added(), short) {
            (Some(added), false) => spans.push(Span::styled(
                format!(" · {} (w undoes)", added.short),
                theme.bold("info"),
            )),
            (Some(_), true) => spans.push(Span::styled(" · demo (w undoes)", theme.bold("info"))),
            (None, false) if !t.fired => {
                spans.push(Span::styled(" · w: demo, fire it now", theme.fg("info")))
            }
            (None, true) if !t.fired => spans.push(Span::styled(" · w: demo", theme.fg("info"))),
            (None, _) => {}
        }
        spans
    };
    let long = Line::from(verdict(false));
    let mut line = if long.width() <= usize::from(width) {
        long
    } else {
        Line::from(verdict(true))
    };
    line.spans.push(Span::styled(
        format!(" · {} · window from {window_from}", t.reason),
        theme.fg("dim"),
    ));
    line
}

/// "fires at 160,000 tokens — 27× this session": the size at which a trigger that did not fire
/// would, against the session's own measure of it.
pub fn fires_at(t: &crate::compaction::Trigger) -> String {
    let at = format!("fires at {} {}", thousands(t.threshold), t.measure);
    if t.value == 0 || t.threshold <= t.value {
        return format!("{at} ({} now)", thousands(t.value));
    }
    let times = t.threshold as f64 / t.value as f64;
    let times = if times >= 10.0 {
        format!("{times:.0}")
    } else {
        format!("{times:.1}")
    };
    format!("{at} — {times}× this session")
}
