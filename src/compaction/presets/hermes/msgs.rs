//! Hermes' in-memory history: OpenAI chat dicts, read from the raw records when the session is
//! in `openai-chat` (exact: the estimators run over Python's `str()` of the whole dict), built
//! from the common model for every other format. Also owns Hermes' two estimators.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::py;
use crate::pyrepr;
use crate::session::{Format, Message, Part, Role, Session};

/// One Hermes message dict and the session message it stands for. The dict is shared: Hermes
/// copies its list before pruning it (`messages.copy()`, a shallow copy), and a message the
/// pruning leaves alone is not copied again here either (`v_mut` copies on write).
#[derive(Debug, Clone)]
pub struct HMsg {
    pub index: usize,
    pub v: Arc<Map<String, Value>>,
}

impl HMsg {
    pub fn new(index: usize, v: Map<String, Value>) -> HMsg {
        HMsg {
            index,
            v: Arc::new(v),
        }
    }
    /// The dict, to change (copied first when another list shares it).
    pub fn v_mut(&mut self) -> &mut Map<String, Value> {
        Arc::make_mut(&mut self.v)
    }
    pub fn role(&self) -> &str {
        self.v.get("role").and_then(Value::as_str).unwrap_or("")
    }
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.v.get(key)
    }
    pub fn content(&self) -> &Value {
        self.v.get("content").unwrap_or(&Value::Null)
    }
    /// `msg.get("tool_calls") or []` (dict entries only).
    pub fn tool_calls(&self) -> Vec<&Map<String, Value>> {
        match self.v.get("tool_calls") {
            Some(Value::Array(calls)) => calls.iter().filter_map(Value::as_object).collect(),
            _ => Vec::new(),
        }
    }
    pub fn has_tool_calls(&self) -> bool {
        self.v.get("tool_calls").is_some_and(py::truthy)
    }
}

/// The session's messages as Hermes dicts (events left out).
pub fn messages(session: &Session) -> Vec<HMsg> {
    session
        .messages
        .iter()
        .filter_map(|m| message(session, m))
        .collect()
}

/// One message of `session` as `messages` gives it (`None` for an event).
pub fn message(session: &Session, m: &Message) -> Option<HMsg> {
    if m.role == Role::Event {
        return None;
    }
    let native = (session.format == Format::OPENAI_CHAT)
        .then(|| from_raw(session, m))
        .flatten();
    Some(HMsg::new(m.index, native.unwrap_or_else(|| from_model(m))))
}

fn from_raw(session: &Session, m: &Message) -> Option<Map<String, Value>> {
    let record: Value = serde_json::from_slice(&session.raw_record(m)?).ok()?;
    let map = record.as_object()?.clone();
    map.get("role")?.as_str()?;
    Some(map)
}

