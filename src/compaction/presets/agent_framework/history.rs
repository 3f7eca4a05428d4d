//! The list Agent Framework holds after a compaction: the strategy run again with the
//! summarizer's real text, every message as `Message.to_dict()` gives it — excluded ones kept
//! with their `_excluded` / `_exclude_reason` flags, `_group` annotations as the run leaves them,
//! inserted summaries and `[Tool results: …]` messages in place — and that list read back with
//! ctxray's `agent-framework` parser.
//!
//! Owns: turning a run into an `After`. Must not: decide anything the run did not.

use serde_json::Value;

use super::model::AfMsg;
use super::run::execute;
use super::AfPreset;
use crate::compaction::after::{self, After};
use crate::compaction::plan::Plan;
use crate::compaction::preset::PlanInput;
use crate::session::Format;

/// The history after `plan` is carried out with `summary` (`None`: the planning placeholder).
pub fn compacted(
    preset: &AfPreset,
    input: &PlanInput,
    plan: &Plan,
    summary: Option<&str>,
) -> After {
    let Ok(done) = execute(preset, input, &plan.settings, summary) else {
        return after::generic(input.session, plan, summary);
    };
    let history = Value::Array(done.run.msgs.iter().map(AfMsg::to_dict).collect());
    after::from_history(input.session, history, Format::AgentFramework)
        .unwrap_or_else(|_| after::generic(input.session, plan, summary))
}
