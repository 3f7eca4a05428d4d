//! A replay as a shareable report: one run, or two compared side by side, as Markdown or one
//! self-contained HTML page whose centrepiece is the sawtooth of the context.
//!
//! Owns: what a replay report shows, as cells both renderers share (the settings, the summary
//! rows, one row per compaction and per rejected attempt), and the text sparkline. Pure: must
//! not run the replay, print or touch a terminal; the CLI hands the finished runs in.

pub mod html;
pub mod md;
mod sawtooth;

use super::thousands;
use crate::analysis::Analysis;
use crate::compaction::preset::CheckPoint;
use crate::compaction::Finding;
use crate::replay::{Compaction, Fidelity, Rejected, Replay};

/// Characters of one setting's value a report shows.
const SETTING_CHARS: usize = 32;

/// One replayed configuration and how the user named it.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    pub label: &'a str,
    pub replay: &'a Replay,
}

/// Everything a replay report shows: the session and one run, or two with `--compare`.
#[derive(Debug, Clone, Copy)]
pub struct Doc<'a> {
    pub analysis: &'a Analysis,
    pub runs: &'a [Run<'a>],
}

impl Doc<'_> {
    pub fn compare(&self) -> bool {
        self.runs.len() > 1
    }
}

/// `A`, `B`, … for run `i`.
pub fn letter(i: usize) -> char {
    char::from(b'A' + (i % 26) as u8)
}

/// Where the framework checks its trigger.
pub fn checks_text(r: &Replay) -> &'static str {
    if r.checks_at == CheckPoint::UserTurn {
        "before each user turn"
    } else {
        "before each request"
    }
}

/// How summaries were modelled.
pub fn summaries_text(r: &Replay) -> String {
    match r.summary_tokens {
        Some(n) => format!("a stand-in of {} tokens", thousands(n as u64)),
        None => "the offline digest".into(),
    }
}

