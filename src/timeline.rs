//! The context timeline: how large the context was at each model request of a session, where the
//! file's own compactions fell, the window, and the active preset's trigger.
//!
//! A *turn* here is a model request. A session file records a request by the assistant message
//! it produced, so there is one point per assistant message `#i`: the context sent with that
//! request is the history `#0..#i` (its prompt), and the provider's `usage` on `#i` reports the
//! same prompt. One last point stands for the session as it stands (the next request).
//!
//! Owns: the series, the file's compaction marks and the trigger line, as data. Pure: reads an
//! `Analysis` and a `Plan`; must not draw and must not run presets (where a preset would first
//! fire is `whatif`, apart because it plans many prefixes and may be slow).

pub mod whatif;

use crate::analysis::Analysis;
use crate::compaction::Plan;
use crate::session::{CompactionMark, Part, Role, Session};

pub use whatif::{what_if, what_if_until, FirePoint, WhatIf};

/// Mark kinds after which the file's later requests carry only what follows the mark (the
/// summary or boundary and the messages after it). `microcompact_boundary` (old tool results
/// cleared) and `condensation` (a chosen range forgotten) leave the history in place in
/// ctxray's model, so they are drawn but do not reset the exact line.
const RESETTING: &[&str] = &[
    "compact_boundary",
    "compact_summary",
    "compacted",
    "context_compacted",
    "compaction",
    "state_snapshot",
];

/// One model request, or the end of the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Point {
    /// Messages in the history when the request was sent (`#0..#upto`); for the end point,
    /// every message.
    pub upto: usize,
    /// The assistant message the request produced; `None` for the end point.
    pub message: Option<usize>,
    /// ctxray's exact count of the context in force: the messages from the last resetting
    /// file compaction on, the system and developer messages before it (instructions are sent
    /// with every request), and the mark's summary when no message carries it. Without
    /// compactions, the whole history.
    pub exact: u64,
    /// Exact count of the whole history `#0..#upto`, compactions ignored: what `report`'s
    /// `total_tokens` counts (equal to it at the end point).
    pub whole: u64,
    /// The provider's count of the same prompt (`usage.context_input()`), where the source has it.
    pub reported: Option<u64>,
}

/// A compaction the file itself recorded, where it fell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkPoint {
    /// The mark lies before message `at` (`messages.len()` when at the end).
    pub at: usize,
    pub kind: String,
    pub trigger: Option<String>,
    pub pre_tokens: Option<u64>,
    pub post_tokens: Option<u64>,
    /// Whether later requests carry only what follows the mark (see `RESETTING`).
    pub resets: bool,
}

/// The active preset's trigger on the whole session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerLine {
    pub preset: &'static str,
    /// What the framework measures (`tokens`, `events`, `messages` …); only a `tokens`
    /// threshold is a line on a token axis.
    pub measure: &'static str,
    /// The framework's own measurement of the whole session, with its own estimator.
    pub value: u64,
    pub threshold: u64,
    pub fired: bool,
}

impl TriggerLine {
    /// Whether the threshold can be drawn on the token axis.
    pub fn in_tokens(&self) -> bool {
        self.measure == "tokens"
    }
}

/// Where the active preset would first fire, as far as it is known.
#[derive(Debug, Clone, PartialEq)]
pub enum WhatIfStatus {
    /// No preset is active (or it could not plan).
    NoPreset,
    /// Not computed yet (a large session: the search runs apart, see `whatif::what_if`).
    NotComputed,
    Done(WhatIf),
    Failed(String),
}

/// Everything the timeline view draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// Request points in order, then the end point (empty for an empty session).
    pub points: Vec<Point>,
    pub marks: Vec<MarkPoint>,
    /// Messages in the session (the x axis runs `0..=len`).
    pub len: usize,
    pub window: u64,
    pub trigger: Option<TriggerLine>,
    pub what_if: WhatIfStatus,
}

impl Default for Timeline {
    fn default() -> Timeline {
        Timeline {
            points: Vec::new(),
            marks: Vec::new(),
            len: 0,
            window: 0,
            trigger: None,
            what_if: WhatIfStatus::NoPreset,
        }
    }
}

