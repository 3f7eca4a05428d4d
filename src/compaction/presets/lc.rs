//! A LangChain-message view of a session (SystemMessage, HumanMessage, AIMessage, ToolMessage),
//! for presets of frameworks built on LangChain. Exact for sessions in LangChain's own format
//! (read from the raw record); built from the common model for every other format.

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

/// One LangChain message and the session message it stands for.
#[derive(Debug, Clone)]
pub struct LcMessage {
    pub index: usize,
    pub kind: LcKind,
    /// `message.__class__.__name__`.
    pub class: &'static str,
    /// `content`: a string, or a list of content blocks.
    pub content: Value,
    /// `(name, args)` of each tool call.
    pub tool_calls: Vec<(String, Value)>,
}

impl LcMessage {
    /// LangChain-side `_first_text` (dimos): a string content stripped, else the first `text`
    /// block's text stripped (bare strings and other blocks do not count), else empty.
    /// Borrowed from the message where the text is a string (as good as always).
    pub fn first_text(&self) -> Cow<'_, str> {
        let text = match &self.content {
            Value::String(s) => s,
            Value::Array(blocks) => match blocks
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
pub fn messages(session: &Session) -> Vec<LcMessage> {
    session
        .messages
        .iter()
        .filter_map(|m| message(session, m))
        .collect()
}

/// One message of `session` as `messages` gives it (`None`: it gives none for it).
pub fn message(session: &Session, m: &Message) -> Option<LcMessage> {
    let native = session.format == Format::LANGCHAIN;
    if let Some(lc) = native.then(|| from_raw(session, m)).flatten() {
        return Some(lc);
    }
    messages_of(m)
}

/// A message of a session in another format as its LangChain view (`None` for an event).
pub fn messages_of(m: &Message) -> Option<LcMessage> {
    let kind = match m.role {
        Role::System | Role::Developer => LcKind::System,
        Role::User => LcKind::Human,
        Role::Assistant => LcKind::Ai,
        Role::Tool => LcKind::Tool,
        Role::Event => return None,
    };
    Some(from_model(m, kind))
}

fn from_raw(session: &Session, m: &Message) -> Option<LcMessage> {
    let record: Value = serde_json::from_slice(&session.raw_record(m)?).ok()?;
    let (kind, class) = class_of(record.get("type")?.as_str()?)?;
    let data = record.get("data")?;
    let content = data.get("content")?.clone();
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

fn from_model(m: &Message, kind: LcKind) -> LcMessage {
    let mut texts: Vec<String> = Vec::new();
    let mut images: Vec<Value> = Vec::new();
    let mut tool_calls = Vec::new();
    for part in &m.parts {
        match part {
            Part::Text { text } | Part::Summary { text } => texts.push(text.clone()),
            Part::ToolResult { .. } => texts.push(part.plain_text()),
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
    let text = texts.join("\n");
    let content = if images.is_empty() {
        Value::String(text)
    } else {
        let mut blocks = Vec::new();
        if !text.is_empty() {
            blocks.push(json!({"type": "text", "text": text}));
        }
        blocks.extend(images);
        Value::Array(blocks)
    };
    LcMessage {
        index: m.index,
        kind,
        class: kind.class_name(),
        content,
        tool_calls,
    }
}
