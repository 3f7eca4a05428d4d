//! pi sessions (badlogic/pi-mono's coding agent): the JSONL files under
//! `~/.pi/agent/sessions/`.
//!
//! Follows pi's writer, `packages/coding-agent/src/core/session-manager.ts`: a `SessionHeader`
//! line `{type: "session", version?, id, timestamp, cwd, parentSession?}` (version 1 files
//! also carry `provider`, `modelId`, `thinkingLevel`, `branchedFrom`), then entries `{type,
//! id, parentId, timestamp, …}`: `message` (an `AgentMessage` from pi-ai / `messages.ts`),
//! `compaction`, `branch_summary`, `custom_message` and settings entries.
//!
//! Owns: recognising the header and message entries, the session's id and model, and reading
//! the active branch's entries (`chain`) into messages (`entry`). A malformed line is skipped
//! and reported by the loader.

mod chain;
mod entry;
#[cfg(test)]
mod tests;

use serde_json::Value;

use super::common::{str_at, Item, Loaded};
use super::LoadError;
use crate::session::{Format, Session};
use chain::Node;

/// pi in the format registry.
pub struct Pi;

impl super::session_format::SessionFormat for Pi {
    fn format(&self) -> Format {
        Format::PI
    }

    fn description(&self) -> &'static str {
        "pi coding agent session (JSONL: a session header, then message and other entries)"
    }

    /// The header, or a message entry whose message has one of pi's roles and its content
    /// (or, for a `!` command, its command).
    fn sniff_record(&self, v: &Value) -> bool {
        match str_at(v, "type") {
            Some("session") => {
                str_at(v, "id").is_some()
                    && str_at(v, "cwd").is_some()
                    && v.get("timestamp").is_some()
            }
            Some("message") => {
                let Some(m) = v.get("message").filter(|m| m.is_object()) else {
                    return false;
                };
                match str_at(m, "role") {
                    Some("toolResult") => m.get("toolCallId").is_some(),
                    Some("bashExecution") => m.get("command").is_some(),
                    Some("branchSummary" | "compactionSummary") => m.get("summary").is_some(),
                    Some("user" | "assistant") => {
                        v.get("uuid").is_none()
                            && m.get("content").is_some_and(Value::is_array)
                            && m.get("timestamp").is_some_and(Value::is_number)
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        Ok(parse(loaded))
    }

    fn writes_lines(&self) -> bool {
        true
    }
}

pub fn parse(loaded: &Loaded) -> Session {
    let mut session = super::start(Format::PI, loaded);
    // A first pass keeps each entry's place in the tree, not its value: only the active
    // branch's entries are parsed again and read, one at a time.
    struct Entry {
        /// The line's place among the valid lines (`Loaded::line_at`).
        at: usize,
        line: usize,
        id: Option<String>,
        parent: Option<String>,
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut at = 0;
    loaded.each_line(|item| {
        if str_at(item.value, "type") == Some("session") && session.id.is_none() {
            session.id = str_at(item.value, "id").map(str::to_string);
            session.model = str_at(item.value, "modelId").map(str::to_string);
        } else {
            entries.push(Entry {
                at,
                line: item.index,
                id: str_at(item.value, "id").map(str::to_string),
                parent: str_at(item.value, "parentId").map(str::to_string),
            });
        }
        at += 1;
    });
    let nodes: Vec<Node<'_>> = entries
        .iter()
        .map(|e| Node {
            line: e.line,
            id: e.id.as_deref(),
            parent: e.parent.as_deref(),
        })
        .collect();
    let chain = chain::active(&nodes);
    session.source.abandoned = chain.abandoned;
    let mut model = session.model.clone();
    for k in chain.active {
        let Some((index, range, value)) = entries.get(k).and_then(|e| loaded.line_at(e.at)) else {
            continue;
        };
        let item = Item {
            index,
            range: Some((range.start, range.end)),
            value: &value,
        };
        entry::read(&mut session, &item, &mut model);
    }
    session.model = model;
    session
}
