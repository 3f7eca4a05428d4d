//! Session messages rendered the way a whole-history summarizer call sends them, for presets
//! whose framework summarizes by sending its own history (Codex, Claude Code).
//!
//! Owns: one `PromptMessage` per model-visible message — role mapped to the literal summarizer
//! roles, text parts as they are, tool calls, tool results and reasoning as the JSON blocks of
//! the framework's wire format (Responses API items or Anthropic content blocks). Events and
//! opaque parts are not sent; and telling, without rendering, whether a message sends anything
//! (`sends`, for a request left to render when read: `defer`). It must not decide which
//! messages are sent.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{json, Value};

use crate::compaction::plan::{PromptMessage, PromptRole};
use crate::compaction::request::{Deferred, Render};
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

/// The message as sent, or `None` when it sends nothing (an event, only opaque parts): its
/// parts' renderings joined with line breaks, written into one string.
pub fn render(m: &Message, wire: Wire) -> Option<PromptMessage> {
    let role = role_of(m)?;
    let mut content = String::new();
    let mut any = false;
    for part in &m.parts {
        let at = content.len();
        if any {
            content.push('\n');
        }
        if write_part(part, wire, &mut content) {
            any = true;
        } else {
            content.truncate(at);
        }
    }
    any.then_some(PromptMessage { role, content })
}

/// Whether `render` gives the message (it is no event and has a part other than opaque ones),
/// told without rendering it.
pub fn sends(m: &Message) -> bool {
    role_of(m).is_some() && m.parts.iter().any(|p| !matches!(p, Part::Opaque { .. }))
}

/// Adds `m` to a deferred request, rendered as `render` renders it in `wire` when read (nothing
/// when it sends nothing).
pub fn defer(request: &mut Deferred, m: &Message, wire: Wire) {
    if sends(m) {
        let render: Render = match wire {
            Wire::Responses => |m| render(m, Wire::Responses),
            Wire::Anthropic => |m| render(m, Wire::Anthropic),
        };
        request.push_message(m, render);
    }
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

/// A tool result's text: its text parts joined with line breaks (`Part::plain_text`),
/// borrowed when it has one.
fn result_text(content: &[Part]) -> Cow<'_, str> {
    let mut texts = content.iter().filter_map(|p| match p {
        Part::Text { text } => Some(text.as_str()),
        _ => None,
    });
    match (texts.next(), texts.next()) {
        (None, _) => Cow::Borrowed(""),
        (Some(one), None) => Cow::Borrowed(one),
        (Some(first), Some(second)) => {
            let mut out = format!("{first}\n{second}");
            for t in texts {
                out.push('\n');
                out.push_str(t);
            }
            Cow::Owned(out)
        }
    }
}

/// A Responses API `function_call` item (its keys in the order the item is written).
#[derive(Serialize)]
struct FunctionCall<'a> {
    r#type: &'static str,
    name: &'a str,
    arguments: &'a str,
    call_id: &'a str,
}

/// A Responses API `function_call_output` item.
#[derive(Serialize)]
struct FunctionCallOutput<'a> {
    r#type: &'static str,
    call_id: &'a str,
    output: &'a str,
}

/// An Anthropic `tool_result` block (`is_error` written only when true).
#[derive(Serialize)]
struct ToolResult<'a> {
    r#type: &'static str,
    tool_use_id: &'a str,
    content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_error: Option<bool>,
}

/// Writes the part as sent into `out`; `false` (nothing written) when it is not sent.
fn write_part(part: &Part, wire: Wire, out: &mut String) -> bool {
    match (part, wire) {
        (Part::Text { text } | Part::Summary { text }, _) => out.push_str(text),
        (Part::Image(_), _) => out.push_str("[image]"),
        (Part::Opaque { .. }, _) => return false,
        (
            Part::ToolCall {
                id,
                name,
                arguments,
                ..
            },
            Wire::Responses,
        ) => push_json(
            out,
            &FunctionCall {
                r#type: "function_call",
                name,
                arguments,
                call_id: id,
            },
        ),
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
            push_json(
                out,
                &json!({"type": "tool_use", "id": id, "name": name, "input": input}),
            );
        }
        (
            Part::ToolResult {
                call_id, content, ..
            },
            Wire::Responses,
        ) => push_json(
            out,
            &FunctionCallOutput {
                r#type: "function_call_output",
                call_id,
                output: &result_text(content),
            },
        ),
        (
            Part::ToolResult {
                call_id,
                content,
                is_error,
                ..
            },
            Wire::Anthropic,
        ) => push_json(
            out,
            &ToolResult {
                r#type: "tool_result",
                tool_use_id: call_id,
                content: &result_text(content),
                is_error: (*is_error == Some(true)).then_some(true),
            },
        ),
        (Part::Reasoning { text, opaque_len }, Wire::Responses) => {
            let block = if text.is_empty() && *opaque_len > 0 {
                json!({"type": "reasoning", "encrypted_content": format!("<{opaque_len} bytes>")})
            } else {
                json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": text}]})
            };
            push_json(out, &block);
        }
        (Part::Reasoning { text, opaque_len }, Wire::Anthropic) => {
            let block = if text.is_empty() && *opaque_len > 0 {
                json!({"type": "redacted_thinking", "data": format!("<{opaque_len} bytes>")})
            } else {
                json!({"type": "thinking", "thinking": text})
            };
            push_json(out, &block);
        }
    }
    true
}

/// `block` as compact JSON, at the end of `out`.
fn push_json(out: &mut String, block: &impl Serialize) {
    out.push_str(&serde_json::to_string(block).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sends` tells what `render` gives, in both wire formats, for every message of the
    /// fixtures of several formats and for an event and a message of only opaque parts.
    #[test]
    fn sends_is_whether_render_gives_the_message() {
        let mut told = (0, 0);
        for &file in crate::testing::FORMATS {
            let a = crate::testing::analysed(file);
            let mut messages = a.session.messages.clone();
            let mut opaque = messages[0].clone();
            opaque.role = Role::User;
            opaque.parts = vec![Part::Opaque {
                kind: "x".into(),
                raw: "{}".into(),
            }];
            let mut event = messages[0].clone();
            event.role = Role::Event;
            messages.extend([opaque, event]);
            for m in &messages {
                for wire in [Wire::Responses, Wire::Anthropic] {
                    let rendered = render(m, wire).is_some();
                    assert_eq!(sends(m), rendered, "{file} #{}", m.index);
                    if rendered {
                        told.0 += 1;
                    } else {
                        told.1 += 1;
                    }
                }
            }
        }
        assert!(told.0 > 100 && told.1 >= 14, "{told:?}");
    }
}
