//! The framework's working list: one `AfMsg` per `Message` the framework would load, read from
//! the raw `Message.to_dict()` record when the session is in Agent Framework's own format and
//! rebuilt from the common model (as `Content` dicts) for every other format.
//!
//! A message the framework holds but excludes (`_excluded`) is an event in the common model
//! carrying its record (see `formats::agent_framework`); it is read back from that record with
//! its flags, so a history that went through the common model plans as the framework's list.
//!
//! Owns: that mapping, `Message.to_dict()` of a working message, and the small helpers over raw
//! content dicts (Python truthiness, string fields). Grouping, counting and strategies live
//! elsewhere.

use std::sync::{Arc, OnceLock};

use serde_json::{json, Map, Value};

use super::model_key::model_key;
use super::Version;
use crate::compaction::parsed::Parsed;
use crate::formats::agent_framework::EXCLUDED_KIND;
use crate::session::{Format, Message, Part, Role, Session};

pub const EXCLUDED: &str = "_excluded";
pub const EXCLUDE_REASON: &str = "_exclude_reason";
pub const GROUP: &str = "_group";
pub const SUMMARIZED_BY: &str = "_summarized_by_summary_id";

/// One framework `Message`: role, id, contents (as `to_dict` dicts) and `additional_properties`.
#[derive(Debug, Clone)]
pub struct AfMsg {
    pub role: String,
    pub id: Option<String>,
    pub contents: Arc<Contents>,
    /// Shared between copies until one of them writes. Written only through `props_mut`,
    /// which forgets what `known` read of them, or `props_mut_keeping`, which keeps what the
    /// write leaves true.
    pub props: Arc<Map<String, Value>>,
    /// The record's other fields (`author_name` …), written back as they came.
    pub extra: Map<String, Value>,
    /// The session message this stands for; `None` for messages compaction inserted.
    pub origin: Option<usize>,
    /// What was read of the properties so far; forgotten when a write changes it
    /// (`props_mut_keeping`).
    pub known: Known,
}

/// What the framework's walks ask of a message's properties again and again, read once.
#[derive(Debug, Clone, Default)]
pub struct Known {
    /// The valid `_group` annotation's id, kind and index, as `annotate` reads them.
    pub group: OnceLock<Option<Group>>,
    /// The valid annotation's token count and basis (`None`: no valid annotation).
    pub tokens: OnceLock<Option<Tokens>>,
    excluded: OnceLock<bool>,
}

/// See `Known::tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tokens {
    /// `token_count`, if an integer that fits an `i64`.
    pub count: Option<i64>,
    /// Whether `token_count_basis` is the 1.23 basis.
    pub basis: bool,
}

/// Which of `Known`'s reads a write of the properties leaves true (see `props_mut_keeping`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Keep {
    pub group: bool,
    pub tokens: bool,
    pub excluded: bool,
}

/// See `Known::group`.
#[derive(Debug, Clone)]
pub struct Group {
    pub id: Arc<str>,
    pub kind: super::groups::GroupKind,
    /// The index, if it fits an `i64`.
    pub index: Option<i64>,
}

impl AfMsg {
    /// `additional_properties.get("_excluded", False)`, Python-truthy.
    pub fn excluded(&self) -> bool {
        *self
            .known
            .excluded
            .get_or_init(|| get(&self.props, EXCLUDED).is_some_and(truthy))
    }

