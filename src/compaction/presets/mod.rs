//! One module per framework preset, and the registry of them. Each emulates a named framework
//! version exactly, bugs included; `ALL` lists them (in the order `ctxray presets` shows), and
//! `find` looks one up by name. Adding a preset is a module here and one line in `ALL`; the
//! `Preset` trait (`compaction::preset`) knows nothing of the list.

mod agent_framework;
mod claude_code;
mod codex;
mod custom;
mod dimos;
mod hermes;
mod lc;
mod openhands;
mod pydantic_harness;
pub(crate) mod wire;

use super::preset::{PlanError, Preset};

pub static ALL: &[&dyn Preset] = &[
    &openhands::OpenHands,
    &openhands::OpenHandsFixed,
    &agent_framework::SUMMARIZATION,
    &agent_framework::SUMMARIZATION_117,
    &agent_framework::SLIDING,
    &agent_framework::TRUNCATION,
    &agent_framework::SELECTIVE_TOOL,
    &agent_framework::TOOL_RESULT,
    &agent_framework::TOKEN_BUDGET,
    &agent_framework::CONTEXT_WINDOW,
    &pydantic_harness::Summarizing,
    &pydantic_harness::Sliding,
    &hermes::Hermes,
    &dimos::Dimos,
    &codex::Codex,
    &claude_code::ClaudeCode,
    &custom::Custom,
];

/// Every preset, in the order `ctxray presets` lists them.
pub fn all() -> Vec<&'static dyn Preset> {
    ALL.to_vec()
}

/// The preset called `name`.
pub fn find(name: &str) -> Result<&'static dyn Preset, PlanError> {
    all()
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| PlanError::UnknownPreset {
            name: name.to_string(),
            known: all()
                .iter()
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(", "),
        })
}
