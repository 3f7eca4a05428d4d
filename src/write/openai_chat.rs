//! A session as OpenAI Chat Completions messages (`[{"role", "content", "tool_calls",
//! "tool_call_id"}]`): the one format every agent framework reads, and the one ctxray writes a
//! compacted history in when the source's own format cannot be written.
//!
//! Text, summaries and reasoning become content (reasoning only when it is the whole message),
//! tool calls `tool_calls`, each tool result its own `tool` message, images a `[image]`
//! placeholder (their bytes are not kept), events nothing. Every text is masked for secrets.

use serde_json::{json, Map, Value};

use crate::session::{Part, Role, Session};

/// The messages of `session` as a JSON array; the second value counts the secrets masked.
pub fn to_json(session: &Session) -> (Value, usize) {
    let mut masked = 0;
    let doc = dicts(session, &mut |text: &str| {
        let (m, n) = crate::secrets::mask(text);
        masked += n;
        m
    });
    (doc, masked)
}

/// The messages of `session` as a JSON array, texts as they are.
pub fn to_json_unmasked(session: &Session) -> Value {
    dicts(session, &mut |text: &str| text.to_string())
}

fn dicts(session: &Session, mask: &mut dyn FnMut(&str) -> String) -> Value {
    let mut out = Vec::new();
    for m in &session.messages {
        let role = match m.role {
            Role::Event => continue,
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        };
        let mut text = Vec::new();
        let mut calls = Vec::new();
        let mut results = Vec::new();
        for part in &m.parts {
            match part {
                Part::Text { text: t } | Part::Summary { text: t } => text.push(mask(t)),
                Part::Image(_) => text.push("[image]".into()),
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                    ..
                } => calls.push(json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": mask(arguments)},
                })),
                Part::ToolResult {
                    call_id, content, ..
                } => {
                    let body: Vec<String> = content
                        .iter()
                        .map(|p| match p {
                            Part::Image(_) => "[image]".to_string(),
                            other => mask(&other.plain_text()),
                        })
                        .collect();
                    results.push(json!({
                        "role": "tool",
                        "tool_call_id": call_id,
                        "content": body.join("\n"),
                    }));
                }
                Part::Reasoning { .. } | Part::Opaque { .. } => {}
            }
        }
        if text.is_empty() && calls.is_empty() && results.is_empty() {
            if let Some(Part::Reasoning { text: t, .. }) = m.parts.first() {
                text.push(mask(t));
            } else {
                continue;
            }
        }
        if !text.is_empty() || !calls.is_empty() {
            let mut msg = Map::new();
            let role = if role == "tool" { "user" } else { role };
            msg.insert("role".into(), role.into());
            msg.insert(
                "content".into(),
                if text.is_empty() {
                    Value::Null
                } else {
                    text.join("\n").into()
                },
            );
            if !calls.is_empty() {
                msg.insert("tool_calls".into(), calls.into());
            }
            out.push(Value::Object(msg));
        }
        out.extend(results);
    }
    Value::Array(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_session_loads_back_with_the_same_messages_and_tools() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/samples/claude-code-demo.jsonl");
        let s = crate::formats::load_path(&path, None).unwrap();
        let (json, _) = to_json(&s);
        let bytes = serde_json::to_vec_pretty(&json).unwrap();
        let back = crate::formats::load_bytes(bytes, None, "out.json", None).unwrap();
        assert_eq!(back.format, crate::session::Format::OPENAI_CHAT);
        let calls = |s: &Session| -> Vec<(String, String)> {
            s.messages
                .iter()
                .flat_map(|m| {
                    m.client_calls()
                        .map(|(id, n)| (id.to_string(), n.to_string()))
                })
                .collect()
        };
        assert_eq!(calls(&back), calls(&s));
        let results = |s: &Session| -> Vec<String> {
            s.messages
                .iter()
                .flat_map(|m| m.result_ids().map(str::to_string))
                .collect()
        };
        assert_eq!(results(&back), results(&s));
    }

    #[test]
    fn secrets_are_masked_and_counted() {
        let mut s = Session::new(crate::session::Format::OPENAI_CHAT, "t", Default::default());
        let mut m = crate::session::Message::new(Role::User, 0);
        m.parts.push(Part::Text {
            text: "key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD here".into(),
        });
        s.messages.push(m);
        let (json, masked) = to_json(&s);
        assert_eq!(masked, 1);
        let text = json.to_string();
        assert!(
            !text.contains("sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"),
            "{text}"
        );
    }
}
