//! The condenser's decision: `get_condensation_reasons`, `condensation_requirement`,
//! `_get_forgotten_events` (one tail candidate per reason, the token binary search, the
//! system-prompt floor, manipulation indices, the empty and minimum-progress guards) and the
//! `RollingCondenser.condense` fallbacks (SOFT returns the view, HARD resets the context).
//!
//! Owns: where the cut falls. It must not render the summarizer input.

use super::count::Costs;
use super::events::Record;
use super::view::{find_next, View};

/// `LLMSummarizingCondenser`'s fields.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    pub max_size: i64,
    pub keep_first: i64,
    pub max_tokens: Option<i64>,
    pub minimum_progress: f64,
    /// The agent LLM's `effective_max_input_tokens`.
    pub window: i64,
}

impl Params {
    /// `_effective_max_tokens`: the stricter of `max_tokens` and the agent window.
    pub fn token_limit(&self) -> i64 {
        self.max_tokens.map_or(self.window, |m| m.min(self.window))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// No reason to condense.
    Nothing,
    /// `get_condensation`: forget `view[start..end]`, summary at `start`.
    Condense { start: usize, end: usize },
    /// SOFT requirement and no condensation available: the view is returned unchanged.
    SoftReturn { why: String },
    /// HARD requirement and no condensation available: `hard_context_reset`.
    HardReset { start: usize, why: String },
    /// HARD, and the hard reset has nothing to summarize either: the agent gets the error.
    Fails { why: String },
}

#[derive(Debug, Clone)]
pub struct Decision {
    pub request: bool,
    pub tokens: bool,
    pub events: bool,
    pub token_count: usize,
    pub outcome: Outcome,
}

impl Decision {
    pub fn hard(&self) -> bool {
        self.tokens || self.request
    }
}

pub fn decide(view: &View, records: &[Record], costs: &Costs, p: &Params) -> Decision {
    let len = view.events.len();
    let token_count = costs.total(0..len);
    let mut d = Decision {
        request: view.unhandled_request,
        tokens: token_count as i64 > p.token_limit(),
        events: len as i64 > p.max_size,
        token_count,
        outcome: Outcome::Nothing,
    };
    if !(d.request || d.tokens || d.events) {
        return d;
    }
    d.outcome = match forgotten_range(view, records, costs, p, &d) {
        Ok((start, end)) => Outcome::Condense { start, end },
        Err(why) if !d.hard() => Outcome::SoftReturn { why },
        Err(why) => {
            let start = view.system_index().map_or(0, |i| i + 1);
            if start < len {
                Outcome::HardReset { start, why }
            } else {
                Outcome::Fails { why }
            }
        }
    };
    d
}

/// `_get_forgotten_events` plus the guards of `get_condensation`; `Err` is the text of the
/// `NoCondensationAvailableException`.
fn forgotten_range(
    view: &View,
    records: &[Record],
    costs: &Costs,
    p: &Params,
    d: &Decision,
) -> Result<(usize, usize), String> {
    let len = view.events.len() as i64;
    let mut candidates: Vec<i64> = Vec::new();
    if d.request {
        candidates.push(len / 2 - p.keep_first - 1);
    }
    if d.events {
        candidates.push(p.max_size.div_euclid(2) - p.keep_first - 1);
    }
    if d.tokens {
        let reduce = d.token_count as i64 - p.token_limit().div_euclid(2);
        candidates.push(suffix_for_reduction(costs, len as usize, p.keep_first, reduce) as i64);
    }
    let from_tail = candidates.into_iter().min().unwrap_or(0);
    let naive_end = len - from_tail;
    let protected = match view.system_index() {
        Some(i) => p.keep_first.max(i as i64 + 1),
        None => p.keep_first,
    };
    let mask = view.manipulation_indices(records);
    let unable = || "Unable to compute forgotten events".to_string();
    let start = find_next(&mask, protected).ok_or_else(unable)?;
    let end = find_next(&mask, naive_end).ok_or_else(unable)?;
    let forgotten = end.saturating_sub(start);
    if forgotten == 0 {
        return Err("Cannot condense 0 events. This typically occurs when a tool loop spans almost the entire view, leaving no valid range for forgetting events. Consider adjusting keep_first or max_size parameters.".into());
    }
    if (forgotten as f64) < len as f64 * p.minimum_progress {
        return Err(
            "Cannot apply condensation: events forgotten below minimum progress threshold.".into(),
        );
    }
    Ok((start, end))
}

/// `get_suffix_length_for_token_reduction(view[keep_first:], reduce, base=view[:keep_first])`.
fn suffix_for_reduction(costs: &Costs, len: usize, keep_first: i64, reduce: i64) -> usize {
    let k = usize::try_from(keep_first.max(0))
        .unwrap_or(usize::MAX)
        .min(len);
    let n = len - k;
    if n == 0 {
        return 0;
    }
    if reduce <= 0 {
        return n;
    }
    let base = if k > 0 { costs.total(0..k) as i64 } else { 0 };
    let delta = |m: usize| costs.total(0..k + m) as i64 - base;
    if delta(n) <= reduce {
        return 0;
    }
    let (mut left, mut right) = (1usize, n);
    while left < right {
        let mid = (left + right) / 2;
        if delta(mid) > reduce {
            right = mid;
        } else {
            left = mid + 1;
        }
    }
    n - left
}