    /// The id if set and non-empty (`if message.message_id`).
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref().filter(|s| !s.is_empty())
    }

    /// Content type names, in order.
    pub fn types(&self) -> impl Iterator<Item = &str> {
        self.contents.iter().map(ctype)
    }

    /// A new assistant message holding one text content, as compaction inserts them, with the
    /// origin sessions of the messages it stands for (none: no `_attribution`).
    pub fn inserted(id: String, text: &str, annotation: Value, origins: Vec<String>) -> AfMsg {
        let mut props = Map::new();
        props.insert(GROUP.into(), annotation);
        if !origins.is_empty() {
            props.insert(
                "_attribution".into(),
                json!({ "origin_session_ids": origins }),
            );
        }
        AfMsg {
            role: "assistant".into(),
            id: Some(id),
            contents: AfMsg::text_contents(text),
            props: Arc::new(props),
            extra: Map::new(),
            origin: None,
            known: Known::default(),
        }
    }

    /// The contents of a message compaction inserts: one text.
    pub fn text_contents(text: &str) -> Arc<Contents> {
        Contents::new(vec![
            json!({"type": "text", "text": text, "additional_properties": {}}),
        ])
    }

    /// The properties to write to, copied first if another copy of the message shares them.
    pub fn props_mut(&mut self) -> &mut Map<String, Value> {
        self.props_mut_keeping(Keep::default())
    }

    /// `props_mut` for a write that leaves the reads `keep` names as they are: the others are
    /// forgotten.
    pub fn props_mut_keeping(&mut self, keep: Keep) -> &mut Map<String, Value> {
        let known = std::mem::take(&mut self.known);
        if keep.group {
            self.known.group = known.group;
        }
        if keep.tokens {
            self.known.tokens = known.tokens;
        }
        if keep.excluded {
            self.known.excluded = known.excluded;
        }
        Arc::make_mut(&mut self.props)
    }

    /// Sets `_excluded`: the annotation's reads stay.
    pub fn set_excluded_flag(&mut self, excluded: bool) {
        let keep = Keep {
            group: true,
            tokens: true,
            excluded: false,
        };
        self.props_mut_keeping(keep)
            .insert(EXCLUDED.into(), json!(excluded));
        let _ = self.known.excluded.set(excluded);
    }

    /// `Message.to_dict()`: `type`, `role`, `contents`, the other fields, `message_id` when
    /// set, `additional_properties`.
    pub fn to_dict(&self) -> Value {
        let mut d = Map::new();
        d.insert("type".into(), json!("message"));
        d.insert("role".into(), json!(self.role));
        d.insert("contents".into(), Value::Array(self.contents.dicts()));
        for (k, v) in &self.extra {
            d.insert(k.clone(), v.clone());
        }
        if let Some(id) = &self.id {
            d.insert("message_id".into(), json!(id));
        }
        d.insert(
            "additional_properties".into(),
            Value::Object(self.props.as_ref().clone()),
        );
        Value::Object(d)
    }
}

/// A message's contents (as `to_dict` dicts), never changed in place: copies of a message
/// share them, and with them the estimate of the first copy counted (`estimate`).
///
/// A tool result rebuilt from the common model with one non-empty text holds that text once:
/// its `items` (one text content of the same text) are left out of the dict and written back
/// by [`Contents::dicts`]. Nothing else reads a result's `items` but the summary rendering,
/// which falls back to `result`, the same text.
#[derive(Debug, Default)]
pub struct Contents {
    list: Vec<Value>,
    /// Whether a `function_result` without `items` stands for one with its `result` as its one
    /// text item.
    items_are_result: bool,
    estimate: OnceLock<Estimated>,
}

/// The framework's estimate of a message over these contents, and what else it read.
#[derive(Debug)]
pub struct Estimated {
    pub role: String,
    pub id: Option<String>,
    pub v: Version,
    pub tokens: i64,
}

impl Contents {
    pub fn new(list: Vec<Value>) -> Arc<Contents> {
        Arc::new(Contents {
            list,
            items_are_result: false,
            estimate: OnceLock::new(),
        })
    }

    /// Contents made by `content_of`, whose results may leave their `items` out.
    fn of_model(list: Vec<Value>) -> Arc<Contents> {
        Arc::new(Contents {
            list,
            items_are_result: true,
            estimate: OnceLock::new(),
        })
    }

    /// The contents as `to_dict` writes them: a result's `items` written back (after
    /// `result`, where `content_of` would have put them).
    pub fn dicts(&self) -> Vec<Value> {
        if !self.items_are_result {
            return self.list.clone();
        }
        self.list
            .iter()
            .map(|c| match c.as_object() {
                Some(map) if ctype(c) == "function_result" && !map.contains_key("items") => {
                    let mut out = Map::new();
                    for (k, v) in map {
                        out.insert(k.clone(), v.clone());
                        if k == "result" {
                            out.insert(
                                "items".into(),
                                json!([text_content(v.as_str().unwrap_or_default())]),
                            );
                        }
                    }
                    Value::Object(out)
                }
                _ => c.clone(),
            })
            .collect()
    }

    /// The estimate of the first message counted over these contents.
    pub fn estimate(&self) -> &OnceLock<Estimated> {
        &self.estimate
    }
}

impl std::ops::Deref for Contents {
    type Target = Vec<Value>;
    fn deref(&self) -> &Vec<Value> {
        &self.list
    }
}

