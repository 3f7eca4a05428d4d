//! Where Gemini CLI keeps its chats, and the cheap look inside one.
//!
//! Owns: `tmp/*/chats/*.json[l]` and `tmp/*/checkpoint-*.json` under the root; counting the user/gemini records of a recording (a later record with the same `id`
//! replaces the earlier, `$set.messages` replaces the list, `$rewindTo` truncates) and its
//! `summary` title; the legacy whole-JSON recording; `/chat save` checkpoints. Must not build a
//! `Session` or fail: anything odd yields `None`s.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use crate::formats::home::bytes::str_of;
use crate::formats::home::peek::{clean, lines, parse};
use crate::formats::home::{Finder, Peek};

/// Every recording and checkpoint of the projects under `root`.
pub(super) fn find(root: &Path, finder: &mut Finder) {
    for project in finder.dirs(&root.join("tmp")) {
        for file in finder.list(&project.path) {
            let name = file.name();
            if file.is_file() && name.starts_with("checkpoint-") && name.ends_with(".json") {
                finder.file(file, peek);
            }
        }
        for file in finder.list(&project.path.join("chats")) {
            let name = file.name();
            if file.is_file() && (name.ends_with(".jsonl") || name.ends_with(".json")) {
                finder.file(file, peek);
            }
        }
    }
}

/// A file found: a checkpoint (by its name), a JSONL recording, or a legacy JSON one.
fn peek(name: &str, bytes: &[u8], whole: bool) -> Peek {
    match name.strip_prefix("checkpoint-") {
        Some(tag) => checkpoint(bytes, whole, tag.trim_end_matches(".json")),
        None if name.ends_with(".jsonl") => recording(bytes, whole),
        None => legacy(bytes, whole),
    }
}

/// The records of a recording that are messages, in order, by id.
#[derive(Default)]
struct Log {
    order: Vec<Vec<u8>>,
    seen: HashSet<Vec<u8>>,
    anonymous: usize,
}

impl Log {
    fn push(&mut self, id: Option<&[u8]>) {
        match id {
            Some(id) if self.seen.insert(id.to_vec()) => self.order.push(id.to_vec()),
            Some(_) => {}
            None => self.anonymous += 1,
        }
    }

    fn rewind(&mut self, id: &[u8]) {
        if let Some(at) = self.order.iter().position(|x| x.as_slice() == id) {
            for gone in self.order.drain(at..) {
                self.seen.remove(&gone);
            }
        }
    }

    fn replace(&mut self, messages: &[Value]) {
        *self = Log::default();
        for m in messages.iter().filter(|m| is_message(m)) {
            self.push(m.get("id").and_then(Value::as_str).map(str::as_bytes));
        }
    }

    fn len(&self) -> usize {
        self.order.len() + self.anonymous
    }
}

fn is_message(v: &Value) -> bool {
    matches!(
        v.get("type").and_then(Value::as_str),
        Some("user" | "gemini")
    )
}

/// A JSONL recording: line 1 is metadata, then records, `$set` and `$rewindTo` lines.
fn recording(bytes: &[u8], whole: bool) -> Peek {
    let mut log = Log::default();
    let mut summary: Option<String> = None;
    let mut prompt: Option<String> = None;
    for line in lines(bytes, whole) {
        match str_of(line, "type") {
            Some(kind @ (b"user" | b"gemini")) => {
                log.push(str_of(line, "id"));
                if prompt.is_none() && kind == b"user" {
                    prompt = parse(line).and_then(|v| user_text(&v));
                }
            }
            Some(_) => {}
            None => meta_line(line, &mut log, &mut summary),
        }
    }
    Peek {
        cwd: None,
        title: summary.or(prompt),
        messages: whole.then(|| log.len()),
    }
}

/// A line without a `type`: the metadata line, `$set` or `$rewindTo`.
fn meta_line(line: &[u8], log: &mut Log, summary: &mut Option<String>) {
    if let Some(id) = str_of(line, "$rewindTo") {
        log.rewind(id);
        return;
    }
    let Some(v) = parse(line) else {
        return;
    };
    let meta = v.get("$set").unwrap_or(&v);
    if let Some(s) = meta.get("summary").and_then(Value::as_str).and_then(clean) {
        *summary = Some(s);
    }
    if let Some(messages) = meta.get("messages").and_then(Value::as_array) {
        log.replace(messages);
    }
}

/// The text of a user record: `content` as a string or `[{text}]` parts.
fn user_text(v: &Value) -> Option<String> {
    match v.get("content")? {
        Value::String(s) => clean(s),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            clean(&texts.join(" "))
        }
        _ => None,
    }
}

/// The legacy `.json` recording `{sessionId, …, summary?, messages}`.
fn legacy(bytes: &[u8], whole: bool) -> Peek {
    let Some(v) = whole.then(|| parse(bytes)).flatten() else {
        return Peek::default();
    };
    let messages = v.get("messages").and_then(Value::as_array);
    let prompt = || {
        messages?
            .iter()
            .find(|m| m.get("type").and_then(Value::as_str) == Some("user"))
            .and_then(user_text)
    };
    Peek {
        cwd: None,
        title: v
            .get("summary")
            .and_then(Value::as_str)
            .and_then(clean)
            .or_else(prompt),
        messages: messages.map(|m| m.iter().filter(|m| is_message(m)).count()),
    }
}

/// A `/chat save <tag>` checkpoint: `{history: Content[]}` or a bare array; titled by its tag.
fn checkpoint(bytes: &[u8], whole: bool, tag: &str) -> Peek {
    let v = whole.then(|| parse(bytes)).flatten();
    let history = v
        .as_ref()
        .and_then(|v| v.get("history").unwrap_or(v).as_array());
    Peek {
        cwd: None,
        title: clean(&format!("checkpoint {tag}")),
        messages: history.map(|h| {
            h.iter()
                .filter(|c| {
                    matches!(
                        c.get("role").and_then(Value::as_str),
                        Some("user" | "model")
                    )
                })
                .count()
        }),
    }
}
