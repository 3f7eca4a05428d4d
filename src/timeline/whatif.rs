//! Where a preset would first fire as the session grows: its plan evaluated on the history at
//! each model request (the prefix `#0..#i` sent with the request that produced `#i`, and the
//! whole session for the next request), and the first of those histories whose trigger fires.
//!
//! Owns: building a prefix of an analysed session (messages, marks, records and counts cut at
//! the request, tool-call groups recomputed) and the search over request points. Pure and
//! deterministic, but each evaluation plans a whole prefix: on a large session a caller with a
//! UI runs it apart from the frame loop. It must not replay compactions (compact, then keep
//! appending): `WhatIf::fires` is a list so that later work fits.
//!
//! The search: with at most `COARSE_POINTS` request points, every one is planned. Otherwise a
//! sample is planned — `COARSE_POINTS` evenly spaced points, the last point before each
//! compaction in the file, and the end — and every point between the first sample that fires
//! and the sample before it. The history only grows between requests, so a token or message
//! measure over it only falls at a compaction in the file (whose eve is sampled) or where a
//! preset measures the provider's last reported usage; a fire that starts and stops between
//! two samples that do not fire is the one case the sample can miss.

use crate::analysis::{Analysis, WindowSource};
use crate::compaction::preset::{PlanError, PlanInput, Preset};
use crate::compaction::{group_messages, Plan, Settings};
use crate::session::Session;
use crate::tokens::Counts;

/// Request points planned one by one before the search samples.
pub const COARSE_POINTS: usize = 64;

/// One place the preset fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirePoint {
    /// History length when it fires: the framework compacts before the request that produced
    /// message `upto` (or, when `upto` is the session's length, before the next request).
    pub upto: usize,
    /// The assistant message that request produced; `None` for the next request.
    pub message: Option<usize>,
    pub measure: &'static str,
    /// The framework's measurement of that history and its threshold.
    pub value: u64,
    pub threshold: u64,
    pub reason: String,
}

/// Where the preset fires as the session grows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhatIf {
    pub preset: &'static str,
    /// Fire points in order; for now at most one, the first.
    pub fires: Vec<FirePoint>,
    /// Request points in the session (the next request included).
    pub points: usize,
    /// Prefixes planned.
    pub evaluated: usize,
    /// Whether every request point was planned (otherwise a sample, see the module doc).
    pub exhaustive: bool,
}

impl WhatIf {
    pub fn first(&self) -> Option<&FirePoint> {
        self.fires.first()
    }
}

/// Plans `preset` (with `sets`) on the history at each request point of `a` and returns the
/// first that fires. Errors are the preset's own (bad settings, an invalid combination).
pub fn what_if(a: &Analysis, preset: &dyn Preset, sets: &[String]) -> Result<WhatIf, PlanError> {
    what_if_until(a, preset, sets, &|| false)
}

/// [`what_if`], given up (`PlanError::Stopped`) before any plan once `stopped()` says so.
pub fn what_if_until(
    a: &Analysis,
    preset: &dyn Preset,
    sets: &[String],
    stopped: &dyn Fn() -> bool,
) -> Result<WhatIf, PlanError> {
    let points = super::request_points(&a.session);
    let mut out = WhatIf {
        preset: preset.name(),
        fires: Vec::new(),
        points: points.len(),
        evaluated: 0,
        exhaustive: points.len() <= COARSE_POINTS,
    };
    let Some(&last) = points.last() else {
        return Ok(out);
    };
    // Only the trigger is read: the preset's own plan, without `preset::run`'s scan of the
    // summarizer request for secrets (the same settings, resolved once).
    let settings = Settings::resolve(preset.name(), preset.params(), sets)?;
    let coarse = sample(a, &points);
    let mut first: Option<(usize, Plan)> = None;
    let mut prefix = Prefix::new(a, last);
    for &k in coarse.iter().rev() {
        prefix.truncate(a, points[k]);
        out.evaluated += 1;
        if stopped() {
            return Err(PlanError::Stopped);
        }
        let plan = prefix.plan(a, preset, &settings)?;
        if plan.trigger.fired {
            first = Some((k, plan));
        }
    }
    let Some((mut k, mut plan)) = first else {
        return Ok(out);
    };
    let below = coarse.iter().rev().find(|&&c| c < k).map_or(0, |&c| c + 1);
    if below < k {
        let mut prefix = Prefix::new(a, points[k - 1]);
        for j in (below..k).rev() {
            prefix.truncate(a, points[j]);
            out.evaluated += 1;
            if stopped() {
                return Err(PlanError::Stopped);
            }
            let candidate = prefix.plan(a, preset, &settings)?;
            if candidate.trigger.fired {
                (k, plan) = (j, candidate);
            }
        }
    }
    let upto = points[k];
    out.fires.push(FirePoint {
        upto,
        message: (upto < a.session.messages.len()).then_some(upto),
        measure: plan.trigger.measure,
        value: plan.trigger.value,
        threshold: plan.trigger.threshold,
        reason: plan.trigger.reason,
    });
    Ok(out)
}

