//! dimos' trigger alone, for a replay's checks: `estimate_tokens` of each LangChain message
//! kept as a running sum, so a check costs the messages added since the last one.
//!
//! Owns: the quiet answer (below the threshold, or a single message) and its reason text.
//! Must not: cut, render or decide anything when the estimate is over the threshold (the
//! full plan does).

use super::{estimate_tokens, window, ESTIMATOR};
use crate::compaction::plan::Trigger;
use crate::compaction::preset::PlanInput;
use crate::compaction::presets::lc;
use crate::compaction::quiet::Memo;
use crate::compaction::settings::Settings;

/// The trigger `plan` reports when the estimate is not over the threshold (`None` otherwise,
/// and for settings `plan` refuses).
pub fn trigger(input: &PlanInput, settings: &Settings, memo: &mut Memo) -> Option<Trigger> {
    let trigger_ratio = settings.float("trigger_ratio").unwrap_or(0.8);
    let keep_ratio = settings.float("keep_ratio").unwrap_or(0.35);
    if keep_ratio >= trigger_ratio {
        return None;
    }
    let window = window(input, settings);
    let session = input.session;
    let [tokens, messages, ..] = memo.fold("dimos", session.messages.len(), |acc, i| {
        if let Some(m) = lc::message(session, &session.messages[i]) {
            acc[0] += estimate_tokens(&m);
            acc[1] += 1;
        }
    });
    let threshold = window as f64 * trigger_ratio;
    let over = tokens as f64 > threshold && messages > 1;
    (!over).then(|| Trigger {
        fired: false,
        measure: "tokens",
        value: tokens,
        threshold: threshold as u64,
        reason: reason(tokens, threshold, window, trigger_ratio),
        estimator: ESTIMATOR.into(),
    })
}

/// Why the trigger stays quiet.
pub fn reason(tokens: u64, threshold: f64, window: u64, trigger_ratio: f64) -> String {
    format!("estimate {tokens} ≤ {threshold:.0} (context_window {window} × trigger_ratio {trigger_ratio})")
}
