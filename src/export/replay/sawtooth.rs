//! The sawtooth as inline SVG: context tokens at each check point of every run on one scale
//! (x: the source record the check precedes, so runs that check at different points line up),
//! a vertical drop wherever a compaction fired with a marker and a hover title, attempts a guard
//! rejected, each run's threshold (when it counts tokens), each run's window (the preset's own
//! when it sets one) when it is on the scale, and labelled axes.
//!
//! Owns: the chart's geometry (every text it draws goes through `esc`). Must not: compute replays.

use std::fmt::Write;

use super::super::html::esc;
use super::super::thousands;
use super::{compaction_title, Doc};
use crate::replay::Replay;

const W: f64 = 1000.0;
const H: f64 = 300.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 16.0;
const BOTTOM: f64 = 40.0;

/// The scale shared by every run.
struct Scale {
    lo: usize,
    hi: usize,
    top: f64,
}

impl Scale {
    fn new(d: &Doc) -> Scale {
        let steps = || d.runs.iter().flat_map(|r| r.replay.steps.iter());
        let lo = steps().map(|s| s.source_index).min().unwrap_or(0);
        let hi = steps().map(|s| s.source_index).max().unwrap_or(0);
        let tokens = steps().map(|s| s.tokens_before).max().unwrap_or(0);
        let threshold = d
            .runs
            .iter()
            .filter(|r| r.replay.measure == "tokens")
            .flat_map(|r| r.replay.steps.iter().map(|s| s.threshold))
            .max()
            .unwrap_or(0);
        let top = nice(tokens.max(threshold).max(1) as f64 * 1.1);
        Scale { lo, hi, top }
    }

    fn x(&self, source_index: usize) -> f64 {
        let span = (self.hi - self.lo).max(1) as f64;
        LEFT + (W - LEFT - RIGHT) * (source_index.saturating_sub(self.lo)) as f64 / span
    }

    fn y(&self, tokens: u64) -> f64 {
        H - BOTTOM - (H - TOP - BOTTOM) * (tokens as f64 / self.top).min(1.0)
    }
}

/// The round number at or above `v` (a power of ten times a number whose quarters are round),
/// so that the four gridlines read as round numbers.
fn nice(v: f64) -> f64 {
    let p = 10f64.powf(v.log10().floor());
    [1.0, 1.2, 1.6, 2.0, 2.4, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&t| t >= v)
        .unwrap_or(10.0 * p)
}

/// The runs' windows, each once, with the runs (0-based) it is the window of.
pub fn windows(d: &Doc) -> Vec<(u64, Vec<usize>)> {
    let mut out: Vec<(u64, Vec<usize>)> = Vec::new();
    for (i, run) in d.runs.iter().enumerate() {
        let w = run.replay.window;
        match out.iter_mut().find(|(x, _)| *x == w) {
            Some((_, runs)) => runs.push(i),
            None => out.push((w, vec![i])),
        }
    }
    out
}

/// Whether a window is on the chart's scale (else the chart stops below it).
pub fn window_on_chart(d: &Doc, w: u64) -> bool {
    w > 0 && (w as f64) <= Scale::new(d).top
}

/// `window`, or `A window` when the runs have different windows.
pub fn window_name(d: &Doc, runs: &[usize]) -> String {
    if windows(d).len() > 1 {
        let letters: String = runs.iter().map(|&i| super::letter(i)).collect();
        format!("{letters} window")
    } else {
        "window".into()
    }
}

/// The run's CSS class: `run-a`, `run-b`, ….
pub fn run_class(i: usize) -> String {
    format!("run-{}", super::letter(i).to_ascii_lowercase())
}

/// The whole chart; nothing when no run has a check point.
pub fn svg(out: &mut String, d: &Doc) {
    if d.runs.iter().all(|r| r.replay.steps.is_empty()) {
        return;
    }
    let s = Scale::new(d);
    let _ = write!(
        out,
        "<svg class=\"sawtooth\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"context tokens at each check point\">"
    );
    axes(out, &s);
    for (window, runs) in windows(d) {
        if !window_on_chart(d, window) {
            continue;
        }
        let yw = s.y(window);
        let name = esc(&window_name(d, &runs));
        let _ = write!(
            out,
            "<line class=\"window\" x1=\"{LEFT}\" x2=\"{}\" y1=\"{yw:.1}\" y2=\"{yw:.1}\"><title>{name}: {} tokens</title></line>\
<text class=\"label\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{name} {}</text>",
            W - RIGHT,
            thousands(window),
            W - RIGHT - 4.0,
            yw - 4.0,
            thousands(window)
        );
    }
    for (i, run) in d.runs.iter().enumerate() {
        threshold(out, &s, run.replay, i, d.compare());
    }
    for (i, run) in d.runs.iter().enumerate() {
        series(out, &s, run.replay, i);
    }
    out.push_str("</svg>");
}

