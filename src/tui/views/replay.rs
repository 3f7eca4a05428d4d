//! The replay screen (`r`): the context gauge at the step the animation stands on, a readout of
//! where that is, and the sawtooth so far — tokens per step as a Braille chart with the
//! threshold (and the window when it is near), each compaction marked where it fired with its
//! tokens before→after — then the last compactions in words.
//!
//! Draws `AppState::replay` as it is: the replay comes from `crate::replay`, the position from
//! `tui::replay::Player`; nothing is computed about the session here, and every colour is a
//! theme role.

use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Context, Line as Segment};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;

use super::thousands;
use super::timeline::{short, thin, Xy};
use crate::replay::{Compaction, Replay};
use crate::tui::replay::Player;
use crate::tui::state::AppState;
use crate::tui::theme::Theme;

/// Compactions listed in words under the chart.
const LISTED: usize = 4;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, player: &Player, theme: &Theme) {
    let Some(r) = player.replay.as_deref().filter(|r| !r.steps.is_empty()) else {
        let mut lines = vec![
            title_line(state, player, None, theme),
            Line::styled(
                format!(
                    " replaying {} over {} messages apart… (Esc stops it)",
                    player.key.0,
                    thousands(player.key.2 as u64)
                ),
                theme.fg("info"),
            ),
        ];
        if let Some(p) = player.progress.filter(|p| p.of > 0) {
            lines.push(progress_line(p, area.width, theme));
        }
        frame.render_widget(Paragraph::new(lines), area);
        return;
    };
    let at = player.step();
    let done: Vec<&Compaction> = r.compactions.iter().filter(|c| c.step <= at).collect();
    let head = vec![
        title_line(state, player, Some(r), theme),
        gauge_line(r, at, area.width, theme),
        readout_line(r, player, done.len(), theme),
    ];
    let listed = done.len().min(LISTED) as u16;
    let head_rows = (head.len() as u16).min(area.height);
    frame.render_widget(
        Paragraph::new(head),
        Rect {
            height: head_rows,
            ..area
        },
    );
    let rest = area.height - head_rows;
    let list_rows = listed.min(rest.saturating_sub(MIN_CHART_ROWS));
    let chart = Rect {
        y: area.y + head_rows,
        height: rest - list_rows,
        ..area
    };
    render_chart(frame, chart, r, at, theme);
    let list: Vec<Line> = done
        .iter()
        .rev()
        .take(usize::from(list_rows))
        .rev()
        .map(|c| compaction_line(r, c, theme))
        .collect();
    frame.render_widget(
        Paragraph::new(list),
        Rect {
            y: chart.bottom(),
            height: list_rows,
            ..area
        },
    );
}

/// Rows the chart needs (its border, the plot, the x axis); fewer draw the text alone.
const MIN_CHART_ROWS: u16 = 5;

/// How far the replay computed apart has come: a bar of the check points done, and the
/// compactions made so far.
fn progress_line<'a>(p: crate::replay::Progress, width: u16, theme: &Theme) -> Line<'a> {
    let text = format!(
        " check {} of {} · {} compaction{} so far ",
        thousands(p.checks as u64),
        thousands(p.of as u64),
        thousands(p.compactions as u64),
        if p.compactions == 1 { "" } else { "s" }
    );
    let bar = usize::from(width)
        .saturating_sub(text.chars().count() + 2)
        .min(40);
    let done = (bar * p.checks.min(p.of)).checked_div(p.of).unwrap_or(0);
    Line::from(vec![
        Span::raw(" "),
        Span::styled("█".repeat(done), theme.fg("threshold")),
        Span::styled("░".repeat(bar - done), theme.fg("dim")),
        Span::styled(text, theme.fg("dim")),
    ])
}

fn title_line<'a>(
    state: &AppState,
    player: &Player,
    r: Option<&Replay>,
    theme: &Theme,
) -> Line<'a> {
    let dim = theme.fg("dim");
    let sets = if player.key.1.is_empty() {
        "defaults".to_string()
    } else {
        player.key.1.join(" ")
    };
    let mut spans = vec![
        Span::styled(" replay ", theme.bold("title")),
        Span::styled(
            format!(
                "{} · ",
                crate::text::inline(&state.analysis.session.source.path)
            ),
            dim,
        ),
        Span::styled(format!("{} ", player.key.0), theme.bold("threshold")),
        Span::styled(sets, theme.fg("threshold")),
    ];
    if let Some(r) = r {
        spans.push(Span::styled(
            format!(
                " · checks before each {} · {} steps · {} compactions · peak {}",
                match r.checks_at {
                    crate::compaction::preset::CheckPoint::Request => "request",
                    crate::compaction::preset::CheckPoint::UserTurn => "user turn",
                },
                thousands(r.steps.len() as u64),
                r.compactions.len(),
                thousands(r.peak_tokens())
            ),
            dim,
        ));
    }
    Line::from(spans)
}

/// The window the gauge is drawn against: the preset's own setting, else the session's (the
/// replay resolved it).
fn window(r: &Replay) -> u64 {
    r.window.max(1)
}

