//! `ModelResponse` → one assistant message: text, thinking, tool calls (client and builtin),
//! builtin tool returns, files, compaction summaries; usage, model name, response id.

use serde_json::Value;

use super::content::{args_text, file_part, return_content};
use crate::formats::common::{str_at, u64_at, Item};
use crate::formats::shared::{call_id, opaque};
use crate::session::{CompactionMark, Message, Part, Role, Session, Usage};

pub(super) fn push_response(session: &mut Session, item: &Item<'_>) {
    let v = item.value;
    let mut msg = Message::new(Role::Assistant, item.index);
    msg.raw = item.range();
    let parts = v.get("parts").and_then(Value::as_array);
    for (n, part) in parts.into_iter().flatten().enumerate() {
        msg.parts.push(response_part(part, item.index, n));
    }
    msg.usage = v.get("usage").and_then(usage);
    msg.model = str_at(v, "model_name").map(str::to_string);
    msg.id = str_at(v, "provider_response_id")
        .or_else(|| str_at(v, "vendor_id"))
        .map(str::to_string);
    msg.timestamp = str_at(v, "timestamp").map(str::to_string);
    if msg.model.is_some() {
        session.model.clone_from(&msg.model);
    }
    let compactions = parts
        .into_iter()
        .flatten()
        .filter(|p| str_at(p, "part_kind") == Some("compaction"));
    for part in compactions {
        session.mark(CompactionMark {
            kind: "compaction".to_string(),
            source_index: item.index,
            before_message: 0,
            trigger: None,
            pre_tokens: None,
            post_tokens: None,
            summary: str_at(part, "content").map(str::to_string),
        });
    }
    session.push(msg);
}

fn response_part(part: &Value, index: usize, n: usize) -> Part {
    let kind = str_at(part, "part_kind").unwrap_or("unknown");
    match kind {
        "text" => Part::text(str_at(part, "content").unwrap_or_default()),
        "thinking" => {
            let text = str_at(part, "content").unwrap_or_default();
            // An empty thinking part with a signature is encrypted reasoning (OpenAI).
            let opaque_len = match text.is_empty() {
                true => str_at(part, "signature").map_or(0, str::len),
                false => 0,
            };
            Part::Reasoning {
                text: text.to_string(),
                opaque_len,
            }
        }
        "tool-call" | "builtin-tool-call" => Part::ToolCall {
            id: call_id(str_at(part, "tool_call_id"), index, n),
            name: str_at(part, "tool_name").unwrap_or_default().to_string(),
            arguments: args_text(part.get("args")),
            server: kind == "builtin-tool-call",
        },
        "builtin-tool-return" => Part::ToolResult {
            call_id: call_id(str_at(part, "tool_call_id"), index, n),
            content: return_content(part.get("content")),
            is_error: outcome_error(part),
        },
        "file" => match part.get("content") {
            Some(file) => file_part(file),
            None => opaque(kind, part),
        },
        // Anthropic gives readable summary text; OpenAI's is encrypted in provider_details.
        "compaction" => match str_at(part, "content") {
            Some(text) => Part::Summary {
                text: text.to_string(),
            },
            None => opaque(kind, part),
        },
        _ => opaque(kind, part),
    }
}

/// A return's `outcome`: `failed` and `denied` are errors, `success` is not.
pub(super) fn outcome_error(part: &Value) -> Option<bool> {
    match str_at(part, "outcome")? {
        "success" => Some(false),
        _ => Some(true),
    }
}

/// `RequestUsage` (input includes cache reads and writes), or the pre-1.0 `Usage`
/// (`request_tokens` / `response_tokens`). An all-zero usage is pydantic-ai's default for
/// responses loaded without one: not a report, so none is kept.
fn usage(u: &Value) -> Option<Usage> {
    let input = u64_at(u, "input_tokens").or_else(|| u64_at(u, "request_tokens"));
    let output = u64_at(u, "output_tokens").or_else(|| u64_at(u, "response_tokens"));
    if input.unwrap_or(0) == 0 && output.unwrap_or(0) == 0 {
        return None;
    }
    let details = u.get("details").unwrap_or(&Value::Null);
    Some(Usage {
        input,
        output,
        cache_read: u64_at(u, "cache_read_tokens"),
        cache_write: u64_at(u, "cache_write_tokens"),
        reasoning: u64_at(u, "output_reasoning_tokens")
            .or_else(|| u64_at(details, "reasoning_tokens")),
        total: u64_at(u, "total_tokens"),
        input_includes_cache: true,
    })
}