/// Indices into `points` to plan first, ascending: all of them when few, else an even
/// sample, the last point before each compaction in the file, and the end.
fn sample(a: &Analysis, points: &[usize]) -> Vec<usize> {
    let n = points.len();
    if n <= COARSE_POINTS {
        return (0..n).collect();
    }
    let mut picked: Vec<usize> = (1..=COARSE_POINTS)
        .map(|k| k * n / COARSE_POINTS - 1)
        .collect();
    for mark in &a.session.marks {
        let before = points.partition_point(|&upto| upto < mark.before_message);
        if let Some(k) = before.checked_sub(1) {
            picked.push(k);
        }
    }
    picked.push(n - 1);
    picked.sort_unstable();
    picked.dedup();
    picked
}

/// An owned prefix of an analysed session: what a preset reads, cut at a request.
struct Prefix {
    session: Session,
    counts: Counts,
}

impl Prefix {
    fn new(a: &Analysis, upto: usize) -> Prefix {
        let s = &a.session;
        let mut session = s.sharing_source();
        session.source = s.source.clone();
        session.id = s.id.clone();
        session.title = s.title.clone();
        session.model = s.model.clone();
        session.reported_window = s.reported_window;
        session.messages = s.messages[..upto.min(s.messages.len())].to_vec();
        session.marks = s.marks.clone();
        let mut prefix = Prefix {
            session,
            counts: Counts {
                messages: a.counts.messages[..upto.min(a.counts.messages.len())].to_vec(),
            },
        };
        prefix.truncate(a, upto);
        prefix
    }

    /// Cuts the prefix shorter: messages from `upto` on, marks after them and source records
    /// from the first record of message `upto` on are gone.
    fn truncate(&mut self, a: &Analysis, upto: usize) {
        self.session.messages.truncate(upto);
        self.counts.messages.truncate(upto);
        self.session.marks.retain(|k| k.before_message <= upto);
        if let Some(next) = a.session.messages.get(upto) {
            let cut = next.source_index;
            self.session.source.record_indices.retain(|&r| r < cut);
            self.session.source.records = self.session.source.record_indices.len();
        }
    }

    /// Plans this prefix: the analysis' window, model and counter; this prefix's messages,
    /// counts, tool-call groups and last timestamp.
    fn plan(
        &self,
        a: &Analysis,
        preset: &dyn Preset,
        settings: &Settings,
    ) -> Result<Plan, PlanError> {
        let session = &self.session;
        let grouping = group_messages(session);
        let input = PlanInput {
            session,
            counts: &self.counts,
            grouping: &grouping,
            counter: &a.counter,
            window: a.window,
            window_flag: (a.window_source == WindowSource::Flag).then_some(a.window),
            model: a.model.as_deref(),
            now: session
                .messages
                .iter()
                .rev()
                .find_map(|m| m.timestamp.as_deref()),
            parsed: None,
            carried: None,
            after_records: true,
            carries_out: false,
            defer_request: false,
        };
        preset.plan(&input, settings)
    }
}
