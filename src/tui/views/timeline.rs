//! The timeline view (`t`): context tokens request by request as a Braille chart — the exact
//! count and the provider's reported one — with the window and the active preset's trigger as
//! horizontal lines, the file's compactions and the preset's first what-if fire as labelled
//! vertical markers, the selected message as a cursor, a summary line and a legend.
//!
//! Draws `AppState::timeline` as it is: computes nothing about the session (series, marks and
//! the what-if come from `crate::timeline`), and takes every colour from a theme role.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Context, Line as Segment, Points};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

use super::thousands;
use crate::timeline::{Timeline, WhatIfStatus};
use crate::tui::state::{AppState, Focus};
use crate::tui::theme::Theme;

/// The chart needs this many rows and columns; smaller panes get the text alone.
const MIN_CHART: (u16, u16) = (3, 12);

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let border = if state.focus == Focus::Detail {
        "title"
    } else {
        "dim"
    };
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.fg(border))
        .title(Span::styled(" timeline ", theme.bold("title")));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.is_empty() {
        return;
    }
    let t = &state.timeline;
    let scale = Scale::of(t);
    let text = vec![summary_line(t, theme), legend_line(t, &scale, theme)];
    let text_rows = text
        .iter()
        .map(|l| {
            u16::try_from(l.width())
                .unwrap_or(u16::MAX)
                .div_ceil(inner.width)
                .max(1)
        })
        .sum::<u16>()
        .min(inner.height);
    frame.render_widget(
        Paragraph::new(text).wrap(Wrap { trim: false }),
        Rect {
            height: text_rows,
            ..inner
        },
    );
    let chart = Rect {
        y: inner.y + text_rows,
        height: inner.height - text_rows,
        ..inner
    };
    if t.points.is_empty() || chart.height < MIN_CHART.0 + 1 || chart.width < MIN_CHART.1 {
        return;
    }
    render_chart(frame, chart, state, &scale, theme);
}

/// Axis bounds. The window joins the y range only when it is near the data, so a 200k window
/// does not flatten a 5k session (the legend then says it is off the chart).
struct Scale {
    x_max: f64,
    y_max: f64,
    window_on: bool,
}

impl Scale {
    fn of(t: &Timeline) -> Scale {
        let trigger = t
            .trigger
            .as_ref()
            .filter(|g| g.in_tokens())
            .map_or(0, |g| g.threshold);
        let data = t.series_max().max(trigger).max(1);
        let window_on = t.window > 0 && t.window <= data.saturating_mul(2);
        let top = if window_on { data.max(t.window) } else { data };
        Scale {
            x_max: t.len.max(1) as f64,
            y_max: top as f64 * 1.08,
            window_on,
        }
    }

    /// The cell column of `x` in a plot `width` cells wide, as the Braille canvas rounds it.
    fn column(&self, x: f64, width: u16) -> u16 {
        let dots = f64::from(width) * 2.0 - 1.0;
        ((x / self.x_max * dots).round() as u16 / 2).min(width.saturating_sub(1))
    }

    /// The cell row of `y` in a plot `height` cells high.
    fn row(&self, y: f64, height: u16) -> u16 {
        let dots = f64::from(height) * 4.0 - 1.0;
        let y = y.clamp(0.0, self.y_max);
        (((self.y_max - y) / self.y_max * dots).round() as u16 / 4).min(height.saturating_sub(1))
    }
}

fn summary_line<'a>(t: &Timeline, theme: &Theme) -> Line<'a> {
    let dim = theme.fg("dim");
    let mut spans = Vec::new();
    match t.peak() {
        Some(p) => spans.push(Span::styled(
            format!(" peak {} at #{}", thousands(p.exact), p.upto),
            theme.fg("title"),
        )),
        None => spans.push(Span::styled(" no messages", dim)),
    }
    let marks = match t.marks.len() {
        0 => "no compaction in the file".to_string(),
        1 => "1 compaction in the file".to_string(),
        n => format!("{n} compactions in the file"),
    };
    spans.push(Span::styled(format!(" · {marks} · "), dim));
    spans.push(what_if_span(t, theme));
    Line::from(spans)
}

fn what_if_span<'a>(t: &Timeline, theme: &Theme) -> Span<'a> {
    match &t.what_if {
        WhatIfStatus::NoPreset => Span::styled("what-if: no preset (p picks one)", theme.fg("dim")),
        WhatIfStatus::NotComputed => Span::styled(
            "what-if: computing apart (a large session)…",
            theme.fg("dim"),
        ),
        WhatIfStatus::Failed(e) => Span::styled(format!("what-if: {e}"), theme.fg("error")),
        WhatIfStatus::Done(w) => {
            let sampled = if w.exhaustive { "" } else { ", sampled" };
            match w.first() {
                None => Span::styled(
                    format!(
                        "{} would not fire ({} requests planned{sampled})",
                        w.preset, w.evaluated
                    ),
                    theme.fg("dim"),
                ),
                Some(f) => {
                    let unit = if f.measure == "tokens" {
                        String::new()
                    } else {
                        format!(" {}", f.measure)
                    };
                    let cmp = if f.value >= f.threshold { "≥" } else { "vs" };
                    Span::styled(
                        format!(
                            "{} would first fire at #{} ({} {cmp} {}{unit}{sampled})",
                            w.preset,
                            f.upto,
                            thousands(f.value),
                            thousands(f.threshold)
                        ),
                        theme.fg("cut"),
                    )
                }
            }
        }
    }
}

