//! The event records the OpenHands condenser sees, in file order, each with the session
//! message it became (if any).
//!
//! Owns: reading the raw OpenHands records (`session.raw_record` for messages; the bytes
//! between them for the records that are no message — `CondensationRequest`, state updates,
//! the later actions of a batch, a `Condensation` without summary) and, for every other
//! format, synthesizing OpenHands-shaped event JSON from the common model so the rest of the
//! preset works on one shape. It must not decide anything about condensation.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::session::{Format, Message, Part, Role, Session};

/// One source record, as the SDK's `Event.model_validate_json` would see it.
#[derive(Debug, Clone)]
pub struct Record {
    pub value: Value,
    /// The session message this record is part of.
    pub msg: Option<usize>,
}

impl Record {
    pub fn kind(&self) -> &str {
        self.value.get("kind").and_then(Value::as_str).unwrap_or("")
    }
}

/// All records of the session in order. A `Condensation` is applied only where the session
/// holds it as one of its compactions (a `condensation` mark): a replay's history holds none
/// of the file's own (the preset's are replayed instead). `every_core`: synthesized records
/// are made on every core (`PlanInput::every_core`).
pub fn records(session: &Session, every_core: bool) -> Vec<Record> {
    if session.format == Format::OPENHANDS {
        raw_records(session)
    } else {
        synthesized(session, every_core)
    }
}

fn raw_records(session: &Session) -> Vec<Record> {
    let buffer = session.buffer.as_slice();
    let mut out: Vec<Record> = Vec::new();
    let mut cursor = 0usize;
    let mut spans: Vec<(usize, usize, usize)> = session
        .messages
        .iter()
        .filter_map(|m| m.raw.clone().map(|r| (r.start, r.end, m.index)))
        .collect();
    spans.sort_unstable();
    let mut last = None;
    for (start, end, index) in spans {
        if start < cursor || end > buffer.len() || start > end {
            continue;
        }
        gap_records(
            buffer.get(cursor..start).unwrap_or_default(),
            usize::MAX,
            &mut out,
        );
        let value = buffer
            .get(start..end)
            .and_then(|b| serde_json::from_slice::<Value>(b).ok())
            .unwrap_or(Value::Null);
        out.push(Record {
            value,
            msg: Some(index),
        });
        cursor = end;
        last = Some(index);
    }
    let rest = buffer.get(cursor..).unwrap_or_default();
    gap_records(rest, trailing_records(session, last), &mut out);
    attach_batches(&mut out);
    if !session.marks.iter().any(|m| m.kind == "condensation") {
        out.retain(|r| r.kind() != "Condensation");
    }
    out
}

/// How many records of the session follow its last message's record: the buffer may hold
/// more (a replay's history shares the whole file's bytes), and those are not the session's.
fn trailing_records(session: &Session, last: Option<usize>) -> usize {
    let records = &session.source.record_indices;
    if records.is_empty() {
        // A history that holds nothing yet (a replay before its first message) has no records
        // of its own; a source without a list of records has all the buffer's.
        let nothing_yet = session.messages.is_empty() && session.source.records == 0;
        return if nothing_yet { 0 } else { usize::MAX };
    }
    let after = last
        .and_then(|i| session.messages.get(i))
        .map(|m| m.source_index);
    match after {
        Some(at) => records.len() - records.partition_point(|&r| r <= at),
        None => records.len(),
    }
}

/// JSON objects between two message records (array punctuation and blank lines are skipped),
/// at most `limit` records (a broken line counts as one).
fn gap_records(bytes: &[u8], limit: usize, out: &mut Vec<Record>) {
    let mut i = 0usize;
    let mut seen = 0usize;
    while i < bytes.len() && seen < limit {
        let b = bytes.get(i).copied().unwrap_or(b' ');
        if b.is_ascii_whitespace() || matches!(b, b',' | b'[' | b']') {
            i += 1;
            continue;
        }
        seen += 1;
        let rest = bytes.get(i..).unwrap_or_default();
        let mut stream = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value)) => {
                let used = stream.byte_offset().max(1);
                // An empty object is no event (and a file of millions costs nothing).
                if value.as_object().is_some_and(|m| !m.is_empty()) {
                    out.push(Record { value, msg: None });
                }
                i += used;
            }
            _ => {
                let skip = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                i += skip.max(1);
            }
        }
    }
}

/// The later actions of a batch have no message of their own: the parser merged them into the
/// message of the batch's first action.
fn attach_batches(records: &mut [Record]) {
    let mut open: Option<(String, usize)> = None;
    for r in records.iter_mut() {
        let kind = r.kind().to_string();
        let response = r
            .value
            .get("llm_response_id")
            .and_then(Value::as_str)
            .map(str::to_string);
        match (kind.as_str(), r.msg) {
            ("ActionEvent", Some(m)) => open = response.map(|id| (id, m)),
            ("ActionEvent", None) => match (&open, response) {
                (Some((id, m)), Some(resp)) if *id == resp => r.msg = Some(*m),
                _ => open = None,
            },
            (_, Some(_)) => open = None,
            _ => {}
        }
    }
}

