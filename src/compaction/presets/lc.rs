//! A LangChain-message view of a session (SystemMessage, HumanMessage, AIMessage, ToolMessage),
//! for presets of frameworks built on LangChain. Exact for sessions in LangChain's own format
//! (read from the raw record); built from the common model for every other format.
//!
//! Owns: which class each message is, its `content` and its tool calls. The view lends the
//! session's texts: a message's text content is the session's own string where one text makes
//! it, and a copy only where several are joined or a native record is parsed. Whatever must
//! outlive the session converts it to an owned value (`LcContent::into_value`).

use std::borrow::Cow;

use serde_json::{json, Value};

use crate::pyrepr;
use crate::session::{Format, Message, Part, Role, Session};

/// What a message is an instance of, as far as presets ask (`isinstance(m, SystemMessage)` …):
/// chunks count as their message class; `ChatMessage`, `FunctionMessage` and `RemoveMessage`
/// are none of the four.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LcKind {
    System,
    Human,
    Ai,
    Tool,
    Other,
}

impl LcKind {
    pub fn class_name(self) -> &'static str {
        match self {
            LcKind::System => "SystemMessage",
            LcKind::Human => "HumanMessage",
            LcKind::Ai => "AIMessage",
            LcKind::Tool => "ToolMessage",
            LcKind::Other => "ChatMessage",
        }
    }
}

/// The class `messages_from_dict` builds for a record's `type`, and what it is an instance of.
fn class_of(record_type: &str) -> Option<(LcKind, &'static str)> {
    Some(match record_type {
        "human" => (LcKind::Human, "HumanMessage"),
        "ai" => (LcKind::Ai, "AIMessage"),
        "system" => (LcKind::System, "SystemMessage"),
        "chat" => (LcKind::Other, "ChatMessage"),
        "function" => (LcKind::Other, "FunctionMessage"),
        "tool" => (LcKind::Tool, "ToolMessage"),
        "remove" => (LcKind::Other, "RemoveMessage"),
        "AIMessageChunk" => (LcKind::Ai, "AIMessageChunk"),
        "HumanMessageChunk" => (LcKind::Human, "HumanMessageChunk"),
        "FunctionMessageChunk" => (LcKind::Other, "FunctionMessageChunk"),
        "ToolMessageChunk" => (LcKind::Tool, "ToolMessageChunk"),
        "SystemMessageChunk" => (LcKind::System, "SystemMessageChunk"),
        "ChatMessageChunk" => (LcKind::Other, "ChatMessageChunk"),
        _ => return None,
    })
}

/// A message's `content`: a string, or what else LangChain holds there.
#[derive(Debug, Clone, PartialEq)]
pub enum LcContent<'a> {
    /// A string content: lent by the session where one text makes it.
    Text(Cow<'a, str>),
    /// Anything but a string: a list of content blocks, or whatever a native record holds.
    Json(Value),
}

impl LcContent<'_> {
    /// The content a JSON value is: a string as text, anything else as it is.
    pub fn from_value(value: Value) -> LcContent<'static> {
        match value {
            Value::String(s) => LcContent::Text(Cow::Owned(s)),
            other => LcContent::Json(other),
        }
    }

    /// The content as the JSON value LangChain serialises, owned.
    pub fn into_value(self) -> Value {
        match self {
            LcContent::Text(text) => Value::String(text.into_owned()),
            LcContent::Json(value) => value,
        }
    }
}

/// One LangChain message and the session message it stands for.
#[derive(Debug, Clone)]
pub struct LcMessage<'a> {
    pub index: usize,
    pub kind: LcKind,
    /// `message.__class__.__name__`.
    pub class: &'static str,
    /// `content`: a string, or a list of content blocks.
    pub content: LcContent<'a>,
    /// `(name, args)` of each tool call.
    pub tool_calls: Vec<(String, Value)>,
}

