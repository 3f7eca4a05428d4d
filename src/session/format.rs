//! Which format a session was read from: its name, part of the CLI contract.
//!
//! Owns: the identity of a format (a `Copy` handle compared by name) and the constants for the
//! formats other modules name (a preset that knows its framework's own history, a writer).
//! What a format is — how it is recognised, read, followed, found on disk — is its module's,
//! listed once in `formats::registry`; a format nothing else names needs no constant here.

use std::fmt;

/// A session format, by its contract name (`claude-code`, `openai-chat`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Format(&'static str);

impl Format {
    pub const CLAUDE_CODE: Format = Format("claude-code");
    pub const CODEX: Format = Format("codex");
    pub const OPENHANDS: Format = Format("openhands");
    pub const OPENHANDS_V0: Format = Format("openhands-v0");
    pub const OPENHANDS_EVAL: Format = Format("openhands-eval");
    pub const OPENAI_CHAT: Format = Format("openai-chat");
    pub const OPENAI_RESPONSES: Format = Format("openai-responses");
    pub const ANTHROPIC: Format = Format("anthropic");
    pub const PYDANTIC_AI: Format = Format("pydantic-ai");
    pub const LANGCHAIN: Format = Format("langchain");
    pub const AGENT_FRAMEWORK: Format = Format("agent-framework");
    pub const INSPECT_AI: Format = Format("inspect-ai");
    pub const GEMINI_CLI: Format = Format("gemini-cli");
    pub const OPENAI_AGENTS: Format = Format("openai-agents");
    pub const AIDER: Format = Format("aider");
    pub const SWE_AGENT: Format = Format("swe-agent");
    pub const PI: Format = Format("pi");
    pub const QWEN_CODE: Format = Format("qwen-code");
    pub const OPENCODE: Format = Format("opencode");
    pub const CLINE: Format = Format("cline");
    pub const COPILOT_CLI: Format = Format("copilot-cli");
    pub const GOOSE: Format = Format("goose");

    /// The format named `name`. Only a format's own module and the constants above make one;
    /// a name from the command line is looked up in `formats::registry`.
    pub const fn named(name: &'static str) -> Format {
        Format(name)
    }

    pub fn name(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}