/// The threshold on the token axis at step `at`, when the preset measures tokens.
fn token_threshold(r: &Replay, at: usize) -> Option<u64> {
    let t = r.steps.get(at).map_or(r.threshold, |s| s.threshold);
    (r.measure == "tokens" && t > 0).then_some(t)
}

fn gauge_line<'a>(r: &Replay, at: usize, columns: u16, theme: &Theme) -> Line<'a> {
    let step = &r.steps[at];
    let window = window(r);
    let width = usize::from(columns.saturating_sub(2)).clamp(10, 60);
    let share = step.tokens as f64 / window as f64;
    let fill = (share * width as f64).round() as usize;
    let threshold_at = token_threshold(r, at)
        .map(|t| ((t as f64 / window as f64) * width as f64).round() as usize);
    let high = step.value >= step.threshold && step.threshold > 0;
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
            thousands(step.tokens),
            thousands(window),
            share * 100.0
        ),
        theme.fg("title"),
    ));
    let unit = if r.measure == "tokens" {
        String::new()
    } else {
        format!(" {}", r.measure)
    };
    spans.push(Span::styled(
        format!(
            " · trigger {} / {}{unit}",
            thousands(step.value),
            thousands(step.threshold)
        ),
        theme.fg("threshold"),
    ));
    Line::from(spans)
}

/// Where the animation stands: the step, its source record, its tokens, what happened so far.
fn readout_line<'a>(r: &Replay, player: &Player, compactions: usize, theme: &Theme) -> Line<'a> {
    let at = player.step();
    let step = &r.steps[at];
    let peak = r.steps[..=at].iter().map(|s| s.tokens).max().unwrap_or(0);
    let record = match step.message {
        Some(_) => format!("record #{}", step.source_index),
        None => format!("record #{} (the next request)", step.source_index),
    };
    let plural = if compactions == 1 { "" } else { "s" };
    let state = if player.playing {
        format!("▶ playing · {} steps/s", player.speed)
    } else {
        format!("‖ paused · {} steps/s", player.speed)
    };
    let mut spans = vec![
        Span::styled(
            format!(" step {}/{}", at + 1, r.steps.len()),
            theme.bold("title"),
        ),
        Span::styled(
            format!(
                " · {record} · {} tokens · {compactions} compaction{plural} so far · peak {} so far · ",
                thousands(step.tokens),
                thousands(peak)
            ),
            theme.fg("title"),
        ),
        Span::styled(state, theme.fg("info")),
    ];
    if step.tokens != step.tokens_before {
        spans.push(Span::styled(
            format!(
                " · compacted here: {} → {}",
                thousands(step.tokens_before),
                thousands(step.tokens)
            ),
            theme.bold("mark"),
        ));
    }
    Line::from(spans)
}

fn compaction_line<'a>(r: &Replay, c: &Compaction, theme: &Theme) -> Line<'a> {
    let n = r
        .compactions
        .iter()
        .position(|x| std::ptr::eq(x, c))
        .map_or(0, |i| i + 1);
    let mut spans = vec![
        Span::styled(format!(" ⇣ compaction {n}"), theme.bold("mark")),
        Span::styled(
            format!(
                " · step {} · record #{} · {} → {} tokens · {} summarized · {} dropped",
                c.step + 1,
                c.at_source_index,
                thousands(c.tokens_before),
                thousands(c.tokens_after),
                c.summarized,
                c.dropped
            ),
            theme.fg("dim"),
        ),
    ];
    for f in &c.findings {
        spans.push(Span::styled(
            format!(" · {}", f.code),
            theme.fg(f.severity.as_str()),
        ));
    }
    Line::from(spans)
}

/// The y range: every step's tokens and the threshold, and the window when it is near.
struct Scale {
    x_max: f64,
    y_max: f64,
    window: Option<u64>,
}

impl Scale {
    fn of(r: &Replay) -> Scale {
        let data = r
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| s.tokens_before.max(token_threshold(r, i).unwrap_or(0)))
            .max()
            .unwrap_or(0)
            .max(1);
        let w = window(r);
        let window = (w <= data.saturating_mul(2)).then_some(w);
        Scale {
            x_max: r.steps.len().saturating_sub(1).max(1) as f64,
            y_max: data.max(window.unwrap_or(0)) as f64 * 1.08,
            window,
        }
    }

    /// The cell column of step `x` in a plot `width` cells wide, as the Braille canvas rounds.
    fn column(&self, x: f64, width: u16) -> u16 {
        let dots = f64::from(width) * 2.0 - 1.0;
        ((x / self.x_max * dots).round() as u16 / 2).min(width.saturating_sub(1))
    }

    fn row(&self, y: f64, height: u16) -> u16 {
        let dots = f64::from(height) * 4.0 - 1.0;
        let y = y.clamp(0.0, self.y_max);
        (((self.y_max - y) / self.y_max * dots).round() as u16 / 4).min(height.saturating_sub(1))
    }
}

