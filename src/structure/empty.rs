//! The `empty-record` finding: a message that came from a record of the source but holds
//! nothing (no text, no call, no result), so the record lacked what its kind needs — often a
//! misspelt key, whose content and tool result would otherwise vanish without a word.
//!
//! Owns: noting such messages while the source's bytes are at hand ([`note`], called by the
//! loaders before they may let the bytes go) with each record's line and keys, and the
//! findings made from those notes.

use serde_json::Value;

use super::findings::{Finding, Severity};
use crate::session::{EmptyRecord, Message, Session};

/// How many empty records get a finding of their own before the rest share one.
const SHOWN: usize = 10;
/// How many keys of one object are listed before `…`.
const KEYS_SHOWN: usize = 12;

/// Notes in `source.empty` every message of the session (and of its children) that has no
/// parts and whose record the source holds. A session whose read is unsure (nothing but empty
/// or opaque messages: `format-uncertain`) gets no notes: its records are likely of another
/// format, not records of this one that lack a key.
pub fn note(session: &mut Session) {
    let sure = session.source.uncertain.is_none();
    let empty: Vec<&Message> = (session.messages.iter())
        .filter(|m| sure && m.parts.is_empty() && m.raw.is_some())
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

/// One `empty-record` finding per noted record (after the first [`SHOWN`], one for the rest).
pub fn findings(session: &Session) -> Vec<Finding> {
    let empty = &session.source.empty;
    let role = |e: &EmptyRecord| {
        session
            .messages
            .get(e.message)
            .map_or("", |m| m.role.as_str())
    };
    let mut out: Vec<Finding> = (empty.iter().take(SHOWN))
        .map(|e| Finding {
            code: "empty-record",
            severity: Severity::Warn,
            messages: vec![e.message],
            detail: format!("{} {} has no content: keys {}", role(e), e.place, e.keys),
        })
        .collect();
    if empty.len() > SHOWN {
        let more = empty.len() - SHOWN;
        let rest: Vec<&str> = (empty.iter().skip(SHOWN).take(SHOWN))
            .map(|e| e.place.as_str())
            .collect();
        out.push(Finding {
            code: "empty-record",
            severity: Severity::Warn,
            messages: empty.iter().skip(SHOWN).map(|e| e.message).collect(),
            detail: format!(
                "{more} more record{} with no content ({}{})",
                if more == 1 { "" } else { "s" },
                rest.join(", "),
                if more > SHOWN { ", …" } else { "" }
            ),
        });
    }
    out
}

/// Where a record is: its line in the source when the source has several, else its 1-based
/// record number.
fn place(m: &Message, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("record at line {line}"),
        None => format!("record {}", m.source_index + 1),
    }
}

/// The 1-based line of each message's record in the source, read in one pass over the bytes
/// before the last of them; `None` for all when those bytes hold no line break.
fn line_numbers(session: &Session, empty: &[&Message]) -> Vec<Option<usize>> {
    let starts: Vec<usize> = empty
        .iter()
        .map(|m| m.raw.as_ref().map_or(0, |r| r.start))
        .collect();
    let end = starts.iter().copied().max().unwrap_or(0);
    let newlines: Vec<usize> = match session.raw_range(0..end) {
        Some(head) => memchr::memchr_iter(b'\n', &head).collect(),
        None => Vec::new(),
    };
    if newlines.is_empty() {
        return vec![None; empty.len()];
    }
    starts
        .iter()
        .map(|&s| Some(newlines.partition_point(|&n| n < s) + 1))
        .collect()
}

/// The record's keys, an object's own keys in braces one level down.
fn keys_of(session: &Session, m: &Message) -> String {
    let value = session
        .raw_record(m)
        .and_then(|bytes| crate::formats::surrogates::parse_value(&bytes).ok());
    match value {
        Some(Value::Object(obj)) => list(&obj, true),
        Some(other) => format!("none (the record is {})", kind(&other)),
        None => "unknown (the record could not be read again)".to_string(),
    }
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::formats::chunked::{load_in, Bytes};
    use crate::formats::load_path;
    use crate::limits::Limits;
    use crate::structure::{findings::session_findings, group_messages};

    const MISSPELT: &str = "fixtures/claude-code/misspelt_content.jsonl";

    /// Line 3 of the fixture is the result of toolu_m1 with its `content` key misspelt
    /// `contnet`: it reads as a message with no parts, and says so with its keys.
    /// python3 -c "import json;[print(i+1,list(d['message'])) for i,d in
    ///   enumerate(map(json.loads,open('fixtures/claude-code/misspelt_content.jsonl')))]"
    #[test]
    fn a_misspelt_content_key_is_an_empty_record_finding() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(MISSPELT);
        let s = load_path(&path, None).unwrap();
        let found: Vec<_> = session_findings(&s, &group_messages(&s), 0, None)
            .into_iter()
            .filter(|f| f.code == "empty-record")
            .collect();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].messages, vec![2]);
        assert_eq!(
            found[0].detail,
            "user record at line 3 has no content: keys parentUuid, sessionId, cwd, version, \
             isSidechain, userType, type, message{role, contnet}, uuid, timestamp"
        );
        // Read a chunk at a time, its bytes let go at the end, the note is the same.
        let chunked = load_in(
            &path,
            None,
            &Limits::default(),
            None,
            |_| {},
            64,
            Bytes::Released,
        )
        .unwrap();
        assert!(chunked.buffer.is_empty() && chunked.records.is_none());
        assert_eq!(chunked.source.empty, s.source.empty);
    }

    #[test]
    fn a_one_line_source_names_the_record_by_number() {
        let bytes = br#"[{"role":"user","content":"hi"},{"role":"assistant","contnet":"hello"}]"#;
        let s = crate::formats::load_bytes(bytes.to_vec(), None, "t.json", None).unwrap();
        let places: Vec<_> = s.source.empty.iter().map(|e| e.place.as_str()).collect();
        assert_eq!(places, vec!["record 2"]);
        assert_eq!(s.source.empty[0].keys, "role, contnet");
    }

    #[test]
    fn past_ten_the_rest_share_one_finding() {
        let mut records = vec![r#"{"role":"user","content":"hi"}"#.to_string()];
        records.extend((0..12).map(|_| r#"{"role":"assistant","contnet":"x"}"#.to_string()));
        let bytes = format!("[{}]", records.join(",\n"));
        let s = crate::formats::load_bytes(bytes.into_bytes(), None, "t.json", None).unwrap();
        assert_eq!(s.source.empty.len(), 12);
        let found = super::findings(&s);
        assert_eq!(found.len(), 11);
        assert_eq!(
            found[0].detail,
            "assistant record at line 2 has no content: keys role, contnet"
        );
        assert_eq!(found[10].messages, vec![11, 12]);
        assert_eq!(
            found[10].detail,
            "2 more records with no content (record at line 12, record at line 13)"
        );
    }
}