impl LcMessage<'_> {
    /// LangChain-side `_first_text` (dimos): a string content stripped, else the first `text`
    /// block's text stripped (bare strings and other blocks do not count), else empty.
    /// Borrowed from the message where the text is a string (as good as always).
    pub fn first_text(&self) -> Cow<'_, str> {
        let text: &str = match &self.content {
            LcContent::Text(s) => s,
            LcContent::Json(Value::Array(blocks)) => match blocks
                .iter()
                .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .and_then(|b| b.get("text"))
            {
                Some(Value::String(s)) => s,
                Some(other) => return Cow::Owned(py_strip(&pyrepr::str_of(other)).to_string()),
                None => return Cow::Borrowed(""),
            },
            _ => return Cow::Borrowed(""),
        };
        Cow::Borrowed(py_strip(text))
    }
}

/// Python's `str.strip()`: Unicode whitespace and the \x1c–\x1f separators off both ends.
fn py_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// The session's messages as LangChain messages. A session in LangChain's own format gives
/// every record `messages_from_dict` accepts (a `ChatMessage` too, which the common model keeps
/// as an event); any other format gives its model-visible messages (events left out).
pub fn messages(session: &Session) -> Vec<LcMessage<'_>> {
    session
        .messages
        .iter()
        .filter_map(|m| message(session, m))
        .collect()
}

/// One message of `session` as `messages` gives it (`None`: it gives none for it).
pub fn message<'a>(session: &Session, m: &'a Message) -> Option<LcMessage<'a>> {
    let native = session.format == Format::LANGCHAIN;
    if let Some(lc) = native.then(|| from_raw(session, m)).flatten() {
        return Some(lc);
    }
    messages_of(m)
}

/// A message of a session in another format as its LangChain view (`None` for an event).
pub fn messages_of(m: &Message) -> Option<LcMessage<'_>> {
    let kind = match m.role {
        Role::System | Role::Developer => LcKind::System,
        Role::User => LcKind::Human,
        Role::Assistant => LcKind::Ai,
        Role::Tool => LcKind::Tool,
        Role::Event => return None,
    };
    Some(from_model(m, kind))
}

