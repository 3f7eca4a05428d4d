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
use super::run::execute;
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
    let Ok(done) = execute(preset, input, &plan.settings, summary) else {
        return after::generic(input.session, plan, summary);
    };
    let mut msgs = done.run.msgs;
    let carried = match input.carried {
        Some(_) => settled::settle(&mut msgs, &done.run.outside),
        None => None,
    };
    let history = Value::Array(msgs.iter().map(AfMsg::to_dict).collect());
    match after::from_history(input.session, history, Format::AgentFramework) {
        Ok(mut after) => {
            after.carried = carried;
            after
        }
        Err(_) => after::generic(input.session, plan, summary),
    }
}