impl Timeline {
    /// The series, marks and trigger of `a` under `plan` (the active preset's plan of the
    /// whole session, if any). Linear in the messages; `what_if` is left `NoPreset`.
    pub fn build(a: &Analysis, plan: Option<&Plan>) -> Timeline {
        let messages = &a.session.messages;
        let len = messages.len();
        let marks: Vec<MarkPoint> = a.session.marks.iter().map(mark_point).collect();
        // Resetting marks in file order (ascending position), with their own summary's tokens.
        let mut resets: Vec<(usize, u64)> = a
            .session
            .marks
            .iter()
            .filter(|k| RESETTING.contains(&k.kind.as_str()))
            .map(|k| (k.before_message, mark_summary_tokens(a, k)))
            .collect();
        resets.sort_by_key(|(at, _)| *at);
        // Prefix sums: all messages, and system/developer messages only.
        let mut whole = vec![0u64; len + 1];
        let mut instructions = vec![0u64; len + 1];
        for (i, m) in messages.iter().enumerate() {
            let c = a.counts.messages.get(i).map_or(0, |c| c.total()) as u64;
            whole[i + 1] = whole[i] + c;
            let own = if matches!(m.role, Role::System | Role::Developer) {
                c
            } else {
                0
            };
            instructions[i + 1] = instructions[i] + own;
        }
        let in_force = |upto: usize| -> u64 {
            match resets.partition_point(|(at, _)| *at <= upto).checked_sub(1) {
                None => whole[upto],
                Some(j) => {
                    let (start, summary) = resets[j];
                    instructions[start] + (whole[upto] - whole[start]) + summary
                }
            }
        };
        let points: Vec<Point> = request_points(&a.session)
            .into_iter()
            .map(|upto| {
                let message = messages.get(upto);
                Point {
                    upto,
                    message: message.map(|m| m.index),
                    exact: in_force(upto),
                    whole: whole[upto],
                    reported: message
                        .and_then(|m| m.usage.as_ref())
                        .and_then(|u| u.context_input()),
                }
            })
            .collect();
        Timeline {
            points,
            marks,
            len,
            window: a.window,
            trigger: plan.map(|p| TriggerLine {
                preset: p.preset,
                measure: p.trigger.measure,
                value: p.trigger.value,
                threshold: p.trigger.threshold,
                fired: p.trigger.fired,
            }),
            what_if: WhatIfStatus::NoPreset,
        }
    }

    /// The point with the largest exact context (the first of equals).
    pub fn peak(&self) -> Option<&Point> {
        self.points
            .iter()
            .reduce(|best, p| if p.exact > best.exact { p } else { best })
    }

    /// The largest value any series reaches (exact or reported).
    pub fn series_max(&self) -> u64 {
        self.points
            .iter()
            .map(|p| p.exact.max(p.reported.unwrap_or(0)))
            .max()
            .unwrap_or(0)
    }
}

/// The history length at each request point, ascending: each assistant message's index (its
/// request was sent with the messages before it), then the whole session (the next request).
pub fn request_points(session: &Session) -> Vec<usize> {
    let len = session.messages.len();
    let mut points: Vec<usize> = session
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .map(|m| m.index)
        .collect();
    if len > 0 {
        points.push(len);
    }
    points
}

fn mark_point(k: &CompactionMark) -> MarkPoint {
    MarkPoint {
        at: k.before_message,
        kind: k.kind.clone(),
        trigger: k.trigger.clone(),
        pre_tokens: k.pre_tokens,
        post_tokens: k.post_tokens,
        resets: RESETTING.contains(&k.kind.as_str()),
    }
}

/// Tokens of a mark's summary when no message carries it (a Codex `compacted` line holds its
/// summary itself; a Claude Code boundary is followed by a summary message, counted as such).
fn mark_summary_tokens(a: &Analysis, k: &CompactionMark) -> u64 {
    let Some(summary) = &k.summary else { return 0 };
    let carried = a
        .session
        .messages
        .get(k.before_message)
        .is_some_and(|m| m.parts.iter().any(|p| matches!(p, Part::Summary { .. })));
    if carried {
        0
    } else {
        a.counter.count(summary) as u64
    }
}
