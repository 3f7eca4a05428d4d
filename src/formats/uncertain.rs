//! Knowing when a read is unsure: a source detected (or forced) as one format whose records
//! gave no messages, or only opaque ones, is probably another tool's file read wrongly, and
//! saying nothing would be worse than refusing it.
//!
//! Owns: the rule for an uncertain read, and its explanation (the formats whose own sniffs
//! also take the first records, and the keys those records have, so a tool's fields or a
//! misspelt key are in plain sight), kept in `Source::uncertain` for the findings to report as
//! `format-uncertain`. Must not change what was read.

use serde_json::Value;

use super::common::{Doc, Loaded};
use super::detect::PROBE_LINES;
use super::registry::FORMATS;
use crate::session::{Format, Part, Session};

/// What the first records of a source say about it, gathered before they are let go.
#[derive(Debug, Clone, Default)]
pub struct Clues {
    /// Other formats whose sniffs also take the first records.
    others: Vec<Format>,
    /// The first record's keys, one level down (the document's, for a whole JSON document).
    keys: String,
}

impl Clues {
    /// The clues of `loaded`, read as `chosen`.
    pub fn of(loaded: &Loaded, chosen: Format) -> Clues {
        let head: Vec<Value> = match &loaded.doc {
            Doc::Lines(lines) => lines
                .head(&loaded.buffer, PROBE_LINES)
                .into_iter()
                .map(std::borrow::Cow::into_owned)
                .collect(),
            Doc::Json(v) => vec![v.clone()],
            Doc::Zip | Doc::Text(_) => Vec::new(),
        };
        let others = FORMATS
            .iter()
            .filter(|f| f.format() != chosen)
            .filter(|f| {
                let refs: Vec<&Value> = head.iter().collect();
                head.iter()
                    .any(|v| f.sniff_record(v) || f.sniff_document(v))
                    || f.sniff_messages(&refs)
            })
            .map(|f| f.format())
            .collect();
        // An object's own keys follow it in braces (`message{role, contnet}`), as an empty
        // record's do: a misspelt field is one level down as often as not.
        let keys = head
            .first()
            .and_then(Value::as_object)
            .map(super::empty::keys)
            .unwrap_or_default();
        Clues { others, keys }
    }
}

/// How much of a file [`Clues::of_file`] reads again.
const HEAD_BYTES: u64 = 4 << 20;

impl Clues {
    /// The clues of the file at `path`, read as `chosen`, from its first lines (up to
    /// [`HEAD_BYTES`]): for a source read a chunk at a time, whose first lines were let go.
    /// None when they cannot be read again.
    pub fn of_file(
        path: &std::path::Path,
        chosen: Format,
        limits: &crate::limits::Limits,
    ) -> Clues {
        use std::io::Read;
        let mut bytes = Vec::new();
        let read =
            std::fs::File::open(path).and_then(|f| f.take(HEAD_BYTES).read_to_end(&mut bytes));
        if read.is_err() {
            return Clues::default();
        }
        // Whole lines only: a line cut short would read as malformed.
        if let Some(end) = memchr::memrchr(b'\n', &bytes) {
            bytes.truncate(end + 1);
        }
        match Loaded::within(bytes, None, "", limits.line) {
            Ok(loaded) => Clues::of(&loaded, chosen),
            Err(_) => Clues::default(),
        }
    }
}

/// Whether `session` reads as nothing: records but no messages (and no sessions inside), or
/// messages that hold nothing but opaque parts.
pub fn is_uncertain(session: &Session) -> bool {
    if session.source.records == 0 || !session.children.is_empty() {
        return false;
    }
    session
        .messages
        .iter()
        .all(|m| m.parts.iter().all(|p| matches!(p, Part::Opaque { .. })))
}

/// Notes in `session.source.uncertain` why its read is unsure, when it is.
pub fn check(session: &mut Session, clues: &Clues) {
    if !is_uncertain(session) {
        return;
    }
    let records = session.source.records;
    let got = match session.messages.len() {
        0 => "no messages".to_string(),
        n => format!("{n} message(s) with no readable content"),
    };
    let mut why = format!(
        "read as {}, its {records} record(s) gave {got}: this is probably another tool's file",
        session.format
    );
    if !clues.others.is_empty() {
        let names: Vec<String> = clues.others.iter().map(|f| format!("--from {f}")).collect();
        why.push_str(&format!("; it also looks like {}", names.join(" or ")));
    }
    if !clues.keys.is_empty() {
        why.push_str(&format!("; its first record has the keys {}", clues.keys));
    }
    why.push_str(" (see `ctxray formats` for what is read)");
    session.source.uncertain = Some(why);
}

#[cfg(test)]
mod tests {
    use crate::formats::load_bytes;

    fn uncertain(text: &str) -> Option<String> {
        let s = load_bytes(text.as_bytes().to_vec(), None, "t.jsonl", None).unwrap();
        s.source.uncertain
    }

    #[test]
    fn records_that_give_only_empty_messages_are_an_uncertain_read() {
        // Claude Code's envelope, the message's content key misspelt: empty messages.
        let text = concat!(
            r#"{"uuid":"a","parentUuid":null,"sessionId":"s","timestamp":"t","type":"user","message":{"role":"user","contnet":"hi"}}"#,
            "\n",
            r#"{"uuid":"b","parentUuid":"a","sessionId":"s","timestamp":"t","type":"assistant","message":{"role":"assistant","contnet":[{"type":"text","text":"yo"}]}}"#,
            "\n"
        );
        let why = uncertain(text).expect("uncertain");
        assert!(
            why.starts_with("read as claude-code, its 2 record(s) gave 2 message(s)"),
            "{why}"
        );
        assert!(why.contains("message{role, contnet}"), "{why}");
        // The same records with their content read are certain.
        assert_eq!(uncertain(&text.replace("contnet", "content")), None);
    }
}
