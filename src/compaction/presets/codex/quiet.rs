//! Codex's trigger alone, for a replay's checks: the last reported usage and the exact count of
//! the history kept as a running fold, so a check costs the messages added since the last one.
//!
//! Owns: the limit, the trigger's reason text and the quiet answer. Must not: build the
//! summarizer request or cut anything (the full plan does when the limit is reached).

use crate::compaction::plan::Trigger;
use crate::compaction::preset::PlanInput;
use crate::compaction::quiet::Memo;
use crate::compaction::settings::Settings;
use crate::session::{Format, Role};

/// The window in force and the limit: min(model_auto_compact_token_limit, 90% of the window).
pub fn limit(input: &PlanInput, settings: &Settings) -> (u64, u64) {
    let window = settings
        .int("context_window")
        .map(|w| w.max(0) as u64)
        .or(input.window_flag)
        .or(input.session.reported_window)
        .unwrap_or(input.window);
    let mut limit = window.saturating_mul(9) / 10;
    if let Some(l) = settings.int("model_auto_compact_token_limit") {
        limit = limit.min(l.max(0) as u64);
    }
    (window, limit)
}

pub fn trigger(fired: bool, value: u64, estimator: &str, window: u64, limit: u64) -> Trigger {
    let reason = format!(
        "{estimator} {value} {} limit {limit} (min(model_auto_compact_token_limit, context_window {window} × 9/10))",
        if fired { "≥" } else { "<" }
    );
    Trigger {
        fired,
        measure: "tokens",
        value,
        threshold: limit,
        reason,
        estimator: estimator.to_string(),
    }
}

/// The trigger `plan` reports below the limit, for a history without a compaction mark
/// (`None` otherwise). Without a mark, the history Codex holds is every message but events:
/// instructions (system messages) and items (the rest).
pub fn quiet(input: &PlanInput, settings: &Settings, memo: &mut Memo) -> Option<Trigger> {
    let session = input.session;
    if !session.marks.is_empty() {
        return None;
    }
    let (window, limit) = limit(input, settings);
    let [exact, items, usage, reported, ..] =
        memo.fold("codex", session.messages.len(), |acc, i| {
            let m = &session.messages[i];
            if let Some(u) = &m.usage {
                match u.total.or_else(|| u.context_total()) {
                    Some(total) => (acc[2], acc[3]) = (1, total),
                    None => (acc[2], acc[3]) = (2, 0),
                }
            }
            if m.role == Role::Event {
                return;
            }
            acc[0] += input.counts.messages.get(i).map_or(0, |c| c.total()) as u64;
            if m.role != Role::System {
                acc[1] += 1;
            }
        });
    let (value, estimator) = if session.format == Format::CODEX && usage == 1 {
        (reported, "last token_count total_tokens")
    } else {
        (exact, "exact count of the history")
    };
    let fired = value >= limit && items > 0;
    (!fired).then(|| trigger(fired, value, estimator, window, limit))
}
