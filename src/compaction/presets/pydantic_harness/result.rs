//! What the pydantic-ai-harness presets leave after a compaction, and the shrink guard.
//!
//! Owns: `Preset::compacted` (the strategy run again on the history, or the outcome its plan
//! kept, its layout filled with the records and written as `ModelMessagesTypeAdapter` JSON,
//! read back with ctxray's `pydantic-ai` parser) and `Preset::rejects`. The guard is the 0.63 rule as seed 003 reports
//! it: the compacted request is kept only when `estimate_token_count` (the framework's own
//! estimator, chars/4 or the configured tokenizer, the latest instructions once) measures it
//! below the request it replaces, whatever the trigger measures. Must not: plan or summarize.

use serde_json::Value;

use super::compacted::{self, Fill};
use super::estimate::Estimator;
use super::history::{self, Rec};
use super::summarizing::Outcome;
use super::{limits, model_family, nonneg, run_strategy, wire, Strategy};
use crate::compaction::after::{self, After};
use crate::compaction::plan::{Made, Plan, SessionKey};
use crate::compaction::preset::{GuardCheck, PlanInput, Preset};
use crate::session::Format;

/// The history the framework holds after `plan` with `summary` (the summarizer's text).
pub fn compacted(
    preset: &dyn Preset,
    input: &PlanInput,
    plan: &Plan,
    summary: Option<&str>,
    strategy: Strategy,
) -> After {
    let settings = &plan.settings;
    let owned = history::records(input.session);
    let recs: Vec<&Rec> = owned.iter().collect();
    let est = Estimator {
        tokenizer: settings.str("tokenizer").map(|_| input.counter),
    };
    // The plan's own outcome, when it was made to be carried out; else the strategy again.
    let kept = (plan.made.get::<Kept>()).filter(|k| k.session == SessionKey::of(input.session));
    let outcome = match kept {
        Some(k) => Some(k.outcome.clone()),
        None => limits(preset, input, settings)
            .ok()
            .and_then(|_| run_strategy(strategy, &recs, settings, input, &est)),
    };
    let Some(o) = outcome else {
        return after::unchanged(input.session);
    };
    let records = wire::records(input.session, &owned);
    let fill = Fill {
        recs: &recs,
        records: &records,
        summary,
        receipt: o.receipt.as_deref(),
        bridge: strategy == Strategy::Summarizing && bridged(settings, input, &records),
        max_chars: nonneg(settings, "keep_user_messages_max_chars").unwrap_or(20_000),
        now: clock(input.now),
    };
    let doc = Value::Array(compacted::history(&o.layout, &fill));
    input
        .read_back(doc, Format::PYDANTIC_AI)
        .unwrap_or_else(|_| after::generic(input.session, plan, summary))
}

/// The strategy's outcome a plan made to be carried out keeps (`PlanInput::carries_out`), so
/// that its compaction does not run the strategy again: nothing the strategy decides depends
/// on the summary.
pub struct Kept {
    session: SessionKey,
    outcome: Outcome,
}

/// What a plan of `input` keeps of its `outcome`.
pub fn kept(input: &PlanInput, outcome: Option<&Outcome>) -> Made {
    match outcome {
        Some(o) if input.carries_out => Made::keep(Kept {
            session: SessionKey::of(input.session),
            outcome: o.clone(),
        }),
        _ => Made::default(),
    }
}

/// `bridge_summary`: `bridge_prefix` and the summarizer's model family differs from the one
/// that produced the history (the newest response's model name, else the run's model).
fn bridged(settings: &crate::compaction::Settings, input: &PlanInput, records: &[Value]) -> bool {
    if settings.bool("bridge_prefix") != Some(true) {
        return false;
    }
    let history_model = records
        .iter()
        .rev()
        .filter(|r| r.get("kind").and_then(Value::as_str) == Some("response"))
        .find_map(|r| r.get("model_name").and_then(Value::as_str))
        .filter(|m| !m.is_empty());
    let run = history_model.or(input.model).and_then(model_family);
    let summarizer = settings.str("model").or(input.model).and_then(model_family);
    matches!((run, summarizer), (Some(a), Some(b)) if a != b)
}

/// The framework's clock reading: the session's last timestamp as pydantic dumps a UTC
/// datetime (`...Z`), the epoch when it has none.
fn clock(now: Option<&str>) -> String {
    match now {
        Some(t) => match t.strip_suffix("+00:00") {
            Some(head) => format!("{head}Z"),
            None => t.to_string(),
        },
        None => "1970-01-01T00:00:00Z".to_string(),
    }
}

/// `estimate_token_count` of a whole request (every record, the latest instructions once).
pub fn request_estimate(est: &Estimator, session: &crate::session::Session) -> usize {
    let owned = history::records(session);
    let recs: Vec<&Rec> = owned.iter().collect();
    est.token_count(&recs)
}

/// `guard=shrink`: the compacted request is not measured below the one it replaces.
/// `guard=fit`, a ctxray what-if that no release implements: that, or the compacted history
/// still reaches the trigger.
pub fn rejects(check: &GuardCheck) -> bool {
    let guard = check.settings.str("guard");
    if !matches!(guard, Some("shrink" | "fit")) {
        return false;
    }
    let est = Estimator {
        tokenizer: check
            .settings
            .str("tokenizer")
            .map(|_| check.before.counter),
    };
    let before = request_estimate(&est, check.before.session);
    let after = request_estimate(&est, check.after.session);
    let not_smaller = after >= before;
    match guard {
        Some("fit") => not_smaller || check.again.trigger.fired,
        _ => not_smaller,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Analysis;
    use crate::compaction::preset;

    fn analyse(rel: &str) -> Analysis {
        crate::testing::analysed(rel)
    }

    const SEED: [&str; 3] = ["max_messages=4", "keep_messages=2", "receipts=true"];

    #[test]
    fn a_carried_history_keeps_its_records_summary_and_receipt_in_any_format() {
        for rel in [
            "fixtures/pydantic-ai/seed-003-tiny-rounds.json",
            "fixtures/openai-chat/seed-003-tiny-rounds.json",
        ] {
            let a = analyse(rel);
            let sets: Vec<String> = SEED.iter().map(|s| s.to_string()).collect();
            let p = crate::compaction::presets::find("pydantic-ai-harness").unwrap();
            let input = PlanInput::new(&a);
            let plan = preset::run(p, &input, &sets).unwrap();
            let after = p.compacted(&input, &plan, Some("brief"));
            let doc = after.history.as_array().unwrap().len();
            // As replay keeps it for a source of another format: no raw records.
            let mut carried = after.session.clone();
            carried.format = a.session.format;
            for m in &mut carried.messages {
                m.raw = None;
            }
            for session in [&after.session, &carried] {
                let recs = history::records(session);
                assert_eq!(recs.len(), doc, "{rel}");
                let own = recs[1].parts.iter().any(|p| p.is_own_summary());
                let receipt = recs[2]
                    .parts
                    .iter()
                    .any(|p| p.user().is_some_and(|u| u.receipt));
                assert!(own && receipt, "{rel}: {:?}", recs[1..3].to_vec());
            }
            let est = Estimator { tokenizer: None };
            let wire = wire::records(&carried, &history::records(&carried));
            let reread = after::from_history(&a.session, Value::Array(wire), Format::PYDANTIC_AI);
            let reread = reread.unwrap().session;
            assert_eq!(
                request_estimate(&est, &reread),
                request_estimate(&est, &after.session),
                "{rel}"
            );
        }
    }
}
