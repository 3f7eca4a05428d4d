//! The list Agent Framework holds after a compaction: the strategy run again with the
//! summarizer's real text, every message as `Message.to_dict()` gives it — excluded ones kept
//! with their `_excluded` / `_exclude_reason` flags, `_group` annotations as the run leaves them,
//! inserted summaries and `[Tool results: …]` messages in place — and that list read back with
//! ctxray's `agent-framework` parser. A replay's history leaves out the excluded messages no
//! later run reads (`settled`).
//!
//! Owns: turning a run into an `After`. Must not: decide anything the run did not.

use serde_json::Value;

use super::model::AfMsg;
use super::run::{execute, Left};
use super::settled;
use super::AfPreset;
use crate::compaction::after::{self, After};
use crate::compaction::plan::Plan;
use crate::compaction::preset::PlanInput;
use crate::session::Format;

/// The history after `plan` is carried out with `summary` (`None`: the planning placeholder).
/// In a replay that carries messages (`input.carried`), the runs of excluded messages
/// `settled` finds are left out of the history and carried beside it.
pub fn compacted(
    preset: &AfPreset,
    input: &PlanInput,
    plan: &Plan,
    summary: Option<&str>,
) -> After {
    // With no summarizer text the run is the plan's own, kept when the plan was made.
    let left = plan
        .made
        .get::<Left>()
        .filter(|left| summary.is_none() && left.is_of(input));
    let (mut msgs, outside) = match left {
        Some(left) => (left.msgs.clone(), left.outside.clone()),
        None => match execute(preset, input, &plan.settings, summary) {
            Ok(done) => (done.run.msgs, done.run.outside),
            Err(_) => return after::generic(input.session, plan, summary),
        },
    };
    let carried = match input.carried {
        Some(_) => settled::settle(&mut msgs, &outside),
        None => None,
    };
    let history = Value::Array(msgs.iter().map(AfMsg::to_dict).collect());
    match input.read_back(history, Format::AGENT_FRAMEWORK) {
        Ok(mut after) => {
            after.carried = carried;
            after
        }
        Err(_) => after::generic(input.session, plan, summary),
    }
}
