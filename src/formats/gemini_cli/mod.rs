//! Gemini CLI sessions: the chat recording (`session-*.jsonl` in `chats/` of a project under
//! `~/.gemini`), its legacy `.json` form (`{sessionId, projectHash, startTime, lastUpdated,
//! messages}`), and `/chat save` checkpoints (`{history: Content[]}` or a bare `Content[]`).
//!
//! Owns: choosing which of the three shapes a source is, the session metadata (id, summary as
//! title, kind), and subagent recordings (`chats/<sessionId>/*.jsonl`) as children. Replaying the
//! log is `recording`'s job, turning records into messages `emit`'s. It must not count tokens.

mod emit;
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
use emit::Emitter;
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

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let mut session = super::start(Format::GeminiCli, loaded);
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
