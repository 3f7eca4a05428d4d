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

use std::borrow::Cow;

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
    // A first pass keeps each record's place in the tree, not its value: only the active
    // chain's records are parsed again and read, a few at a time.
    struct Keyed {
        /// The line's place among the valid lines (`Loaded::line_at`).
        at: usize,
        line: usize,
        uuid: String,
        parent: Option<String>,
    }
    let mut keyed: Vec<Keyed> = Vec::new();
    let mut at = 0;
    loaded.each_line(|item| {
        match str_at(item.value, "uuid") {
            Some(uuid) => {
                if session.id.is_none() {
                    session.id = str_at(item.value, "sessionId").map(str::to_string);
                }
                keyed.push(Keyed {
                    at,
                    line: item.index,
                    uuid: uuid.to_string(),
                    parent: str_at(item.value, "parentUuid").map(str::to_string),
                });
            }
            None => session.skip(item.index + 1, "a Qwen Code record without its uuid"),
        }
        at += 1;
    });
    let nodes: Vec<Node<'_>> = keyed
        .iter()
        .map(|k| Node {
            line: k.line,
            uuid: &k.uuid,
            parent: k.parent.as_deref(),
        })
        .collect();
    let chain = chain::active(&nodes);
    session.source.abandoned = chain.abandoned;
    let mut reader = Reader::default();
    for group in &chain.groups {
        let lines: Vec<(usize, std::ops::Range<usize>, Cow<'_, Value>)> = group
            .iter()
            .filter_map(|&k| loaded.line_at(keyed.get(k)?.at))
            .collect();
        let items: Vec<Item<'_>> = lines
            .iter()
            .map(|(index, range, value)| Item {
                index: *index,
                range: Some((range.start, range.end)),
                value,
            })
            .collect();
        let recs: Vec<&Item<'_>> = items.iter().collect();
        reader.read(&mut session, &recs);
    }
    session.title = reader.title;
    session.model = reader.model;
    Ok(session)
}
