//! One file per framework preset. Each emulates a named framework version exactly, bugs
//! included; `ALL` is the registry `ctxray presets` lists, in that order.

mod agent_framework;
mod claude_code;
mod codex;
mod custom;
mod dimos;
mod hermes;
mod lc;
mod openhands;
mod pydantic_harness;
mod wire;

use super::preset::Preset;

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
