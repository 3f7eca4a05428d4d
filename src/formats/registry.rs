//! The session formats ctxray reads, listed once.
//!
//! Owns: [`FORMATS`], the one list of the formats' [`SessionFormat`] implementations, and
//! looking a format up by its identity or its name. Adding a format is a module under
//! `formats/` with one implementation, and one line here.
//!
//! The list's order is detection's (and `ctxray formats`'): a source is the first format whose
//! sniff accepts it, so a catch-all shape (Chat Completions messages) comes after the specific
//! ones.

use std::str::FromStr;

pub use super::session_format::SessionFormat;
use super::{
    agent_framework, aider, anthropic, claude_code, cline, codex, copilot_cli, gemini_cli, goose,
    inspect_ai, langchain, openai_agents, openai_chat, openai_responses, opencode, openhands,
    openhands_eval, openhands_v0, pi, pydantic_ai, qwen_code, swe_agent,
};
use crate::session::Format;

/// Every format, in detection order. Qwen Code's records carry Claude Code's envelope, so it is
/// asked first.
pub static FORMATS: &[&dyn SessionFormat] = &[
    &qwen_code::QwenCode,
    &claude_code::ClaudeCode,
    &codex::Codex,
    &openhands_eval::OpenHandsEval,
    &openhands::OpenHands,
    &openhands_v0::OpenHandsV0,
    &gemini_cli::GeminiCli,
    &opencode::OpenCode,
    &goose::Goose,
    &inspect_ai::InspectAi,
    &openai_agents::OpenAiAgents,
    &aider::Aider,
    &pi::Pi,
    &copilot_cli::CopilotCli,
    &swe_agent::SweAgent,
    &langchain::LangChain,
    &pydantic_ai::PydanticAi,
    &agent_framework::AgentFramework,
    &cline::Cline,
    &anthropic::Anthropic,
    &openai_responses::OpenAiResponses,
    &openai_chat::OpenAiChat,
];

/// The module behind `format`. Every [`Format`] a session carries comes from [`FORMATS`].
pub fn of(format: Format) -> &'static dyn SessionFormat {
    FORMATS
        .iter()
        .copied()
        .find(|f| f.format() == format)
        .unwrap_or(FORMATS[FORMATS.len() - 1])
}

/// Every format's name, in the registry's order.
pub fn names() -> impl Iterator<Item = &'static str> {
    FORMATS.iter().map(|f| f.format().name())
}

/// The format called `name` (the names of `--from`, `--to` and `ctxray formats`).
pub fn by_name(name: &str) -> Result<Format, String> {
    FORMATS
        .iter()
        .map(|f| f.format())
        .find(|f| f.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = names().collect();
            format!(
                "unknown format `{name}`; expected one of: {}",
                names.join(", ")
            )
        })
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        by_name(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_again() {
        let mut seen = std::collections::HashSet::new();
        for f in FORMATS {
            let name = f.format().name();
            assert!(seen.insert(name), "{name} listed twice");
            assert_eq!(by_name(name), Ok(f.format()));
            assert_eq!(of(f.format()).format(), f.format());
            assert!(!f.description().is_empty(), "{name} has no description");
        }
        assert!(by_name("nope").unwrap_err().contains("claude-code"));
        // The formats other modules name are all registered.
        for f in [
            Format::CLAUDE_CODE,
            Format::CODEX,
            Format::OPENHANDS,
            Format::OPENHANDS_V0,
            Format::OPENAI_CHAT,
            Format::OPENAI_RESPONSES,
            Format::ANTHROPIC,
            Format::PYDANTIC_AI,
            Format::LANGCHAIN,
            Format::AGENT_FRAMEWORK,
            Format::INSPECT_AI,
            Format::GEMINI_CLI,
            Format::OPENAI_AGENTS,
            Format::AIDER,
            Format::SWE_AGENT,
            Format::OPENHANDS_EVAL,
            Format::PI,
            Format::QWEN_CODE,
            Format::OPENCODE,
            Format::CLINE,
            Format::COPILOT_CLI,
            Format::GOOSE,
        ] {
            assert_eq!(by_name(f.name()), Ok(f));
        }
    }
}
