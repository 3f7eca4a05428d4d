//! A LangChain-message view of a session (SystemMessage, HumanMessage, AIMessage, ToolMessage),
//! for presets of frameworks built on LangChain. Exact for sessions in LangChain's own format
//! (read from the raw record); built from the common model for every other format.

use serde_json::{json, Value};

use crate::session::{Format, Message, Part, Role, Session};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LcKind {
    System,
    Human,
    Ai,
    Tool,
}

impl LcKind {
    pub fn class_name(self) -> &'static str {
        match self {
            LcKind::System => "SystemMessage",
            LcKind::Human => "HumanMessage",
            LcKind::Ai => "AIMessage",
            LcKind::Tool => "ToolMessage",
        }
    }
}

/// One LangChain message and the session message it stands for.
#[derive(Debug, Clone)]
pub struct LcMessage {
    pub index: usize,
    pub kind: LcKind,
    /// `content`: a string, or a list of content blocks.
    pub content: Value,
    /// `(name, args)` of each tool call.
    pub tool_calls: Vec<(String, Value)>,
}

impl LcMessage {
    /// The first text of the content: the string itself, or the first `text` block's text.
    pub fn first_text(&self) -> String {
        match &self.content {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .find_map(|b| match b {
                    Value::String(s) => Some(s.clone()),
                    _ if b.get("type").and_then(Value::as_str) == Some("text") => {
                        b.get("text").and_then(Value::as_str).map(str::to_string)
                    }
                    _ => None,
                })
                .unwrap_or_default(),
            _ => String::new(),
        }
    }
}

/// The session's model-visible messages as LangChain messages (events left out).
pub fn messages(session: &Session) -> Vec<LcMessage> {
    session
        .messages
        .iter()
        .filter_map(|m| {
            let kind = match m.role {
                Role::System | Role::Developer => LcKind::System,
                Role::User => LcKind::Human,
                Role::Assistant => LcKind::Ai,
                Role::Tool => LcKind::Tool,
                Role::Event => return None,
            };
            let native = (session.format == Format::LangChain)
                .then(|| from_raw(session, m, kind))
                .flatten();
            Some(native.unwrap_or_else(|| from_model(m, kind)))
        })
        .collect()
}

fn from_raw(session: &Session, m: &Message, kind: LcKind) -> Option<LcMessage> {
    let record: Value = serde_json::from_slice(session.raw_record(m)?).ok()?;
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
        content,
        tool_calls,
    }
}
