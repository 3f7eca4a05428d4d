//! The names of the session formats ctxray reads. The names are part of the CLI contract.

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    ClaudeCode,
    Codex,
    OpenHands,
    OpenHandsV0,
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    PydanticAi,
    LangChain,
    AgentFramework,
    InspectAi,
    GeminiCli,
}

impl Format {
    pub const ALL: [Format; 12] = [
        Format::ClaudeCode,
        Format::Codex,
        Format::OpenHands,
        Format::OpenHandsV0,
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::PydanticAi,
        Format::LangChain,
        Format::AgentFramework,
        Format::InspectAi,
        Format::GeminiCli,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::OpenHands => "openhands",
            Format::OpenHandsV0 => "openhands-v0",
            Format::OpenAiChat => "openai-chat",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::PydanticAi => "pydantic-ai",
            Format::LangChain => "langchain",
            Format::AgentFramework => "agent-framework",
            Format::InspectAi => "inspect-ai",
            Format::GeminiCli => "gemini-cli",
        }
    }

    /// One line on what the format is, for `ctxray formats`.
    pub fn description(self) -> &'static str {
        match self {
            Format::ClaudeCode => "Claude Code session JSONL (~/.claude/projects), subagents as children",
            Format::Codex => "OpenAI Codex CLI rollout JSONL (~/.codex/sessions)",
            Format::OpenHands => "OpenHands SDK events: a conversation directory with events/, or events as JSONL/array",
            Format::OpenHandsV0 => "OpenHands 0.x trajectory export (JSON array of actions and observations)",
            Format::OpenAiChat => "OpenAI Chat Completions messages: array, {messages}, request body, litellm completion log",
            Format::OpenAiResponses => "OpenAI Responses API input items",
            Format::Anthropic => "Anthropic Messages API: messages with content blocks, optional system",
            Format::PydanticAi => "pydantic-ai ModelMessagesTypeAdapter JSON",
            Format::LangChain => "LangChain messages_to_dict JSON",
            Format::AgentFramework => "Microsoft Agent Framework Message.to_dict JSON",
            Format::InspectAi => "inspect_ai eval log (.json, or .eval zip)",
            Format::GeminiCli => "Gemini CLI chat recording (JSONL or legacy JSON) or checkpoint",
        }
    }

    /// Whether provider-reported input counts include cached tokens in this format.
    pub fn input_includes_cache(self) -> bool {
        !matches!(self, Format::ClaudeCode | Format::Anthropic)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown format `{s}`; expected one of: {}",
                    names.join(", ")
                )
            })
    }
}