/// Axis lines, four gridlines with token labels, the first, middle and last record, and the
/// axis titles.
fn axes(out: &mut String, s: &Scale) {
    let base = H - BOTTOM;
    for k in 0..=4u64 {
        let v = (s.top as u64) * k / 4;
        let y = s.y(v);
        let _ = write!(
            out,
            "<line class=\"grid\" x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/><text class=\"tick\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            W - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            thousands(v)
        );
    }
    let mut records = vec![s.lo, s.lo + (s.hi - s.lo) / 2, s.hi];
    records.dedup();
    for r in records {
        let x = s.x(r);
        let _ = write!(
            out,
            "<line class=\"axis\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{base}\" y2=\"{}\"/><text class=\"tick\" x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{r}</text>",
            base + 5.0,
            base + 17.0
        );
    }
    let _ = write!(
        out,
        "<line class=\"axis\" x1=\"{LEFT}\" x2=\"{}\" y1=\"{base}\" y2=\"{base}\"/><line class=\"axis\" x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{TOP}\" y2=\"{base}\"/>\
<text class=\"label\" x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">source record (each check point is before one)</text>\
<text class=\"label\" transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\">context tokens</text>",
        W - RIGHT,
        (LEFT + W - RIGHT) / 2.0,
        H - 6.0,
        (TOP + base) / 2.0
    );
}

/// The run's threshold over the steps, stepped where it moves; only a threshold in tokens.
fn threshold(out: &mut String, s: &Scale, r: &Replay, i: usize, compare: bool) {
    if r.measure != "tokens" || r.steps.is_empty() {
        return;
    }
    let mut points: Vec<String> = Vec::new();
    let mut last: Option<u64> = None;
    for step in &r.steps {
        let x = s.x(step.source_index);
        if let Some(prev) = last.filter(|&p| p != step.threshold) {
            points.push(format!("{x:.1},{:.1}", s.y(prev)));
        }
        points.push(format!("{x:.1},{:.1}", s.y(step.threshold)));
        last = Some(step.threshold);
    }
    if r.steps.len() == 1 {
        points.push(format!("{:.1},{:.1}", W - RIGHT, s.y(r.threshold)));
    }
    let (class, name) = if compare {
        (
            format!("threshold {}", run_class(i)),
            format!("{} ", super::letter(i)),
        )
    } else {
        ("threshold".to_string(), String::new())
    };
    let _ = write!(
        out,
        "<polyline class=\"{class}\" points=\"{}\"><title>{name}threshold: {} tokens (the framework's own count)</title></polyline>",
        points.join(" "),
        thousands(r.threshold)
    );
}

/// The run's context tokens: one point a step (the history checked), and a second at the same
/// x where a compaction dropped it; a marker with a hover title per compaction, a hollow one
/// per rejected attempt.
fn series(out: &mut String, s: &Scale, r: &Replay, i: usize) {
    let class = run_class(i);
    let points: Vec<String> = r
        .steps
        .iter()
        .flat_map(|step| {
            let x = s.x(step.source_index);
            let mut p = vec![format!("{x:.1},{:.1}", s.y(step.tokens_before))];
            if step.tokens != step.tokens_before {
                p.push(format!("{x:.1},{:.1}", s.y(step.tokens)));
            }
            p
        })
        .collect();
    let _ = write!(
        out,
        "<polyline class=\"tokens {class}\" data-steps=\"{}\" points=\"{}\"><title>context tokens at each check point</title></polyline>",
        r.steps.len(),
        points.join(" ")
    );
    for (k, c) in r.compactions.iter().enumerate() {
        let x = s.x(c.at_source_index);
        let _ = write!(
            out,
            "<g class=\"compaction {class}\" id=\"{class}-c{n}\" data-step=\"{}\" data-record=\"{}\"><title>{}</title>\
<line class=\"hit\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/><circle cx=\"{x:.1}\" cy=\"{:.1}\" r=\"4.5\"/></g>",
            c.step,
            c.at_source_index,
            esc(&compaction_title(k, c)),
            s.y(c.tokens_before),
            s.y(c.tokens_after),
            s.y(c.tokens_before),
            n = k + 1
        );
    }
    for x in &r.rejected {
        let px = s.x(x.at_source_index);
        let _ = write!(
            out,
            "<circle class=\"rejected {class}\" cx=\"{px:.1}\" cy=\"{:.1}\" r=\"4\"><title>rejected at step {} (record {}): the result would have been {} of {} tokens</title></circle>",
            s.y(x.tokens_before),
            x.step,
            x.at_source_index,
            thousands(x.tokens_after),
            thousands(x.tokens_before)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::nice;

    #[test]
    fn the_scale_tops_out_at_a_round_number() {
        assert_eq!(nice(5_791.0), 6_000.0);
        assert_eq!(nice(2_200.0), 2_400.0);
        assert_eq!(nice(1_000.0), 1_000.0);
        assert_eq!(nice(8_100.0), 10_000.0);
    }
}
