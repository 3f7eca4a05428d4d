//! Session messages rendered the way a whole-history summarizer call sends them, for presets
//! whose framework summarizes by sending its own history (Codex, Claude Code).
//!
//! Owns: one `PromptMessage` per model-visible message — role mapped to the literal summarizer
//! roles, text parts as they are, tool calls, tool results and reasoning as the JSON blocks of
//! the framework's wire format (Responses API items or Anthropic content blocks). Events and
//! opaque parts are not sent. It must not decide which messages are sent.

use serde_json::{json, Value};

use crate::compaction::plan::{PromptMessage, PromptRole};
use crate::session::{Message, Part, Role};

/// Which wire format tool calls, results and reasoning are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Responses API items (`function_call`, `function_call_output`, `reasoning`).
    Responses,
    /// Anthropic Messages content blocks (`tool_use`, `tool_result`, `thinking`).
    Anthropic,
}

/// The literal role a message is sent with: system and developer messages as `system`, tool
/// results as `user` (they are client input in both wire formats); `None` for events.
pub fn role_of(m: &Message) -> Option<PromptRole> {
    match m.role {
        Role::System | Role::Developer => Some(PromptRole::System),
        Role::User | Role::Tool => Some(PromptRole::User),
        Role::Assistant => Some(PromptRole::Assistant),
        Role::Event => None,
    }
}

/// The message as sent, or `None` when it sends nothing (an event, only opaque parts).
pub fn render(m: &Message, wire: Wire) -> Option<PromptMessage> {
    let role = role_of(m)?;
    let pieces: Vec<String> = m
        .parts
        .iter()
        .filter_map(|p| render_part(p, wire))
        .collect();
    if pieces.is_empty() {
        return None;
    }
    Some(PromptMessage {
        role,
        content: pieces.join("\n"),
    })
}

/// The text of a message's text and summary parts, `\n`-joined (what a user typed).
pub fn plain_text(m: &Message) -> String {
    m.parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } | Part::Summary { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn render_part(part: &Part, wire: Wire) -> Option<String> {
    let block = match (part, wire) {
        (Part::Text { text } | Part::Summary { text }, _) => return Some(text.clone()),
        (Part::Image(_), _) => return Some("[image]".to_string()),
        (Part::Opaque { .. }, _) => return None,
        (
            Part::ToolCall {
                id,
                name,
                arguments,
                ..
            },
            Wire::Responses,
        ) => json!({"type": "function_call", "name": name, "arguments": arguments, "call_id": id}),
        (
            Part::ToolCall {
                id,
                name,
                arguments,
                ..
            },
            Wire::Anthropic,
        ) => {
            let input = serde_json::from_str::<Value>(arguments)
                .unwrap_or_else(|_| Value::String(arguments.clone()));
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        (Part::ToolResult { call_id, .. }, Wire::Responses) => {
            json!({"type": "function_call_output", "call_id": call_id, "output": part.plain_text()})
        }
        (
            Part::ToolResult {
                call_id, is_error, ..
            },
            Wire::Anthropic,
        ) => {
            let mut block = json!({"type": "tool_result", "tool_use_id": call_id, "content": part.plain_text()});
            if *is_error == Some(true) {
                block["is_error"] = Value::Bool(true);
            }
            block
        }
        (Part::Reasoning { text, opaque_len }, Wire::Responses) => {
            if text.is_empty() && *opaque_len > 0 {
                json!({"type": "reasoning", "encrypted_content": format!("<{opaque_len} bytes>")})
            } else {
                json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": text}]})
            }
        }
        (Part::Reasoning { text, opaque_len }, Wire::Anthropic) => {
            if text.is_empty() && *opaque_len > 0 {
                json!({"type": "redacted_thinking", "data": format!("<{opaque_len} bytes>")})
            } else {
                json!({"type": "thinking", "thinking": text})
            }
        }
    };
    Some(block.to_string())
}
