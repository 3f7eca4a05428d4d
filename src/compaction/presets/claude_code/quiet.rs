//! Claude Code's trigger alone, for a replay's checks: the last reported usage and the
//! characters of the live messages after it kept as a running fold, so a check costs the
//! messages added since the last one.
//!
//! Owns: the trigger's estimator names, its reason text and the quiet answer. Must not: build
//! the summarizer request (the full plan does when the threshold is reached), or answer for a
//! history holding a compaction mark (whose live messages start after it).

use super::{chars_of, thresholds};
use crate::compaction::plan::Trigger;
use crate::compaction::preset::PlanInput;
use crate::compaction::quiet::Memo;
use crate::compaction::settings::Settings;
use crate::session::Role;

/// The trigger `plan` reports below the threshold (`None` at or over it).
pub fn quiet(input: &PlanInput, settings: &Settings, memo: &mut Memo) -> Option<Trigger> {
    let session = input.session;
    if !session.marks.is_empty() {
        return None;
    }
    let (window, base, lowered) = thresholds(input, settings);
    let threshold = lowered.unwrap_or(base) as u64;
    let [reported, usage, chars, live, ..] =
        memo.fold("claude-code", session.messages.len(), |acc, i| {
            let m = &session.messages[i];
            if m.role == Role::Event {
                return;
            }
            acc[3] += 1;
            match m.usage.as_ref().and_then(|u| u.context_total()) {
                Some(r) => (acc[0], acc[1], acc[2]) = (r, 1, 0),
                None => acc[2] += chars_of(session, i) as u64,
            }
        });
    let (value, estimator) = if usage == 1 {
        (
            reported + (chars as f64 / 4.0).round() as u64,
            USAGE_ESTIMATOR,
        )
    } else {
        ((chars as f64 / 4.0).round() as u64, CHARS_ESTIMATOR)
    };
    let fired = value >= threshold && live > 0;
    (!fired).then(|| {
        trigger(
            fired,
            value,
            estimator,
            window,
            threshold,
            lowered.is_some(),
        )
    })
}

pub const USAGE_ESTIMATOR: &str = "last API usage + chars/4 after it";
pub const CHARS_ESTIMATOR: &str = "chars/4 (no reported usage)";

pub fn trigger(
    fired: bool,
    value: u64,
    estimator: &str,
    window: i64,
    threshold: u64,
    lowered: bool,
) -> Trigger {
    let reason = format!(
        "{estimator} {value} {} threshold {threshold} (context_window {window} − min(max_output_tokens, 20,000) − 13,000{})",
        if fired { "≥" } else { "<" },
        if lowered { ", lowered by autocompact_pct_override" } else { "" }
    );
    Trigger {
        fired,
        measure: "tokens",
        value,
        threshold,
        reason,
        estimator: estimator.to_string(),
    }
}