/// The bordered chart: y gutter, Braille plot of the steps so far, compaction labels, x axis.
fn render_chart(frame: &mut Frame, area: Rect, r: &Replay, at: usize, theme: &Theme) {
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.fg("dim"))
        .title(Span::styled(" context per check ", theme.bold("title")))
        .title(Span::styled(
            " ━ tokens sent  ─ trigger (the preset's estimate)  │ compaction (before→after) ",
            theme.fg("dim"),
        ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if area.height < MIN_CHART_ROWS || inner.width < 16 {
        return;
    }
    let scale = Scale::of(r);
    let gutter = short(scale.y_max as u64).len().max(4) as u16 + 1;
    let plot = Rect {
        x: inner.x + gutter,
        y: inner.y,
        width: inner.width - gutter,
        height: inner.height - 1,
    };
    let buckets = usize::from(plot.width) * 2;
    let mut sawtooth: Vec<Xy> = Vec::with_capacity(2 * (at + 1));
    for (i, s) in r.steps[..=at].iter().enumerate() {
        sawtooth.push((i as f64, s.tokens_before as f64));
        if s.tokens != s.tokens_before {
            sawtooth.push((i as f64, s.tokens as f64));
        }
    }
    let sawtooth = thin(sawtooth, buckets);
    let threshold = threshold_points(r);
    let marks: Vec<&Compaction> = r.compactions.iter().filter(|c| c.step <= at).collect();
    let canvas = Canvas::default()
        .marker(Marker::Braille)
        .x_bounds([0.0, scale.x_max])
        .y_bounds([0.0, scale.y_max])
        .paint(|ctx| {
            if let Some(w) = scale.window {
                let y = w as f64;
                ctx.draw(&Segment::new(
                    0.0,
                    y,
                    scale.x_max,
                    y,
                    theme.color("gauge_high"),
                ));
            }
            polyline(ctx, &threshold, theme.color("threshold"));
            ctx.layer();
            for c in &marks {
                let x = c.step as f64;
                ctx.draw(&Segment::new(x, 0.0, x, scale.y_max, theme.color("mark")));
            }
            ctx.layer();
            polyline(ctx, &sawtooth, theme.color("bar"));
        });
    frame.render_widget(canvas, plot);
    let buf = frame.buffer_mut();
    let put = |buf: &mut ratatui::buffer::Buffer, x: u16, y: u16, text: &str, role: &str| {
        if x < inner.right() && y < inner.bottom() {
            let style = theme.fg(role);
            buf.set_stringn(x, y, text, usize::from(inner.right() - x), style);
        }
    };
    put(buf, inner.x, plot.y, &short(scale.y_max as u64), "dim");
    put(buf, inner.x, plot.bottom() - 1, "0", "dim");
    if let Some(w) = scale.window {
        put(
            buf,
            inner.x,
            plot.y + scale.row(w as f64, plot.height),
            &short(w),
            "gauge_high",
        );
    }
    if let Some(t) = token_threshold(r, at) {
        put(
            buf,
            inner.x,
            plot.y + scale.row(t as f64, plot.height),
            &short(t),
            "threshold",
        );
    }
    // Each compaction's before→after beside its marker, on the top rows, alternating; a label
    // that would run into the one before it on its row is left out.
    let mut free_from = [plot.x; 2];
    for (i, c) in marks.iter().enumerate() {
        let label = format!("{}→{}", short(c.tokens_before), short(c.tokens_after));
        let col = plot.x + scale.column(c.step as f64, plot.width) + 1;
        let row = i % 2;
        if col < free_from[row] || plot.height < 2 {
            continue;
        }
        let role = if i + 1 == marks.len() { "cut" } else { "mark" };
        put(buf, col, plot.y + row as u16, &label, role);
        free_from[row] = col + label.chars().count() as u16 + 1;
    }
    // x axis: the first and last step and where the animation stands.
    let axis = plot.bottom();
    let last = format!("{}", r.steps.len());
    put(buf, plot.x, axis, "1", "dim");
    let right = plot.right().saturating_sub(last.len() as u16);
    put(buf, right, axis, &last, "dim");
    let cursor = format!("▲{}", at + 1);
    let col = (plot.x + scale.column(at as f64, plot.width)).min(right.saturating_sub(1));
    put(buf, col.max(plot.x), axis, &cursor, "title");
}

/// The threshold as a step line over the whole replay (it can move, as Hermes' does).
fn threshold_points(r: &Replay) -> Vec<Xy> {
    let mut out: Vec<Xy> = Vec::new();
    let mut last = None;
    for i in 0..r.steps.len() {
        let t = token_threshold(r, i);
        if t != last {
            if let (Some(prev), Some(_)) = (last, t) {
                out.push((i as f64, prev as f64));
            }
            if let Some(t) = t {
                out.push((i as f64, t as f64));
            }
            last = t;
        }
    }
    if let Some(t) = last {
        out.push((r.steps.len().saturating_sub(1).max(1) as f64, t as f64));
    }
    out
}

fn polyline(ctx: &mut Context, points: &[Xy], color: Color) {
    match points {
        [] => {}
        [only] => ctx.draw(&Segment::new(only.0, only.1, only.0, only.1, color)),
        _ => {
            for w in points.windows(2) {
                ctx.draw(&Segment::new(w[0].0, w[0].1, w[1].0, w[1].1, color));
            }
        }
    }
}