fn legend_line<'a>(t: &Timeline, scale: &Scale, theme: &Theme) -> Line<'a> {
    let mut spans = vec![Span::styled(" ━ exact", theme.fg("bar"))];
    if t.points.iter().any(|p| p.reported.is_some()) {
        // Without colour the reported count is drawn as dots, not a second line.
        let glyph = if plain(theme) { "·" } else { "━" };
        spans.push(Span::styled(
            format!("  {glyph} reported"),
            theme.fg("reported"),
        ));
    }
    let window = if scale.window_on {
        format!("  ─ window {}", thousands(t.window))
    } else {
        format!("  window {} ↑ off the chart", thousands(t.window))
    };
    spans.push(Span::styled(window, theme.fg("gauge_high")));
    if let Some(g) = &t.trigger {
        let text = if g.in_tokens() {
            format!(
                "  ─ {} trigger {} (its estimate)",
                g.preset,
                thousands(g.threshold)
            )
        } else {
            format!(
                "  {} trigger: {} {} (not on this axis)",
                g.preset,
                thousands(g.threshold),
                g.measure
            )
        };
        spans.push(Span::styled(text, theme.fg("threshold")));
    }
    if !t.marks.is_empty() {
        spans.push(Span::styled("  │ file compaction", theme.fg("mark")));
    }
    if matches!(&t.what_if, WhatIfStatus::Done(w) if w.first().is_some()) {
        spans.push(Span::styled("  │ what-if", theme.fg("cut")));
    }
    spans.push(Span::styled("  │ selected", theme.fg("title")));
    Line::from(spans)
}

/// The y gutter, the Braille plot, the x axis row, and the labels drawn over the plot.
fn render_chart(frame: &mut Frame, area: Rect, state: &AppState, scale: &Scale, theme: &Theme) {
    let t = &state.timeline;
    let gutter = short(scale.y_max as u64).len().max(4) as u16 + 1;
    let plot = Rect {
        x: area.x + gutter,
        y: area.y,
        width: area.width - gutter,
        height: area.height - 1,
    };
    let fire = match &t.what_if {
        WhatIfStatus::Done(w) => w.first().map(|f| (w.preset, f.upto)),
        _ => None,
    };
    let selected = state.selected.min(t.len) as f64;
    let buckets = usize::from(plot.width) * 2;
    let exact = thin(
        t.points
            .iter()
            .map(|p| (p.upto as f64, p.exact as f64))
            .collect(),
        buckets,
    );
    let reported = thin(
        t.points
            .iter()
            .filter_map(|p| Some((p.upto as f64, p.reported? as f64)))
            .collect(),
        buckets,
    );
    let trigger = t.trigger.as_ref().filter(|g| g.in_tokens());
    let canvas = Canvas::default()
        .marker(Marker::Braille)
        .x_bounds([0.0, scale.x_max])
        .y_bounds([0.0, scale.y_max])
        .paint(|ctx| {
            if scale.window_on {
                level(ctx, scale, t.window as f64, theme.color("gauge_high"));
            }
            if let Some(g) = trigger {
                level(ctx, scale, g.threshold as f64, theme.color("threshold"));
            }
            ctx.layer();
            for k in &t.marks {
                upright(ctx, scale, k.at as f64, theme.color("mark"));
            }
            if let Some((_, upto)) = fire {
                upright(ctx, scale, upto as f64, theme.color("cut"));
            }
            upright(ctx, scale, selected, theme.color("title"));
            ctx.layer();
            if plain(theme) {
                ctx.draw(&Points {
                    coords: &reported,
                    color: theme.color("reported"),
                });
            } else {
                polyline(ctx, &reported, theme.color("reported"));
            }
            ctx.layer();
            polyline(ctx, &exact, theme.color("bar"));
        });
    frame.render_widget(canvas, plot);
    let buf = frame.buffer_mut();
    let put = |buf: &mut ratatui::buffer::Buffer, x: u16, y: u16, text: &str, style: Style| {
        if x < area.right() && y < area.bottom() {
            buf.set_stringn(x, y, text, usize::from(area.right() - x), style);
        }
    };
    // y gutter: the top, zero, and the value of each horizontal line on its row.
    let dim = theme.fg("dim");
    put(buf, area.x, plot.y, &short(scale.y_max as u64), dim);
    put(buf, area.x, plot.bottom() - 1, "0", dim);
    if scale.window_on {
        let row = plot.y + scale.row(t.window as f64, plot.height);
        put(buf, area.x, row, &short(t.window), theme.fg("gauge_high"));
    }
    if let Some(g) = trigger {
        let row = plot.y + scale.row(g.threshold as f64, plot.height);
        put(buf, area.x, row, &short(g.threshold), theme.fg("threshold"));
    }
    // Labels beside the vertical markers: file compactions on the top rows, alternating.
    for (i, k) in t.marks.iter().enumerate() {
        let col = plot.x + scale.column(k.at as f64, plot.width) + 1;
        let row = plot.y + (i as u16 % 2).min(plot.height - 1);
        put(buf, col, row, &k.kind, theme.fg("mark"));
    }
    if let Some((preset, upto)) = fire {
        let col = plot.x + scale.column(upto as f64, plot.width) + 1;
        let row = plot.y + 2u16.min(plot.height - 1);
        put(buf, col, row, &format!("{preset} fires"), theme.bold("cut"));
    }
    // x axis: the first and last message and the cursor.
    let axis = plot.bottom();
    let last = format!("#{}", t.len);
    put(buf, plot.x, axis, "#0", dim);
    let right = plot.right().saturating_sub(last.len() as u16);
    put(buf, right, axis, &last, dim);
    let cursor = format!("▲#{}", state.selected.min(t.len));
    let col = (plot.x + scale.column(selected, plot.width)).min(right.saturating_sub(1));
    put(buf, col.max(plot.x), axis, &cursor, theme.bold("title"));
}

