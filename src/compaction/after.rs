//! The history a framework holds after a compaction, in its own serialisation and in the
//! common model.
//!
//! Owns: `After` (the framework's JSON of the compacted history, the format ctxray reads that
//! JSON as, and the common-model session parsed from it), building one from a framework's
//! records (serialise, then parse with ctxray's own parser, so what is shown, counted and
//! planned again is exactly what the framework would hand back) or from its records already
//! read one by one (a replay's, which needs no document), and the generic `After` of
//! presets whose framework keeps no history of its own shape (the kept messages around the
//! summary, as OpenAI chat dicts), and `Carried`, what a preset keeps of messages its framework
//! still holds but a replay's history leaves out. Must not: call a summarizer, count tokens or
//! decide a cut.

use serde_json::Value;

use super::apply;
use super::plan::Plan;
use crate::formats::common::Loaded;
use crate::session::{Format, Message, Session};

/// A compacted history.
#[derive(Debug, Clone)]
pub struct After {
    /// The history in the common model: what is counted, shown and planned again.
    pub session: Session,
    /// The framework's own serialisation of the history (`compact --json`'s `result.history`).
    pub history: Value,
    /// The session format `history` is a document of, when ctxray reads it back as one
    /// (`None`: the history is shown but is no loadable session by itself).
    pub format: Option<Format>,
    /// What the framework persists when that differs from `history` (OpenHands keeps every
    /// event and appends the `Condensation`; its view is `history`).
    pub persisted: Option<Value>,
    /// Messages the framework still holds that `session` leaves out, because no later plan of
    /// a replay reads more of them than the preset keeps here (`None`: `session` is the whole
    /// list). Only a preset whose input allows it (`preset::PlanInput::carried`) leaves any out.
    pub carried: Option<Carried>,
}

/// Messages of a framework's list a replay no longer holds in its history, and what the preset
/// keeps of them for its later plans (its own type, read back by downcasting).
#[derive(Clone)]
pub struct Carried {
    /// How many messages of the framework's list they are.
    pub messages: usize,
    pub state: std::sync::Arc<dyn std::any::Any + Send + Sync>,
}

impl Carried {
    /// Nothing carried yet, in a replay that lets presets carry messages.
    pub fn nothing() -> Carried {
        Carried {
            messages: 0,
            state: std::sync::Arc::new(()),
        }
    }
}

impl std::fmt::Debug for Carried {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Carried({} messages)", self.messages)
    }
}

/// Why a framework history could not be read back.
#[derive(Debug, thiserror::Error)]
#[error("the compacted history does not load back as {format}: {reason}")]
pub struct ReadBackError {
    pub format: &'static str,
    pub reason: String,
}

/// The `After` of a framework whose history is the JSON document `history` of `format`: the
/// document is parsed with ctxray's own `format` parser. The session keeps `base`'s path, id,
/// title, model and window; its raw records point into the serialised document.
pub fn from_history(
    base: &Session,
    history: Value,
    format: Format,
) -> Result<After, ReadBackError> {
    read(base, history, format, true)
}

/// A history read back as a session of `format`; `write`: its messages get raw records.
pub(super) fn read(
    base: &Session,
    history: Value,
    format: Format,
    write: bool,
) -> Result<After, ReadBackError> {
    let err = |reason: String| ReadBackError {
        format: format.name(),
        reason,
    };
    let (mut session, history) = match history {
        // An array (every framework's list) is written once and its values used as they are,
        // not parsed again from the bytes (a replay reads back a history at every compaction).
        Value::Array(items) => {
            let loaded = Loaded::of_array(items, &base.source.path, write)
                .map_err(|e| err(e.to_string()))?;
            let session = crate::formats::parse(format, &loaded).map_err(|e| err(e.to_string()))?;
            let history = loaded.into_document().unwrap_or(Value::Null);
            (session, history)
        }
        other => {
            let bytes = serde_json::to_vec(&other).map_err(|e| err(e.to_string()))?;
            let session = crate::formats::load_bytes(bytes, None, &base.source.path, Some(format))
                .map_err(|e| err(e.to_string()))?;
            (session, other)
        }
    };
    session.source.path = base.source.path.clone();
    Ok(read_back(base, session, history, format))
}

/// The `After` of `session`, a history read back as `format`, with `base`'s id, title,
/// model (unless the history names one) and window.
fn read_back(base: &Session, mut session: Session, history: Value, format: Format) -> After {
    session.id = base.id.clone();
    session.title = base.title.clone();
    if session.model.is_none() {
        session.model = base.model.clone();
    }
    session.reported_window = base.reported_window;
    After {
        session,
        history,
        format: Some(format),
        persisted: None,
        carried: None,
    }
}

/// The `After` of a framework's list already read record by record: `messages`, each what
/// `format`'s parser makes of its record at that place of the list, with no raw record. The
/// session is the one `read` gives for that list when it writes no bytes; no document of the
/// list is made (`history` is null), which only a replay, that reads the session alone, asks
/// for. `None` when every message holds only opaque parts: `read` would also check how sure
/// that read is, so the list is read whole.
pub fn of_messages(base: &Session, format: Format, messages: Vec<Message>) -> Option<After> {
    let n = messages.len();
    let mut session = Session::new(format, base.source.path.clone(), Default::default());
    session.source.records = n;
    session.source.record_indices = (0..n).collect();
    for m in messages {
        session.push(m);
    }
    if crate::formats::uncertain::is_uncertain(&session) {
        return None;
    }
    Some(read_back(base, session, Value::Null, format))
}

