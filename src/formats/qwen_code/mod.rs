//! Qwen Code chats (QwenLM/qwen-code, a Gemini CLI fork): the JSONL files under
//! `~/.qwen/projects/<project>/chats/<sessionId>.jsonl`.
//!
//! Follows the writer, `packages/core/src/services/chatRecordingService.ts` (`ChatRecord`:
//! `uuid`, `parentUuid`, `sessionId`, `timestamp`, `type: user | assistant | tool_result |
//! system`, `subtype`, `message: Content {role, parts}`, `usageMetadata`, `model`,
//! `systemPayload`, `cwd`, `version`, `gitBranch`), and its reader,
//! `packages/core/src/services/sessionService.ts` (`reconstructHistory`, `aggregateRecords`,
//! `buildApiHistoryFromConversation`). The envelope is Claude Code's, the content Gemini's.
//!
//! Owns: recognising the records, the session's id, title and model, and reading the active
//! chain (`chain`) into messages (`records`). A malformed line is skipped and reported by the
//! loader.

mod chain;
mod records;
#[cfg(test)]
mod tests;

use serde_json::Value;

use super::common::{str_at, Doc, Item, Loaded};
use super::LoadError;
use crate::session::{Format, Session};
use chain::Node;
use records::Reader;

/// Qwen Code in the format registry.
pub struct QwenCode;

impl super::session_format::SessionFormat for QwenCode {
    fn format(&self) -> Format {
        Format::QWEN_CODE
    }

    fn description(&self) -> &'static str {
        "Qwen Code chat (JSONL: Claude Code's record envelope around Gemini `parts`)"
    }

    /// A record with Claude Code's keys (`uuid`, `sessionId`, a Qwen `type`) that holds a
    /// Gemini `Content` (`message.parts`, no `message.content`), is a `tool_result`, or is a
    /// `system` record with its `systemPayload` (Claude Code has neither).
    fn sniff_record(&self, v: &Value) -> bool {
        let keyed = str_at(v, "uuid").is_some() && str_at(v, "sessionId").is_some();
        if !keyed {
            return false;
        }
        let gemini = v.pointer("/message/parts").is_some_and(Value::is_array)
            && v.pointer("/message/content").is_none();
        match str_at(v, "type") {
            Some("user" | "assistant") => gemini,
            Some("tool_result") => gemini || v.get("toolCallResult").is_some(),
            Some("system") => v.get("systemPayload").is_some_and(Value::is_object),
            _ => false,
        }
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }

    fn writes_lines(&self) -> bool {
        true
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    if !matches!(loaded.doc, Doc::Lines(_)) {
        return Err(LoadError::not_session(
            &loaded.shown,
            "not a Qwen Code chat (JSON Lines of chat records)",
        ));
    }
    let mut session = super::start(Format::QWEN_CODE, loaded);
    let items = loaded.lines();
    let mut keyed: Vec<&Item<'_>> = Vec::with_capacity(items.len());
    for item in &items {
        if str_at(item.value, "uuid").is_some() {
            keyed.push(item);
        } else {
            session.skip(item.index + 1, "a Qwen Code record without its uuid");
        }
    }
    let nodes: Vec<Node<'_>> = keyed
        .iter()
        .map(|item| Node {
            line: item.index,
            uuid: str_at(item.value, "uuid").unwrap_or(""),
            parent: str_at(item.value, "parentUuid"),
        })
        .collect();
    let chain = chain::active(&nodes);
    session.source.abandoned = chain.abandoned;
    session.id = keyed
        .iter()
        .find_map(|item| str_at(item.value, "sessionId"))
        .map(str::to_string);
    let mut reader = Reader::default();
    for group in &chain.groups {
        let recs: Vec<&Item<'_>> = group
            .iter()
            .filter_map(|&k| keyed.get(k).copied())
            .collect();
        reader.read(&mut session, &recs);
    }
    session.title = reader.title;
    session.model = reader.model;
    Ok(session)
}
