//! The session formats ctxray reads, listed once.
//!
//! Owns: the [`SessionFormat`] trait — what a format module tells the rest of ctxray: its name
//! and description, how its content is recognised, how it is read (a file, a directory, one
//! line at a time), how its histories are written and how the session picker shows it — and
//! [`FORMATS`], the one list of them. Adding a format is a module under `formats/` with one
//! implementation, and one line here.
//!
//! The list's order is detection's (and `ctxray formats`'): a source is the first format whose
//! sniff accepts it, so a catch-all shape (Chat Completions messages) comes after the specific
//! ones.

use std::path::Path;
use std::str::FromStr;

use serde_json::Value;

use super::common::Loaded;
use super::stream::LineReader;
use super::{
    agent_framework, anthropic, claude_code, codex, gemini_cli, inspect_ai, langchain, openai_chat,
    openai_responses, openhands, openhands_v0, pydantic_ai, LoadError,
};
use crate::session::{Format, Session};

/// One session format, implemented by its module.
pub trait SessionFormat: Sync {
    /// Its identity; `format().name()` is the name `--from` and `formats` use.
    fn format(&self) -> Format;

    /// One line on what the format is, for `ctxray formats`.
    fn description(&self) -> &'static str;

    /// Whether a JSON Lines record is one of this format's (the first lines are asked).
    fn sniff_record(&self, _record: &Value) -> bool {
        false
    }

    /// Whether a whole JSON document is this format's own (asked before the document is looked
    /// into for a list of messages).
    fn sniff_document(&self, _doc: &Value) -> bool {
        false
    }

    /// Whether a list of messages (a top-level array, a request body's `messages` or `input`)
    /// has this format's shape; `probe` holds its first items.
    fn sniff_messages(&self, _probe: &[&Value]) -> bool {
        false
    }

    /// Whether a zip archive is this format's.
    fn reads_zip(&self) -> bool {
        false
    }

    /// Reads a source in this format.
    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError>;

    /// Reads a directory as one session of this format; `Ok(None)` when it is not one.
    fn load_dir(&self, _path: &Path) -> Result<Option<Session>, LoadError> {
        Ok(None)
    }

    /// A reader that goes on taking lines after `loaded`, for formats read one JSON Lines
    /// record at a time (a growing file is followed, a large one read in chunks). `None` when
    /// the format is read whole.
    fn lines(&self, _loaded: &Loaded) -> Option<Result<Box<dyn LineReader>, LoadError>> {
        None
    }

    /// Whether the history documents a preset persists in this format are written one record
    /// per line (JSON Lines) rather than as one JSON document.
    fn writes_lines(&self) -> bool {
        false
    }

    /// The theme role the session picker draws this format's tool name in.
    fn picker_role(&self) -> &'static str {
        "dim"
    }

    /// Where a session found on disk lives in its tool's terms (a project, a day), from the
    /// names of its path's components; `None` leaves the picker to show the parent directory.
    fn picker_place(&self, _names: &[String]) -> Option<String> {
        None
    }
}

/// Every format, in detection order.
pub static FORMATS: &[&dyn SessionFormat] = &[
    &claude_code::ClaudeCode,
    &codex::Codex,
    &openhands::OpenHands,
    &openhands_v0::OpenHandsV0,
    &gemini_cli::GeminiCli,
    &inspect_ai::InspectAi,
    &langchain::LangChain,
    &pydantic_ai::PydanticAi,
    &agent_framework::AgentFramework,
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
        ] {
            assert_eq!(by_name(f.name()), Ok(f));
        }
    }
}