/// `_aggregate_origin_session_ids`: the string `_attribution.origin_session_ids` of `msgs`,
/// first seen first, each once.
pub fn origin_session_ids<'a>(msgs: impl IntoIterator<Item = &'a AfMsg>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in msgs {
        let ids = m
            .props
            .get("_attribution")
            .and_then(|a| a.get("origin_session_ids"))
            .and_then(Value::as_array);
        for id in ids.into_iter().flatten().filter_map(Value::as_str) {
            if !out.iter().any(|seen| seen == id) {
                out.push(id.to_string());
            }
        }
    }
    out
}

/// `map.get(key)`: the same entry, found by a scan while the map is as small as a content
/// dict, a message's properties or an annotation (no hashing of the key).
pub fn get<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() > 12 {
        return map.get(key);
    }
    map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
}

/// `c.get(key)` of a dict (`None` for anything else).
fn value_get<'a>(c: &'a Value, key: &str) -> Option<&'a Value> {
    get(c.as_object()?, key)
}

/// A content's `type`.
pub fn ctype(c: &Value) -> &str {
    value_get(c, "type")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// A string field of a content dict.
pub fn field<'a>(c: &'a Value, key: &str) -> Option<&'a str> {
    value_get(c, key).and_then(Value::as_str)
}

/// A present, non-null field.
pub fn present<'a>(c: &'a Value, key: &str) -> Option<&'a Value> {
    value_get(c, key).filter(|v| !v.is_null())
}

/// Python truthiness of a JSON value.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// The messages the framework would hold for this session, in order, each raw record read
/// through `parsed` when given (a record read by an earlier plan is not parsed again).
pub fn from_session_with(session: &Session, parsed: Option<&Parsed>) -> Vec<AfMsg> {
    if parsed.is_none() {
        // A plan made once (no records carried across plans) converts on every core.
        let each = |m: &Message| from_message_with(session, m, None);
        return crate::par::map(&session.messages, 256, each, |_| {})
            .into_iter()
            .flatten()
            .collect();
    }
    session
        .messages
        .iter()
        .filter_map(|m| from_message_with(session, m, parsed))
        .collect()
}

/// The framework's messages for `messages` (some of `session`'s), each raw record read through
/// `parsed` when given.
pub fn from_messages_with<'a>(
    session: &'a Session,
    messages: &'a [Message],
    parsed: Option<&'a Parsed>,
) -> impl Iterator<Item = AfMsg> + 'a {
    messages
        .iter()
        .filter_map(move |m| from_message_with(session, m, parsed))
}

/// The framework's message for one message of `session`, if it holds one.
pub fn from_message(session: &Session, m: &Message) -> Option<AfMsg> {
    from_message_with(session, m, None)
}

fn from_message_with(session: &Session, m: &Message, parsed: Option<&Parsed>) -> Option<AfMsg> {
    let native = (session.format == Format::AGENT_FRAMEWORK)
        .then(|| from_bytes(&session.raw_record(m)?, m.index, parsed))
        .flatten();
    native.or_else(|| from_model(m, parsed))
}

/// The framework's message of a record's bytes, standing for session message `origin`.
fn from_bytes(bytes: &[u8], origin: usize, parsed: Option<&Parsed>) -> Option<AfMsg> {
    let read = |b: &[u8]| {
        serde_json::from_slice::<Value>(b)
            .ok()
            .and_then(|record| from_record(&record, 0))
    };
    let mut msg = match parsed {
        Some(p) => p.get_or_parse(bytes, read).as_ref().clone()?,
        None => read(bytes)?,
    };
    msg.origin = Some(origin);
    Some(msg)
}