fn level(ctx: &mut Context, scale: &Scale, y: f64, color: ratatui::style::Color) {
    ctx.draw(&Segment::new(0.0, y, scale.x_max, y, color));
}

fn upright(ctx: &mut Context, scale: &Scale, x: f64, color: ratatui::style::Color) {
    ctx.draw(&Segment::new(x, 0.0, x, scale.y_max, color));
}

/// Whether the terminal shows no colour (the chart's lines then differ by their shape).
fn plain(theme: &Theme) -> bool {
    theme.depth() == crate::tui::color_depth::ColorDepth::None
}

fn polyline(ctx: &mut Context, points: &[(f64, f64)], color: ratatui::style::Color) {
    match points {
        [only] => ctx.draw(&Segment::new(only.0, only.1, only.0, only.1, color)),
        _ => {
            for w in points.windows(2) {
                ctx.draw(&Segment::new(w[0].0, w[0].1, w[1].0, w[1].1, color));
            }
        }
    }
}

pub(super) type Xy = (f64, f64);

/// At most two points per bucket of the x range — the lowest and the highest, in x order — so
/// a 100k-request session draws as fast as a short one and its drops (a sawtooth) survive.
pub(super) fn thin(points: Vec<Xy>, buckets: usize) -> Vec<Xy> {
    if buckets == 0 || points.len() <= buckets * 2 {
        return points;
    }
    let x_max = points.last().map_or(1.0, |p| p.0).max(1.0);
    let bucket = |p: &Xy| (p.0 / x_max * (buckets - 1) as f64) as usize;
    let mut out = Vec::with_capacity(buckets * 2);
    for run in points.chunk_by(|a, b| bucket(a) == bucket(b)) {
        let lowest = run
            .iter()
            .copied()
            .reduce(|m, p| if p.1 < m.1 { p } else { m });
        let highest = run
            .iter()
            .copied()
            .reduce(|m, p| if p.1 > m.1 { p } else { m });
        let (Some(lo), Some(hi)) = (lowest, highest) else {
            continue;
        };
        let (first, second) = if lo.0 <= hi.0 { (lo, hi) } else { (hi, lo) };
        out.push(first);
        if second != first {
            out.push(second);
        }
    }
    out
}

/// `950`, `4.8k`, `152k`, `1.2M`.
pub(super) fn short(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=9_999 => format!("{:.1}k", n as f64 / 1e3),
        10_000..=999_999 => format!("{}k", n / 1_000),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_every_peak_and_every_drop_of_a_sawtooth() {
        // 40 compactions over 100,000 requests: the context climbs to 150k, then drops to 20k.
        let points: Vec<Xy> = (0..100_000u32)
            .map(|i| (f64::from(i), 20_000.0 + f64::from(i % 2_500) * 52.0))
            .collect();
        let thinned = thin(points, 160);
        assert!(thinned.len() <= 320, "{}", thinned.len());
        assert!(thinned.windows(2).all(|w| w[0].0 < w[1].0), "x order kept");
        for k in 0..40 {
            let peak = f64::from(2_499 + 2_500 * k);
            assert!(thinned.iter().any(|p| p.0 == peak), "peak at {peak} kept");
        }
        let drops = thinned
            .windows(2)
            .filter(|w| w[1].1 < w[0].1 - 100_000.0)
            .count();
        assert_eq!(drops, 39);
        assert_eq!(thin(vec![(0.0, 1.0)], 0), vec![(0.0, 1.0)]);
    }

    #[test]
    fn short_numbers_fit_the_gutter() {
        let shown: Vec<String> = [0, 950, 4_800, 152_340, 1_250_000].map(short).to_vec();
        assert_eq!(shown, ["0", "950", "4.8k", "152k", "1.2M"]);
    }
}