fn from_model(m: &Message) -> Map<String, Value> {
    let role = match m.role {
        Role::System | Role::Developer => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool | Role::Event => "tool",
    };
    let mut texts: Vec<String> = Vec::new();
    let mut images = 0usize;
    let mut calls = Vec::new();
    let mut reasoning = Vec::new();
    let mut call_id = None;
    for part in &m.parts {
        match part {
            Part::Text { text } | Part::Summary { text } => texts.push(text.clone()),
            Part::ToolResult {
                call_id: id,
                content,
                ..
            } => {
                call_id = Some(id.clone());
                texts.push(part.plain_text());
                images += content
                    .iter()
                    .filter(|p| matches!(p, Part::Image(_)))
                    .count();
            }
            Part::Image(_) => images += 1,
            Part::ToolCall {
                id,
                name,
                arguments,
                ..
            } => calls.push(json!({"id": id, "type": "function",
                "function": {"name": name, "arguments": arguments}})),
            Part::Reasoning { text, .. } => reasoning.push(text.clone()),
            Part::Opaque { .. } => {}
        }
    }
    let text = texts.join("\n");
    let content = if images == 0 {
        Value::String(text)
    } else {
        let mut blocks = Vec::new();
        if !text.is_empty() {
            blocks.push(json!({"type": "text", "text": text}));
        }
        blocks.extend((0..images).map(|_| json!({"type": "image_url", "image_url": {"url": ""}})));
        Value::Array(blocks)
    };
    let mut v = Map::new();
    v.insert("role".into(), role.into());
    v.insert("content".into(), content);
    if !reasoning.is_empty() {
        v.insert("reasoning".into(), reasoning.join("\n").into());
    }
    if !calls.is_empty() {
        v.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(id) = call_id {
        v.insert("tool_call_id".into(), id.into());
    }
    v
}

pub fn is_image_part(p: &Value) -> bool {
    matches!(
        p.get("type").and_then(Value::as_str),
        Some("image" | "image_url" | "input_image")
    )
}

/// `estimate_messages_tokens_rough`: `(Σ len(str(shadow)) + 3)//4 + 1500·images`, the
/// messages measured on every core.
pub fn estimate_messages(msgs: &[HMsg]) -> u64 {
    let (chars, images) = crate::par::map(msgs, 256, rough_size, |_| {})
        .into_iter()
        .fold((0, 0), |(c, n), (mc, mn)| (c + mc, n + mn));
    rough_tokens(chars, images)
}

/// `estimate_messages_tokens_rough` of a history whose messages measure `chars` characters
/// and hold `images` images in all (`rough_size`).
pub fn rough_tokens(chars: usize, images: usize) -> u64 {
    (chars.div_ceil(4) + images * 1500) as u64
}

/// One message's share of `estimate_messages_tokens_rough`: `len(str(shadow))` and its images.
/// The shadow (the message without `_anthropic_content_blocks`, each image part replaced by a
/// stub) is measured in place, not built.
pub fn rough_size(m: &HMsg) -> (usize, usize) {
    let mut images = 0usize;
    let entries =
        m.v.iter()
            .filter(|(k, _)| *k != "_anthropic_content_blocks")
            .map(|(k, v)| {
                let len = match (k.as_str(), v) {
                    ("content", Value::Array(parts)) => {
                        pyrepr::list_repr_chars(parts.iter().map(|p| {
                            if is_image_part(p) {
                                images += 1;
                                pyrepr::repr_chars(&image_stub(p))
                            } else {
                                pyrepr::repr_chars(p)
                            }
                        }))
                    }
                    _ => pyrepr::repr_chars(v),
                };
                (k.as_str(), len)
            });
    let chars = pyrepr::dict_entries_repr_chars(entries);
    (chars, images)
}

/// What the estimate puts in an image part's place.
fn image_stub(p: &Value) -> Value {
    json!({"type": p.get("type").cloned().unwrap_or(Value::Null), "image": "[stripped]"})
}

const REPLAY_BUDGET_KEYS: &[&str] = &[
    "reasoning",
    "reasoning_content",
    "reasoning_details",
    "codex_reasoning_items",
    "codex_message_items",
];

/// `_estimate_msg_budget_tokens`: the tail walks' per-message estimate.
pub fn budget_tokens(m: &HMsg) -> usize {
    let content_len = content_length_for_budget(m.content());
    let mut tokens = content_len / 4 + 10;
    for tc in m.tool_calls() {
        tokens += pyrepr::dict_repr_chars(tc) / 4;
    }
    for key in REPLAY_BUDGET_KEYS {
        let n = match m.get(key) {
            None | Some(Value::Null) => 0,
            Some(Value::String(s)) => py::len(s),
            Some(v) => py::len(&py::dumps(v, true)),
        };
        tokens += n / 4;
    }
    tokens
}

fn content_length_for_budget(content: &Value) -> usize {
    match content {
        Value::String(s) => py::len(s),
        Value::Null => 0,
        Value::Array(parts) => parts
            .iter()
            .map(|p| match p {
                Value::String(s) => py::len(s),
                Value::Object(_) if is_image_part(p) => 6400,
                Value::Object(o) => o
                    .get("text")
                    .filter(|t| py::truthy(t))
                    .map_or(0, |t| py::len(&py::str_of(t))),
                other => pyrepr::str_of_chars(other),
            })
            .sum(),
        other if !py::truthy(other) => 0,
        other => pyrepr::str_of_chars(other),
    }
}

/// `_content_text_for_contains`.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|i| match i {
                Value::String(s) => Some(s.as_str()),
                Value::Object(o) => o.get("text").and_then(Value::as_str),
                _ => None,
            })
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        other => pyrepr::str_of(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate as Hermes computes it: the shadow built, then its repr's length.
    fn rough_size_built(m: &HMsg) -> (usize, usize) {
        let mut images = 0usize;
        let mut shadow = Map::new();
        for (k, v) in m.v.iter() {
            if k == "_anthropic_content_blocks" {
                continue;
            }
            let value = match (k.as_str(), v) {
                ("content", Value::Array(parts)) => Value::Array(
                    parts
                        .iter()
                        .map(|p| {
                            if is_image_part(p) {
                                images += 1;
                                image_stub(p)
                            } else {
                                p.clone()
                            }
                        })
                        .collect(),
                ),
                _ => v.clone(),
            };
            shadow.insert(k.clone(), value);
        }
        (py::len(&pyrepr::repr(&Value::Object(shadow))), images)
    }

    /// Measured in place, every message of the fixtures' sessions (Claude Code, Codex, chat
    /// logs with images, parallel calls and hostile text) and a few hand-made shapes measures
    /// what the built shadow does. Fails when a separator, a skipped key or an image stub is
    /// charged wrongly.
    #[test]
    fn rough_size_in_place_is_the_built_shadow_s() {
        let mut shapes: Vec<HMsg> = [
            json!({"role": "user", "content": []}),
            json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:x"}}]}),
            json!({"_anthropic_content_blocks": [1], "role": "assistant", "content": "it's"}),
            json!({"_anthropic_content_blocks": [1]}),
            json!({"content": [{"type": "input_image"}, {"type": "text", "text": "a\u{7f}"}], "x": null}),
        ]
        .into_iter()
        .filter_map(|v| v.as_object().cloned())
        .map(|v| HMsg::new(0, v))
        .collect();
        let mut sessions = 0;
        for dir in [
            "fixtures/claude-code",
            "fixtures/codex",
            "fixtures/openai-chat",
            "fixtures/hostile",
        ] {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(session) = crate::formats::load_path(&entry.path(), None) else {
                    continue;
                };
                sessions += 1;
                shapes.extend(session.messages.iter().filter_map(|m| message(&session, m)));
            }
        }
        assert!(
            sessions >= 5 && shapes.len() > 100,
            "{sessions} sessions, {} messages",
            shapes.len()
        );
        let with_images = shapes.iter().filter(|m| rough_size_built(m).1 > 0).count();
        assert!(with_images >= 2);
        for m in &shapes {
            assert_eq!(rough_size(m), rough_size_built(m), "{:?}", m.v);
        }
    }
}
