//! Which format a source is in, decided from its content alone (never the file name).
//!
//! Owns: the order of the questions (a zip archive, the first records of a JSONL file, a whole
//! JSON document, then the list of messages a document holds) and the containers a list of
//! messages comes in (request bodies, completion logs, response objects). What each format's
//! records and messages look like is asked of the format itself (`SessionFormat`'s sniffs),
//! in the registry's order: the first that says yes wins. Sources of tools ctxray recognises
//! but does not read (`refused`) are refused by name before a list of messages is guessed.

use serde_json::Value;

use super::common::{str_at, Doc, Loaded};
use super::refused;
use super::registry::FORMATS;
use super::session_format::SessionFormat;
use super::LoadError;
use crate::session::Format;

/// How many JSONL records are looked at before giving up.
pub(crate) const PROBE_LINES: usize = 64;

pub fn detect(loaded: &Loaded) -> Result<Format, LoadError> {
    // A text format's head line is never JSON, so asking it first takes nothing from JSON.
    if let Some(found) = first_line(loaded).and_then(|head| first(|f| f.sniff_text(head))) {
        return Ok(found);
    }
    let found = match &loaded.doc {
        Doc::Zip => first(|f| f.reads_zip()),
        Doc::Text(_) => {
            return Err(loaded.refusal().unwrap_or_else(|| {
                LoadError::not_session(&loaded.shown, "not JSON and not a known text format")
            }))
        }
        Doc::Lines(lines) if lines.len() == 1 => loaded
            .document()
            .and_then(|v| detect_record(v).or_else(|| detect_document(v))),
        Doc::Lines(lines) => {
            // Only the first lines are looked at: the others' values are not built.
            let head = lines.head(&loaded.buffer, PROBE_LINES);
            let record = head.iter().find_map(|v| detect_record(v));
            if record.is_none() {
                // A refused tool's records may look like a list of messages (Goose's do).
                if let Some(tool) = refused::records(head.iter().map(|v| &**v)) {
                    return Err(tool.error(&loaded.shown));
                }
            }
            record.or_else(|| detect_messages(head.iter().map(|v| &**v)))
        }
        Doc::Json(value) => detect_document(value),
    };
    if found.is_none() {
        if let Some(tool) = loaded.document().and_then(refused::record) {
            return Err(tool.error(&loaded.shown));
        }
    }
    found.ok_or_else(|| {
        let mut why = "valid JSON, but not any known session format (see `ctxray formats`; use --from to force one)".to_string();
        // The records that would have told may be the ones that could not be read.
        if let Some(first) = loaded.skipped.first() {
            why.push_str(&format!(
                "; {} line(s) could not be read, the first is line {}: {}",
                loaded.skipped.len(),
                first.line,
                first.reason
            ));
        }
        LoadError::not_session(&loaded.shown, why)
    })
}

/// The first non-blank line of a source that does not start as JSON does.
fn first_line(loaded: &Loaded) -> Option<&str> {
    let body = loaded.buffer.get(loaded.start..)?;
    let at = body.iter().position(|b| !b.is_ascii_whitespace())?;
    if matches!(body[at], b'{' | b'[') || matches!(loaded.doc, Doc::Zip) {
        return None;
    }
    let end = memchr::memchr(b'\n', &body[at..]).map_or(body.len(), |i| at + i);
    std::str::from_utf8(body.get(at..end)?)
        .ok()
        .map(str::trim_end)
}

/// The first format, in the registry's order, that `accepts`.
fn first(accepts: impl Fn(&dyn SessionFormat) -> bool) -> Option<Format> {
    FORMATS.iter().find(|f| accepts(**f)).map(|f| f.format())
}

/// A JSONL record of one of the line-oriented formats.
pub fn detect_record(v: &Value) -> Option<Format> {
    first(|f| f.sniff_record(v))
}

/// A whole JSON document: a format's own document, else the messages it holds.
pub fn detect_document(v: &Value) -> Option<Format> {
    if let Some(found) = first(|f| f.sniff_document(v)) {
        return Some(found);
    }
    let Some(obj) = v.as_object() else {
        return detect_messages(v.as_array()?.iter());
    };
    // Request bodies and completion logs.
    if obj.get("system").is_some() && obj.get("messages").is_some_and(Value::is_array) {
        let msgs = obj.get("messages").and_then(Value::as_array)?;
        // A top-level `system` is Anthropic's: Chat Completions keeps it among the messages.
        return match detect_messages(msgs.iter()) {
            None | Some(Format::OPENAI_CHAT) => Some(Format::ANTHROPIC),
            other => other,
        };
    }
    // `input` is the Responses request body; its easy-form messages `{role, content}` look
    // like Chat messages, so Chat is never concluded from them. A response object
    // (`object: "response"`) holds its items in `output`.
    if let Some(input) = obj.get("input").and_then(Value::as_array) {
        let found = detect_messages(input.iter()).filter(|f| *f != Format::OPENAI_CHAT);
        return found.or(Some(Format::OPENAI_RESPONSES));
    }
    let response = str_at(v, "object") == Some("response");
    if response && obj.get("output").is_some_and(Value::is_array) {
        return Some(Format::OPENAI_RESPONSES);
    }
    detect_messages(obj.get("messages").and_then(Value::as_array)?.iter())
}

/// A list of messages in one of the framework or API shapes: its first items are shown to
/// each format's `sniff_messages`.
pub fn detect_messages<'a>(items: impl Iterator<Item = &'a Value>) -> Option<Format> {
    let probe: Vec<&Value> = items.take(PROBE_LINES).collect();
    first(|f| f.sniff_messages(&probe))
}
