//! Noting the records read into messages with no parts (`empty-record` findings), or that a
//! loader found lacking their content's key (`source.hollow`), while the source's bytes are at
//! hand: each record's line and its keys one level down, so a misspelt
//! key shows. The loaders call [`note`] before they may let the bytes go; the findings are
//! `structure::empty`'s.

use serde_json::Value;

use crate::session::{EmptyRecord, Message, Session};

/// How many keys of one object are listed before `…`.
const KEYS_SHOWN: usize = 12;

/// Notes in `source.empty` every message of the session (and of its children) that has no
/// parts and whose record the source holds. A session whose read is unsure (nothing but empty
/// or opaque messages: `format-uncertain`) gets no notes: its records are likely of another
/// format, not records of this one that lack a key.
pub fn note(session: &mut Session) {
    let sure = session.source.uncertain.is_none();
    let mut hollow = std::mem::take(&mut session.source.hollow);
    hollow.sort_unstable();
    let lacks = |m: &Message| m.parts.is_empty() || hollow.binary_search(&m.index).is_ok();
    let empty: Vec<&Message> = (session.messages.iter())
        .filter(|m| sure && lacks(m) && m.raw.is_some())
        .collect();
    let notes = if empty.is_empty() {
        Vec::new()
    } else {
        let lines = line_numbers(session, &empty);
        (empty.iter().zip(lines))
            .map(|(m, line)| EmptyRecord {
                message: m.index,
                place: place(m, line),
                keys: keys_of(session, m),
            })
            .collect()
    };
    session.source.empty = notes;
    session.children.iter_mut().for_each(note);
}

/// Where a record is: its line in the source when the source has several, else its 1-based
/// record number.
fn place(m: &Message, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("record at line {line}"),
        None => format!("record {}", m.source_index + 1),
    }
}

/// The 1-based line of each message's record in the source; `None` for all when they all lie
/// on the first line (a one-line document).
fn line_numbers(session: &Session, empty: &[&Message]) -> Vec<Option<usize>> {
    let starts: Vec<usize> = empty
        .iter()
        .map(|m| m.raw.as_ref().map_or(0, |r| r.start))
        .collect();
    match session.lines_at(&starts) {
        // Every record on the first line: a one-line document, whose records are numbered.
        Some(lines) if lines.iter().any(|&l| l > 1) => lines.into_iter().map(Some).collect(),
        _ => vec![None; empty.len()],
    }
}

/// The record's keys, an object's own keys in braces one level down.
fn keys_of(session: &Session, m: &Message) -> String {
    let value = session
        .raw_record(m)
        .and_then(|bytes| super::surrogates::parse_value(&bytes).ok());
    match value {
        Some(Value::Object(obj)) => keys(&obj),
        Some(other) => format!("none (the record is {})", kind(&other)),
        None => "unknown (the record could not be read again)".to_string(),
    }
}

/// An object's keys, each object's own keys in braces one level down
/// (`type, message{role, contnet}`).
pub(crate) fn keys(obj: &serde_json::Map<String, Value>) -> String {
    list(obj, true)
}

fn list(obj: &serde_json::Map<String, Value>, nested: bool) -> String {
    let mut keys: Vec<String> = (obj.iter().take(KEYS_SHOWN))
        .map(|(k, v)| match v {
            Value::Object(inner) if nested => format!("{k}{{{}}}", list(inner, false)),
            _ => k.clone(),
        })
        .collect();
    if obj.len() > KEYS_SHOWN {
        keys.push("…".to_string());
    }
    keys.join(", ")
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
