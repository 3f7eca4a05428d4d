//! Microsoft Agent Framework compaction (`agent_framework._compaction`), emulated call for call
//! from `agent-framework-core` 1.23.0 (and the 1.17.0 summarizer, whose transcript is
//! `Message.text` only): the `_group` annotations (incremental, linked non-contiguous tool
//! groups, `msg_<i>` ids), the `CharacterEstimatorTokenizer` estimate over the JSON each
//! message serializes to, every strategy, and the summarizer request byte for byte.
//!
//! Owns: the eight `agent-framework*` presets, the list each leaves after a compaction (the
//! framework's own `Message.to_dict()` records, excluded messages included) and an offline
//! digest of what their summarizer is shown. Sessions in Agent Framework's own format are read
//! from their raw `Message.to_dict()` records (annotations and exclusions included); other
//! formats are rebuilt as `Content` dicts. The summary itself is unknown when planning: the
//! inserted message carries `SUMMARY-<n>` (as the oracle's fake client returns), which only
//! matters to token counts taken after a summarization.

mod annotate;
mod batch;
mod estimate;
mod findings;
mod groups;
mod held;
mod history;
mod model;
mod model_key;
mod nested;
mod offline;
mod params;
mod pyjson;
mod quiet;
mod readback;
mod render;
mod run;
mod settled;
mod strategies;
mod summarize;
mod tool_result;
#[cfg(test)]
mod tool_result_tests;

use crate::compaction::after::After;
use crate::compaction::plan::Plan;
use crate::compaction::plan::Trigger;
use crate::compaction::preset::{PlanError, PlanInput, Preset};
use crate::compaction::quiet::Memo;
use crate::compaction::settings::{ParamSpec, Settings};

/// The framework version whose behaviour differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V1_17,
    V1_23,
}

#[derive(Debug, Clone, Copy)]
pub enum PresetKind {
    Summarization(Version),
    Sliding,
    Truncation,
    Selective,
    ToolResult,
    TokenBudget,
    ContextWindow,
}

impl PresetKind {
    fn version(self) -> Version {
        match self {
            PresetKind::Summarization(v) => v,
            _ => Version::V1_23,
        }
    }
}

pub struct AfPreset {
    name: &'static str,
    framework: &'static str,
    description: &'static str,
    kind: PresetKind,
}

const AF_123: &str = "agent-framework-core 1.23.0";

pub static SUMMARIZATION: AfPreset = AfPreset {
    name: "agent-framework",
    framework: "agent-framework-core 1.23.0 SummarizationStrategy",
    description: "more than target_count+threshold included messages: oldest whole groups summarized under an 8,000-token input budget; assistant summary, no prefix",
    kind: PresetKind::Summarization(Version::V1_23),
};

pub static SUMMARIZATION_117: AfPreset = AfPreset {
    name: "agent-framework-1.17",
    framework: "agent-framework-core 1.17.0 SummarizationStrategy",
    description: "as agent-framework, but the transcript is Message.text only: tool rounds reach the summarizer as `function_call` / `function_result` placeholders",
    kind: PresetKind::Summarization(Version::V1_17),
};

pub static SLIDING: AfPreset = AfPreset {
    name: "agent-framework-sliding",
    framework: AF_123,
    description:
        "SlidingWindowStrategy: keep the last keep_last_groups non-system groups (and system)",
    kind: PresetKind::Sliding,
};

pub static TRUNCATION: AfPreset = AfPreset {
    name: "agent-framework-truncation",
    framework: AF_123,
    description: "TruncationStrategy: above max_n (messages, or tokens with a tokenizer) exclude oldest groups down to compact_to",
    kind: PresetKind::Truncation,
};

pub static SELECTIVE_TOOL: AfPreset = AfPreset {
    name: "agent-framework-selective-tool",
    framework: AF_123,
    description: "SelectiveToolCallCompactionStrategy: exclude all but the last keep_last_tool_call_groups tool-call groups, no trace",
    kind: PresetKind::Selective,
};

pub static TOOL_RESULT: AfPreset = AfPreset {
    name: "agent-framework-tool-result",
    framework: AF_123,
    description: "ToolResultCompactionStrategy: older tool-call groups become `[Tool results: name: result; …]` (4,096 chars max)",
    kind: PresetKind::ToolResult,
};

pub static TOKEN_BUDGET: AfPreset = AfPreset {
    name: "agent-framework-token-budget",
    framework: AF_123,
    description: "TokenBudgetComposedStrategy: strategies in order until under token_budget, then oldest-group and strict fallbacks",
    kind: PresetKind::TokenBudget,
};

pub static CONTEXT_WINDOW: AfPreset = AfPreset {
    name: "agent-framework-context-window",
    framework: AF_123,
    description: "ContextWindowCompactionStrategy: tool-result eviction above 50% of window−output, truncation above 80%; no LLM",
    kind: PresetKind::ContextWindow,
};

impl Preset for AfPreset {
    fn name(&self) -> &'static str {
        self.name
    }
    fn framework(&self) -> &'static str {
        self.framework
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn params(&self) -> &'static [ParamSpec] {
        params::specs(self.kind)
    }
    fn plan(&self, input: &PlanInput, settings: &Settings) -> Result<Plan, PlanError> {
        run::plan(self, input, settings)
    }
    fn quiet_trigger(
        &self,
        input: &PlanInput,
        settings: &Settings,
        memo: &mut Memo,
    ) -> Option<Trigger> {
        quiet::trigger(self, input, settings, memo)
    }
    /// The whole list the strategy leaves, as `Message.to_dict()` records, read back.
    fn compacted(&self, input: &PlanInput, plan: &Plan, summary: Option<&str>) -> After {
        history::compacted(self, input, plan, summary)
    }
    /// A digest of what the summarizer request renders (not of the session's messages).
    fn offline_summary(&self, input: &PlanInput, plan: &Plan) -> Option<String> {
        if !plan.trigger.fired || plan.insertion.is_none() {
            return None;
        }
        // The messages the plan's own run rendered, when it kept them; else the run again.
        if let Some(kept) = plan.made.get::<run::Kept>().filter(|k| k.is_of(input)) {
            return (!kept.rendered.is_empty()).then(|| offline::digest(&kept.rendered, kept.v));
        }
        let done = run::execute(self, input, &plan.settings, None).ok()?;
        (!done.run.rendered.is_empty()).then(|| offline::digest(&done.run.rendered, done.run.v))
    }
}