/// The preset's settings as `k=v k=v`, each value masked, then clipped to `SETTING_CHARS` (a
/// prompt is long; a secret cut in two would no longer be recognised).
pub fn settings_text(r: &Replay) -> String {
    r.settings
        .pairs()
        .iter()
        .map(|(k, v)| format!("{k}={}", super::clip(&super::masked(v), SETTING_CHARS)))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn evidence_text(e: Option<(usize, usize)>) -> String {
    match e {
        Some((facts, lost)) => format!("{lost} of {facts} facts"),
        None => "n/a (stand-in summary)".into(),
    }
}

/// `seen` as a whole percentage of `total`, rounded down (100% only when all of it).
pub fn percent(seen: usize, total: usize) -> String {
    match (seen as u128 * 100).checked_div(total as u128) {
        Some(p) => format!("{p}%"),
        None => "—".into(),
    }
}

/// The input fidelity: the characters of the summarized range that reach the summarizer input.
pub fn fidelity_text(f: Fidelity) -> String {
    if f.chars == 0 {
        return "n/a (nothing summarized)".into();
    }
    share(f.chars_seen, f.chars, " of ", " chars")
}

/// `seen` of `total` with its percentage: `1,234 of 5,678 chars (21%)`, the two joined by
/// `sep`, `unit` after the total.
fn share(seen: usize, total: usize, sep: &str, unit: &str) -> String {
    format!(
        "{}{sep}{}{unit} ({})",
        thousands(seen as u64),
        thousands(total as u64),
        percent(seen, total)
    )
}

/// The facts of the summarized range present in the summarizer input.
pub fn input_facts_text(f: Fidelity) -> String {
    if f.chars == 0 && f.facts == 0 {
        return "n/a (nothing summarized)".into();
    }
    share(f.facts_present, f.facts, " of ", " facts")
}

/// The threshold in force, each value it took in order (`96,000 → 64,000 tokens`).
pub fn threshold_text(r: &Replay) -> String {
    let values: Vec<String> = r.thresholds().into_iter().map(thousands).collect();
    format!("{} {}", values.join(" → "), r.measure)
}

/// One value of a run for the summary table.
pub type Cell = fn(&Replay) -> String;

/// The summary rows, the same for one run and for a comparison.
pub const SUMMARY: [(&str, Cell); 9] = [
    ("compactions", |r| r.compactions.len().to_string()),
    ("rejected by the guard", |r| r.rejected.len().to_string()),
    ("window", |r| format!("{} tokens", thousands(r.window))),
    ("threshold", threshold_text),
    ("tokens summarized or dropped", |r| {
        thousands(r.removed_tokens())
    }),
    ("peak tokens", |r| thousands(r.peak_tokens())),
    ("input fidelity", |r| fidelity_text(r.input_fidelity())),
    ("facts in the input", |r| {
        input_facts_text(r.input_fidelity())
    }),
    ("evidence lost", |r| evidence_text(r.evidence_lost())),
];

/// Columns of the compactions table.
pub const COMPACTION_HEAD: [&str; 12] = [
    "#",
    "step",
    "record",
    "threshold",
    "tokens",
    "messages",
    "summarized",
    "summarizer input",
    "input fidelity",
    "facts in input",
    "summary",
    "findings",
];

/// Whether each compaction column is a number (right-aligned).
pub const COMPACTION_NUMERIC: [bool; 12] = [
    true, true, true, true, true, true, true, true, true, true, true, false,
];

/// A compaction's input fidelity as a short cell: `1,234/5,678 (21%)`.
fn fidelity_cell(f: Fidelity) -> String {
    if f.chars == 0 {
        return "—".into();
    }
    share(f.chars_seen, f.chars, "/", "")
}

/// The cells of compaction `i` (0-based), in `COMPACTION_HEAD` order; findings are codes.
pub fn compaction_cells(i: usize, c: &Compaction) -> [String; 12] {
    [
        (i + 1).to_string(),
        c.step.to_string(),
        c.at_source_index.to_string(),
        thousands(c.threshold),
        format!(
            "{} → {}",
            thousands(c.tokens_before),
            thousands(c.tokens_after)
        ),
        format!("{} → {}", c.messages_before, c.messages_after),
        if c.dropped > 0 {
            format!("{} (+{} dropped)", c.summarized, c.dropped)
        } else {
            c.summarized.to_string()
        },
        thousands(c.summarizer_input_tokens),
        fidelity_cell(c.input),
        if c.input.facts == 0 {
            "—".into()
        } else {
            format!("{}/{}", c.input.facts_present, c.input.facts)
        },
        thousands(c.summary_tokens),
        finding_codes(c),
    ]
}

pub fn finding_codes(c: &Compaction) -> String {
    c.findings
        .iter()
        .map(|f| f.code)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each finding code once, with the compactions (1-based) it was raised at, in first-seen order.
pub fn finding_groups(r: &Replay) -> Vec<(&Finding, Vec<usize>)> {
    let mut seen: Vec<(&Finding, Vec<usize>)> = Vec::new();
    for (k, c) in r.compactions.iter().enumerate() {
        for f in &c.findings {
            match seen.iter_mut().find(|(g, _)| g.code == f.code) {
                Some((_, at)) => at.push(k + 1),
                None => seen.push((f, vec![k + 1])),
            }
        }
    }
    seen
}

/// Columns of the rejected-attempts table.
pub const REJECTED_HEAD: [&str; 3] = ["step", "record", "tokens (rejected result)"];

pub fn rejected_cells(x: &Rejected) -> [String; 3] {
    [
        x.step.to_string(),
        x.at_source_index.to_string(),
        format!(
            "{} → {}",
            thousands(x.tokens_before),
            thousands(x.tokens_after)
        ),
    ]
}

/// One line describing compaction `i` (a hover title, a list item).
pub fn compaction_title(i: usize, c: &Compaction) -> String {
    let codes = finding_codes(c);
    format!(
        "compaction {} at step {} (record {}): {} → {} tokens, {} message(s) summarized{}{}",
        i + 1,
        c.step,
        c.at_source_index,
        thousands(c.tokens_before),
        thousands(c.tokens_after),
        c.summarized,
        if c.input.chars == 0 {
            String::new()
        } else {
            format!(", the summarizer shown {}", fidelity_text(c.input))
        },
        if codes.is_empty() {
            String::new()
        } else {
            format!(" · {codes}")
        }
    )
}

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The sawtooth as text: the tokens sent at each check point, at most `width` columns (the
/// largest of the points a column covers), scaled to `top`; and a line with `▲` under each
/// column where a compaction fired.
pub fn sparkline(r: &Replay, top: u64, width: usize) -> (String, String) {
    let n = r.steps.len();
    if n == 0 || width == 0 {
        return (String::new(), String::new());
    }
    let cols = n.min(width);
    let top = top.max(1);
    let mut line = String::new();
    let mut marks = String::new();
    for c in 0..cols {
        let (from, to) = (c * n / cols, ((c + 1) * n / cols).max(c * n / cols + 1));
        let peak = r.steps[from..to]
            .iter()
            .map(|s| s.tokens_before)
            .max()
            .unwrap_or(0);
        let level = ((peak * 7).div_ceil(top)).min(7) as usize;
        line.push(BARS[level]);
        let fired = r.compactions.iter().any(|k| (from..to).contains(&k.step));
        marks.push(if fired { '▲' } else { ' ' });
    }
    (line, marks.trim_end().to_string())
}

/// The largest history any run sends before compacting: the top of a shared scale.
pub fn top(runs: &[Run]) -> u64 {
    runs.iter()
        .flat_map(|r| r.replay.steps.iter().map(|s| s.tokens_before))
        .max()
        .unwrap_or(0)
}