fn from_raw(session: &Session, m: &Message) -> Option<LcMessage<'static>> {
    let mut record: Value = serde_json::from_slice(&session.raw_record(m)?).ok()?;
    let (kind, class) = class_of(record.get("type")?.as_str()?)?;
    let content = LcContent::from_value(record.get_mut("data")?.get_mut("content")?.take());
    let data = record.get("data")?;
    let tool_calls = data
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .map(|c| {
                    let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
                    (
                        name.to_string(),
                        c.get("args").cloned().unwrap_or(json!({})),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Some(LcMessage {
        index: m.index,
        kind,
        class,
        content,
        tool_calls,
    })
}

/// A message of the common model: its texts, and its tool results' texts, joined by line
/// breaks (lent when there is one), with image blocks after them when it has images.
fn from_model(m: &Message, kind: LcKind) -> LcMessage<'_> {
    let mut texts: Vec<Cow<'_, str>> = Vec::new();
    let mut images: Vec<Value> = Vec::new();
    let mut tool_calls = Vec::new();
    for part in &m.parts {
        match part {
            Part::Text { text } | Part::Summary { text } => texts.push(Cow::Borrowed(text)),
            Part::ToolResult { .. } => texts.push(part.plain_cow()),
            Part::Image(img) => images.push(json!({
                "type": "image_url",
                "image_url": {"url": img.url.clone().unwrap_or_default()},
            })),
            Part::ToolCall {
                name, arguments, ..
            } => {
                let args = serde_json::from_str::<Value>(arguments)
                    .unwrap_or_else(|_| Value::String(arguments.clone()));
                tool_calls.push((name.clone(), args));
            }
            Part::Reasoning { .. } | Part::Opaque { .. } => {}
        }
    }
    let text = match texts.len() {
        0 => Cow::Borrowed(""),
        1 => texts.swap_remove(0),
        _ => Cow::Owned(texts.join("\n")),
    };
    let content = if images.is_empty() {
        LcContent::Text(text)
    } else {
        let mut blocks = Vec::new();
        if !text.is_empty() {
            blocks.push(json!({"type": "text", "text": text}));
        }
        blocks.extend(images);
        LcContent::Json(Value::Array(blocks))
    };
    LcMessage {
        index: m.index,
        kind,
        class: kind.class_name(),
        content,
        tool_calls,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::ImageRef;

    fn tool_result(texts: &[&str]) -> Part {
        Part::ToolResult {
            call_id: "c".into(),
            content: texts.iter().map(|t| Part::text(*t)).collect(),
            is_error: None,
        }
    }

    fn message(role: Role, parts: Vec<Part>) -> Message {
        let mut m = Message::new(role, 0);
        m.parts = parts;
        m
    }

    /// The content as it was built from copies: every text, and every tool result's text,
    /// joined by line breaks.
    fn joined(m: &Message) -> String {
        m.parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } | Part::Summary { text } => Some(text.clone()),
                Part::ToolResult { .. } => Some(p.plain_text()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A message of one text, or of one tool result of one text, lends the session's string;
    /// several are joined into a copy, empty texts keeping their line breaks.
    #[test]
    fn one_text_is_lent_and_several_are_joined() {
        let lent = [
            message(Role::User, vec![Part::text("ask")]),
            message(Role::Tool, vec![tool_result(&["out"])]),
            message(
                Role::Assistant,
                vec![
                    Part::Reasoning {
                        text: "why".into(),
                        opaque_len: 0,
                    },
                    Part::text("done"),
                    Part::ToolCall {
                        id: "c".into(),
                        name: "run".into(),
                        arguments: "{\"x\": 1}".into(),
                        server: false,
                    },
                ],
            ),
        ];
        for m in &lent {
            let lc = messages_of(m).unwrap();
            assert!(
                matches!(&lc.content, LcContent::Text(Cow::Borrowed(t)) if *t == joined(m)),
                "{m:?}"
            );
        }
        let copied = [
            message(Role::User, vec![Part::text(""), Part::text("a")]),
            message(Role::User, vec![tool_result(&["a", "b"])]),
            message(Role::User, vec![tool_result(&["a"]), tool_result(&[])]),
            message(
                Role::User,
                vec![Part::Summary { text: "s".into() }, Part::text("t")],
            ),
        ];
        for m in &copied {
            let lc = messages_of(m).unwrap();
            assert!(
                matches!(&lc.content, LcContent::Text(Cow::Owned(t)) if *t == joined(m)),
                "{m:?}"
            );
        }
        let empty = message(Role::Assistant, vec![]);
        assert_eq!(
            messages_of(&empty).unwrap().content,
            LcContent::Text(Cow::Borrowed(""))
        );
    }

    /// A message with an image is a list of blocks: its text first (when it has one), then the
    /// images; its content serialises as that list.
    #[test]
    fn images_make_a_block_list() {
        let img = Part::Image(ImageRef {
            url: Some("https://x/y.png".into()),
            ..ImageRef::default()
        });
        let m = message(Role::User, vec![Part::text("see"), img.clone()]);
        let content = messages_of(&m).unwrap().content;
        assert_eq!(
            content.into_value(),
            json!([
                {"type": "text", "text": "see"},
                {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
            ])
        );
        let only = message(Role::User, vec![img]);
        assert_eq!(
            messages_of(&only).unwrap().content.into_value(),
            json!([{"type": "image_url", "image_url": {"url": "https://x/y.png"}}])
        );
    }

    /// A JSON string is text content and goes back as the same string; anything else is kept.
    #[test]
    fn content_goes_back_to_the_json_it_came_from() {
        for v in [
            json!("x"),
            json!(""),
            json!([{"type": "text", "text": "t"}]),
            json!(null),
            json!(3),
        ] {
            let c = LcContent::from_value(v.clone());
            assert_eq!(matches!(c, LcContent::Text(_)), v.is_string());
            assert_eq!(c.into_value(), v);
        }
    }
}
