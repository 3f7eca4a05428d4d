//! Gemini CLI sessions: the chat recording (`session-*.jsonl` in `chats/` of a project under
//! `~/.gemini`), its legacy `.json` form (`{sessionId, projectHash, startTime, lastUpdated,
//! messages}`), and `/chat save` checkpoints (`{history: Content[]}` or a bare `Content[]`).
//!
//! Owns: choosing which of the three shapes a source is, the session metadata (id, summary as
//! title, kind), and subagent recordings (`chats/<sessionId>/*.jsonl`) as children. Replaying the
//! log is `recording`'s job, turning records into messages `emit`'s. It must not count tokens.

mod emit;
mod home;
mod parts;
mod recording;
#[cfg(test)]
mod tests;

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::common::{str_at, Doc, Loaded};
use super::LoadError;
use crate::session::{Format, Session};
pub(crate) use emit::Emitter;
pub(crate) use parts::usage_metadata;
use recording::Rec;

/// Session metadata, merged from the first line and every `$set`.
#[derive(Debug, Default)]
pub(super) struct Meta {
    session_id: Option<String>,
    summary: Option<String>,
    kind: Option<String>,
}

impl Meta {
    fn absorb(&mut self, v: &Value) {
        if let Some(id) = str_at(v, "sessionId") {
            self.session_id = Some(id.to_string());
        }
        if let Some(summary) = str_at(v, "summary") {
            self.summary = Some(summary.to_string());
        }
        if let Some(kind) = str_at(v, "kind") {
            self.kind = Some(kind.to_string());
        }
    }
}

/// The three shapes a Gemini CLI source comes in.
enum Shape {
    /// A checkpoint: `Content[]` at this path.
    Checkpoint(&'static [&'static str]),
    /// A whole conversation record with `messages`.
    Legacy,
    /// The JSONL log.
    Recording,
}

/// Gemini CLI in the format registry.
pub struct GeminiCli;

impl super::session_format::SessionFormat for GeminiCli {
    fn format(&self) -> Format {
        Format::GEMINI_CLI
    }

    fn description(&self) -> &'static str {
        "Gemini CLI chat recording (JSONL or legacy JSON) or checkpoint"
    }

    /// A recording's header (`sessionId` and `projectHash`) or one of its records.
    fn sniff_record(&self, v: &Value) -> bool {
        let Some(obj) = v.as_object() else {
            return false;
        };
        if obj.contains_key("sessionId") && obj.contains_key("projectHash") {
            return true;
        }
        obj.contains_key("id")
            && obj.contains_key("timestamp")
            && matches!(
                str_at(v, "type"),
                Some("user" | "gemini" | "info" | "error" | "warning")
            )
            && obj.contains_key("content")
    }

    /// A legacy recording (`sessionId` and `messages`), a checkpoint's `history`, or a bare
    /// array of contents.
    fn sniff_document(&self, v: &Value) -> bool {
        if let Some(obj) = v.as_object() {
            if obj.contains_key("sessionId") && obj.contains_key("messages") {
                return true;
            }
            let history = obj.get("history").and_then(Value::as_array);
            return history.is_some_and(|h| h.iter().any(is_content));
        }
        v.as_array().is_some_and(|items| {
            items.iter().any(is_content) && items.iter().all(|i| i.get("parts").is_some())
        })
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }

    fn home(&self) -> Option<super::home::Home> {
        Some(super::home::Home {
            tool: "Gemini CLI",
            dir: ".gemini",
            var: Some("GEMINI_CLI_HOME"),
            var_below: ".gemini",
            layout: "tmp/*/chats/, tmp/*/checkpoint-*.json",
        })
    }

    fn find(&self, root: &Path, finder: &mut super::home::Finder) {
        home::find(root, finder)
    }

    fn picker_role(&self) -> &'static str {
        "agent_gemini"
    }

    /// The project directory under `tmp/`.
    fn picker_place(&self, names: &[String]) -> Option<String> {
        let at = names.iter().rposition(|n| n == "tmp");
        at.and_then(|i| names.get(i + 1)).cloned()
    }
}

/// A `Content`: a `user` or `model` role with `parts`.
fn is_content(v: &Value) -> bool {
    matches!(str_at(v, "role"), Some("user" | "model"))
        && v.get("parts").is_some_and(Value::is_array)
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let mut session = super::start(Format::GEMINI_CLI, loaded);
    let mut meta = Meta::default();
    let mut emitter = Emitter::default();
    match shape(loaded)? {
        Shape::Checkpoint(path) => {
            let items = loaded.items(path);
            session.source.records = items.len();
            emitter.contents(&mut session, &items);
        }
        Shape::Legacy => {
            if let Some(doc) = loaded.document() {
                meta.absorb(doc);
            }
            let items = loaded.items(&["messages"]);
            session.source.records = items.len();
            let recs: Vec<Rec> = items.iter().map(Rec::from_item).collect();
            emitter.records(&mut session, &recs);
        }
        Shape::Recording => {
            let recs = recording::replay(loaded, &mut meta);
            emitter.records(&mut session, &recs);
        }
    }
    session.id = meta.session_id;
    session.title = meta.summary;
    if meta.kind.as_deref() != Some("subagent") {
        if let (Some(path), Some(id)) = (loaded.path.as_deref(), session.id.as_deref()) {
            session.children = subagents(path, id);
        }
    }
    Ok(session)
}

fn shape(loaded: &Loaded) -> Result<Shape, LoadError> {
    if let Some(doc) = loaded.document() {
        if doc.is_array() {
            return Ok(Shape::Checkpoint(&[]));
        }
        if doc.get("history").is_some_and(Value::is_array) {
            return Ok(Shape::Checkpoint(&["history"]));
        }
        if doc.get("messages").is_some_and(Value::is_array) {
            return Ok(Shape::Legacy);
        }
    }
    match loaded.doc {
        Doc::Lines(_) => Ok(Shape::Recording),
        _ => Err(LoadError::not_session(
            &loaded.shown,
            "not a Gemini CLI recording (JSONL), conversation record ({sessionId, messages}) or checkpoint ({history})",
        )),
    }
}

/// Subagent recordings of session `id`: `<chats>/<id>/*.jsonl` beside the session file.
fn subagents(path: &Path, id: &str) -> Vec<Session> {
    let Some(dir) = path.parent().map(|d| d.join(id)) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "jsonl" || x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|file| {
            let bytes = crate::limits::read_regular(file).ok()?;
            let shown = file.display().to_string();
            let loaded = Loaded::new(bytes, Some(file.clone()), &shown).ok()?;
            parse(&loaded).ok()
        })
        .collect()
}