/// OpenHands-shaped events built from the common model (any format but OpenHands' own).
fn synthesized(session: &Session, every_core: bool) -> Vec<Record> {
    let names: HashMap<&str, &str> = session
        .messages
        .iter()
        .flat_map(Message::client_calls)
        .collect();
    let each = |m: &Message| -> Vec<Record> {
        synth_message(m, &names)
            .into_iter()
            .map(|value| Record {
                value,
                msg: Some(m.index),
            })
            .collect()
    };
    let per_message: Vec<Vec<Record>> = if every_core {
        crate::par::map(&session.messages, 256, each, |_| {})
    } else {
        session.messages.iter().map(each).collect()
    };
    per_message.into_iter().flatten().collect()
}

pub(super) fn synth_message(m: &Message, names: &HashMap<&str, &str>) -> Vec<Value> {
    let id = format!("msg-{}", m.index);
    match m.role {
        Role::System => vec![json!({
            "kind": "SystemPromptEvent", "id": id, "source": "agent",
            "system_prompt": {"type": "text", "text": joined_text(m)}, "tools": [],
        })],
        Role::Event => Vec::new(),
        Role::User if is_summary(m) => vec![json!({
            "id": id, "source": "environment", "summary": joined_text(m),
            "kind": "CondensationSummaryEvent",
        })],
        Role::Assistant if m.client_calls().next().is_some() => synth_actions(m, &id),
        _ => {
            let mut out = synth_results(m, &id, names);
            // The message's own content, made once (its texts copied once, not three times).
            let content = content_of(
                m.parts
                    .iter()
                    .filter(|p| !matches!(p, Part::ToolResult { .. } | Part::ToolCall { .. })),
            );
            if out.is_empty() || !content.is_empty() {
                out.push(synth_plain(m, content, &id));
            }
            out
        }
    }
}

/// A message that is only an earlier summary: in OpenHands it is a `CondensationSummaryEvent`.
fn is_summary(m: &Message) -> bool {
    !m.parts.is_empty() && m.parts.iter().all(|p| matches!(p, Part::Summary { .. }))
}

fn joined_text(m: &Message) -> String {
    m.parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } | Part::Summary { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn content_of<'a>(parts: impl IntoIterator<Item = &'a Part>) -> Vec<Value> {
    parts
        .into_iter()
        .filter_map(|p| match p {
            Part::Text { text } | Part::Summary { text } => {
                Some(json!({"type": "text", "text": text}))
            }
            Part::Image(img) => {
                Some(json!({"type": "image", "image_urls": [img.url.clone().unwrap_or_default()]}))
            }
            Part::ToolResult { content, .. } => {
                let text: String = content.iter().map(Part::plain_text).collect();
                Some(json!({"type": "text", "text": text}))
            }
            _ => None,
        })
        .collect()
}

fn synth_plain(m: &Message, content: Vec<Value>, id: &str) -> Value {
    let role = match m.role {
        Role::Assistant => "assistant",
        _ => "user",
    };
    let source = if role == "assistant" { "agent" } else { "user" };
    let reasoning: String = m
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Reasoning { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let mut llm = json!({"role": role, "content": content});
    if !reasoning.is_empty() {
        llm["reasoning_content"] = Value::String(reasoning);
    }
    json!({"kind": "MessageEvent", "id": id, "source": source, "llm_message": llm})
}

fn synth_actions(m: &Message, id: &str) -> Vec<Value> {
    let thought: Vec<Value> = m
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } => Some(json!({"type": "text", "text": text})),
            _ => None,
        })
        .collect();
    let reasoning: String = m
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Reasoning { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let calls = m.parts.iter().filter_map(|p| match p {
        Part::ToolCall {
            id,
            name,
            arguments,
            ..
        } => Some((id, name, arguments)),
        _ => None,
    });
    calls
        .enumerate()
        .map(|(n, (call_id, name, arguments))| {
            let mut v = json!({
                "kind": "ActionEvent", "id": format!("{id}-{n}"), "source": "agent",
                "thought": if n == 0 { thought.clone() } else { Vec::new() },
                "action": {"kind": format!("{}Action", pascal(name))},
                "tool_name": name, "tool_call_id": call_id,
                "tool_call": {"id": call_id, "name": name, "arguments": arguments},
                "llm_response_id": format!("resp-{}", m.index),
            });
            if n == 0 && !reasoning.is_empty() {
                v["reasoning_content"] = Value::String(reasoning.clone());
            }
            v
        })
        .collect()
}

fn synth_results(m: &Message, id: &str, names: &HashMap<&str, &str>) -> Vec<Value> {
    m.parts
        .iter()
        .enumerate()
        .filter_map(|(n, p)| match p {
            Part::ToolResult {
                call_id,
                content,
                is_error,
            } => Some(json!({
                "kind": "ObservationEvent", "id": format!("{id}-{n}"), "source": "environment",
                "tool_name": names.get(call_id.as_str()).copied().unwrap_or_default(),
                "tool_call_id": call_id,
                "observation": {"kind": "Observation", "content": content_of(content), "is_error": is_error.unwrap_or(false)},
            })),
            _ => None,
        })
        .collect()
}

/// `read_file` → `ReadFile`, the way OpenHands names an action class after its tool.
fn pascal(name: &str) -> String {
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|c| c.to_uppercase().chain(cs).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}