/// The `After` of a framework that persists its history as JSONL `bytes` of `format` (Claude
/// Code): `history` is the list of its records, the session the bytes read back.
pub fn from_jsonl(base: &Session, bytes: Vec<u8>, format: Format) -> Result<After, ReadBackError> {
    let err = |reason: String| ReadBackError {
        format: format.name(),
        reason,
    };
    let records = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .map(serde_json::from_slice::<Value>)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| err(e.to_string()))?;
    let mut session = crate::formats::load_bytes(bytes, None, &base.source.path, Some(format))
        .map_err(|e| err(e.to_string()))?;
    session.source.path = base.source.path.clone();
    Ok(After {
        session,
        history: Value::Array(records),
        format: Some(format),
        persisted: None,
        carried: None,
    })
}

/// The generic compacted history: the plan's kept messages in order with the summary where
/// the preset inserts it (`apply`), serialised as OpenAI chat dicts.
pub fn generic(session: &Session, plan: &Plan, summary: Option<&str>) -> After {
    let session = apply::apply(session, plan, summary);
    let history = chat_dicts(&session);
    After {
        session,
        history,
        format: Some(Format::OPENAI_CHAT),
        persisted: None,
        carried: None,
    }
}

/// The history as the source holds it, nothing compacted: the source's own records where each
/// message has one (in order, a record shared by merged messages once), else OpenAI chat dicts.
pub fn unchanged(session: &Session) -> After {
    let mut records = Vec::new();
    let mut last = None;
    for m in &session.messages {
        let Some(raw) = session.raw_record(m) else {
            return After {
                session: session.clone(),
                history: chat_dicts(session),
                format: Some(Format::OPENAI_CHAT),
                persisted: None,
                carried: None,
            };
        };
        if last == m.raw.as_ref().map(|r| r.start) {
            continue;
        }
        last = m.raw.as_ref().map(|r| r.start);
        match serde_json::from_slice::<Value>(&raw) {
            Ok(v) => records.push(v),
            Err(_) => {
                return After {
                    session: session.clone(),
                    history: chat_dicts(session),
                    format: Some(Format::OPENAI_CHAT),
                    persisted: None,
                    carried: None,
                }
            }
        }
    }
    After {
        session: session.clone(),
        history: Value::Array(records),
        format: Some(session.format),
        persisted: None,
        carried: None,
    }
}

/// The session's messages as OpenAI chat dicts, unmasked (masking is the writer's business).
pub fn chat_dicts(session: &Session) -> Value {
    crate::write::openai_chat::to_json_unmasked(session)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Message, Part, Role};

    #[test]
    fn a_history_read_back_keeps_the_base_identity_and_its_own_records() {
        let mut base = Session::new(Format::OPENAI_CHAT, "in.json", Default::default());
        base.id = Some("s-1".into());
        base.model = Some("gpt-4o".into());
        let mut m = Message::new(Role::User, 0);
        m.parts.push(Part::Text { text: "hi".into() });
        base.push(m);
        let history = serde_json::json!([
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hello"}
        ]);
        let after = from_history(&base, history.clone(), Format::OPENAI_CHAT).unwrap();
        assert_eq!(after.history, history);
        assert_eq!(after.session.source.path, "in.json");
        assert_eq!(after.session.id.as_deref(), Some("s-1"));
        assert_eq!(after.session.messages.len(), 2);
        let raw = after
            .session
            .raw_record(&after.session.messages[1])
            .unwrap();
        let v: Value = serde_json::from_slice(&raw).unwrap();
        assert_eq!(v, history[1]);
    }

    /// A history array read back from its values equals the same array written out and loaded
    /// as a file: the same messages, and each one's raw record the same bytes.
    #[test]
    fn a_history_read_from_its_values_equals_the_history_loaded_from_its_bytes() {
        let base = Session::new(Format::OPENAI_CHAT, "in.json", Default::default());
        let history = serde_json::json!([
            {"role": "system", "content": "be brief ] [ \" \\ {"},
            {"role": "user", "content": "caf\u{e9} \u{1F600}", "name": "x"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "f", "arguments": "{\"a\": [1, 2.5e-7]}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "[]"},
            {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
        ]);
        let bytes = serde_json::to_vec(&history).unwrap();
        let loaded =
            crate::formats::load_bytes(bytes, None, "in.json", Some(Format::OPENAI_CHAT)).unwrap();
        let after = from_history(&base, history.clone(), Format::OPENAI_CHAT).unwrap();
        assert_eq!(after.history, history);
        assert_eq!(
            format!("{:?}", after.session.messages),
            format!("{:?}", loaded.messages)
        );
        assert_eq!(*after.session.buffer, *loaded.buffer);
        assert_eq!(after.session.source.records, loaded.source.records);
        for (a, b) in after.session.messages.iter().zip(&loaded.messages) {
            assert_eq!(after.session.raw_record(a), loaded.raw_record(b));
        }
    }

    #[test]
    fn a_history_that_is_no_session_is_an_error_not_a_panic() {
        let base = Session::new(Format::OPENAI_CHAT, "in.json", Default::default());
        let err = from_history(&base, serde_json::json!({"x": 1}), Format::OPENAI_CHAT);
        assert!(err.is_err());
    }
}