/// The framework's message of one `Message.to_dict()` record.
fn from_record(record: &Value, origin: usize) -> Option<AfMsg> {
    if !matches!(field(record, "type"), Some("message" | "chat_message")) {
        return None;
    }
    let contents = Contents::new(record.get("contents")?.as_array()?.clone());
    let role = record.get("role")?;
    let role = role.as_str().or_else(|| field(role, "value"))?.to_string();
    const OWN: &[&str] = &[
        "type",
        "role",
        "contents",
        "message_id",
        "additional_properties",
    ];
    let extra = record
        .as_object()?
        .iter()
        .filter(|(k, _)| !OWN.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Some(AfMsg {
        role,
        id: field(record, "message_id").map(str::to_string),
        contents,
        props: Arc::new(
            record
                .get("additional_properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        ),
        extra,
        origin: Some(origin),
        known: Known::default(),
    })
}

/// An excluded message kept in the common model as an event holding its record.
fn from_excluded(m: &Message, parsed: Option<&Parsed>) -> Option<AfMsg> {
    match m.parts.as_slice() {
        [Part::Opaque { kind, raw }] if kind == EXCLUDED_KIND => {
            from_bytes(raw.as_bytes(), m.index, parsed)
        }
        _ => None,
    }
}

/// A message of another format as the framework's `Content` dicts.
fn from_model(m: &Message, parsed: Option<&Parsed>) -> Option<AfMsg> {
    let role = match m.role {
        Role::System | Role::Developer => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::Event => return from_excluded(m, parsed),
    };
    let make = || AfMsg {
        role: role.into(),
        id: m.id.clone(),
        contents: Contents::of_model(m.parts.iter().map(content_of).collect()),
        props: Arc::default(),
        extra: Map::new(),
        origin: None,
        known: Known::default(),
    };
    let mut msg = match parsed {
        Some(p) => p.get_or_make(model_key(m), make).as_ref().clone(),
        None => make(),
    };
    msg.origin = Some(m.index);
    Some(msg)
}

/// A text content.
fn text_content(text: &str) -> Value {
    json!({"type": "text", "text": text, "additional_properties": {}})
}

fn content_of(part: &Part) -> Value {
    match part {
        Part::Text { text } | Part::Summary { text } => text_content(text),
        Part::Reasoning { text, .. } => {
            json!({"type": "text_reasoning", "text": text, "additional_properties": {}})
        }
        Part::ToolCall {
            id,
            name,
            arguments,
            server,
        } => {
            let args = match serde_json::from_str::<Value>(arguments) {
                Ok(v @ Value::Object(_)) => v,
                _ => Value::String(arguments.clone()),
            };
            json!({"type": "function_call", "call_id": id, "name": name, "arguments": args,
                   "hosted": server, "additional_properties": {}})
        }
        Part::ToolResult {
            call_id,
            content,
            is_error,
        } => {
            let mut c = match content.as_slice() {
                // The text once: `Contents::dicts` writes the items back.
                [Part::Text { text }] if !text.is_empty() => {
                    json!({"type": "function_result", "call_id": call_id, "result": text,
                           "additional_properties": {}})
                }
                _ => {
                    let items: Vec<Value> = content.iter().map(content_of).collect();
                    json!({"type": "function_result", "call_id": call_id,
                           "result": part.plain_text(), "items": items,
                           "additional_properties": {}})
                }
            };
            if *is_error == Some(true) {
                c["exception"] = json!("FunctionInvocationError");
            }
            c
        }
        Part::Image(img) => {
            let uri = img.url.clone().unwrap_or_default();
            json!({"type": "uri", "uri": uri, "media_type": img.media_type, "additional_properties": {}})
        }
        Part::Opaque { kind, .. } => json!({"type": kind, "additional_properties": {}}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool result rebuilt from the common model with one text holds that text once and is
    /// written back whole: `to_dict` puts its items (one text item of the result) after
    /// `result`, and the summary rendering gives the same line with the items or without.
    /// Fails when `dicts` leaves the items out or puts them elsewhere.
    #[test]
    fn a_result_holds_its_text_once_and_is_written_with_its_items() {
        let (mut results, mut held_once) = (0, 0);
        for rel in [
            "fixtures/claude-code/mixed.jsonl",
            "fixtures/samples/claude-code-demo.jsonl",
            "fixtures/codex/local-compaction.jsonl",
        ] {
            let session = crate::formats::load_path(std::path::Path::new(rel), None)
                .unwrap_or_else(|e| panic!("{rel}: {e}"));
            for m in &session.messages {
                let Some(af) = from_message(&session, m) else {
                    continue;
                };
                let written = af.to_dict();
                let written = written["contents"].as_array().cloned().unwrap_or_default();
                assert_eq!(written.len(), af.contents.len());
                for (held, written) in af.contents.iter().zip(&written) {
                    if ctype(held) != "function_result" {
                        continue;
                    }
                    results += 1;
                    let keys: Vec<&str> = written
                        .as_object()
                        .map(|o| o.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    assert_eq!(
                        keys[..5],
                        [
                            "type",
                            "call_id",
                            "result",
                            "items",
                            "additional_properties"
                        ]
                    );
                    if held.get("items").is_some() {
                        continue;
                    }
                    held_once += 1;
                    let text = field(held, "result").unwrap_or_default();
                    assert!(!text.is_empty());
                    assert_eq!(written["items"], json!([text_content(text)]));
                    assert_eq!(
                        super::super::render::format_content(held),
                        super::super::render::format_content(written)
                    );
                }
            }
        }
        assert!(
            results >= 5 && held_once >= 3,
            "{results} results, {held_once} held once"
        );
    }
}
