//! Which format a source is in, decided from its content alone (never the file name).
//!
//! Owns: the detection table of research/session-formats.md, applied to the first records of a
//! JSONL file or to the top-level value of a JSON document. First match wins.

use serde_json::Value;

use super::common::{str_at, Doc, Loaded};
use super::LoadError;
use crate::session::Format;

/// How many JSONL records are looked at before giving up.
const PROBE_LINES: usize = 64;

pub fn detect(loaded: &Loaded) -> Result<Format, LoadError> {
    let found = match &loaded.doc {
        Doc::Zip => Some(Format::InspectAi),
        Doc::Lines(lines) if lines.len() == 1 => loaded
            .document()
            .and_then(|v| detect_line(v).or_else(|| detect_document(v))),
        Doc::Lines(lines) => {
            // Only the first lines are looked at: the others' values are not built.
            let head = lines.head(&loaded.buffer, PROBE_LINES);
            head.iter()
                .find_map(|v| detect_line(v))
                .or_else(|| detect_messages(head.iter().map(|v| &**v)))
        }
        Doc::Json(value) => detect_document(value),
    };
    found.ok_or_else(|| {
        let mut why = "valid JSON, but not any known session format (see `ctxray formats`; use --from to force one)".to_string();
        // The records that would have told may be the ones that could not be read.
        if let Some(first) = loaded.skipped.first() {
            why.push_str(&format!(
                "; {} line(s) could not be read, the first is line {}: {}",
                loaded.skipped.len(),
                first.line,
                first.reason
            ));
        }
        LoadError::not_session(&loaded.shown, why)
    })
}

/// A JSONL record of one of the line-oriented formats.
pub fn detect_line(v: &Value) -> Option<Format> {
    let obj = v.as_object()?;
    let kind = str_at(v, "type");
    if obj.contains_key("timestamp") && obj.get("payload").is_some_and(Value::is_object) {
        if let Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted") =
            kind
        {
            return Some(Format::Codex);
        }
    }
    let claude_keyed = ["sessionId", "uuid", "leafUuid", "messageId"]
        .iter()
        .any(|k| obj.contains_key(*k));
    if claude_keyed {
        if let Some(
            "user"
            | "assistant"
            | "system"
            | "summary"
            | "file-history-snapshot"
            | "queue-operation"
            | "attachment"
            | "progress"
            | "ai-title"
            | "last-prompt",
        ) = kind
        {
            let needs_role = matches!(kind, Some("user" | "assistant"));
            if !needs_role || v.pointer("/message/role").is_some() {
                return Some(Format::ClaudeCode);
            }
        }
    }
    if is_openhands_event(v) {
        return Some(Format::OpenHands);
    }
    if obj.contains_key("sessionId") && obj.contains_key("projectHash") {
        return Some(Format::GeminiCli);
    }
    if obj.contains_key("id")
        && obj.contains_key("timestamp")
        && matches!(kind, Some("user" | "gemini" | "info" | "error" | "warning"))
        && obj.contains_key("content")
    {
        return Some(Format::GeminiCli);
    }
    None
}

fn is_openhands_event(v: &Value) -> bool {
    let Some(kind) = str_at(v, "kind") else {
        return false;
    };
    let known = kind.ends_with("Event")
        || kind.ends_with("Observation")
        || matches!(kind, "Condensation" | "CondensationRequest");
    known && v.get("source").is_some() && v.get("id").is_some_and(Value::is_string)
}

/// A whole JSON document.
pub fn detect_document(v: &Value) -> Option<Format> {
    if let Some(obj) = v.as_object() {
        if obj.get("version").is_some_and(Value::is_u64)
            && v.pointer("/eval/task").is_some()
            && (obj.contains_key("samples") || obj.contains_key("status"))
        {
            return Some(Format::InspectAi);
        }
        if obj.contains_key("sessionId") && obj.contains_key("messages") {
            return Some(Format::GeminiCli);
        }
        if let Some(history) = obj.get("history").and_then(Value::as_array) {
            if history.iter().any(is_gemini_content) {
                return Some(Format::GeminiCli);
            }
        }
        if is_openhands_event(v) {
            return Some(Format::OpenHands);
        }
        // Request bodies and completion logs.
        if obj.get("system").is_some() && obj.get("messages").is_some_and(Value::is_array) {
            let msgs = obj.get("messages").and_then(Value::as_array)?;
            // A top-level `system` is Anthropic's: Chat Completions keeps it among the messages.
            return match detect_messages(msgs.iter()) {
                None | Some(Format::OpenAiChat) => Some(Format::Anthropic),
                other => other,
            };
        }
        // `input` is the Responses request body; its easy-form messages `{role, content}` look
        // like Chat messages, so Chat is never concluded from them. A response object
        // (`object: "response"`) holds its items in `output`.
        if let Some(input) = obj.get("input").and_then(Value::as_array) {
            let found = detect_messages(input.iter()).filter(|f| *f != Format::OpenAiChat);
            return found.or(Some(Format::OpenAiResponses));
        }
        let response = str_at(v, "object") == Some("response");
        if response && obj.get("output").is_some_and(Value::is_array) {
            return Some(Format::OpenAiResponses);
        }
        if let Some(msgs) = obj.get("messages").and_then(Value::as_array) {
            return detect_messages(msgs.iter());
        }
        return None;
    }
    let items = v.as_array()?;
    if items.iter().take(PROBE_LINES).any(is_openhands_event) {
        return Some(Format::OpenHands);
    }
    let v0 = items.iter().take(PROBE_LINES).any(|e| {
        e.get("id").is_some_and(Value::is_u64)
            && matches!(str_at(e, "source"), Some("user" | "agent" | "environment"))
            && (e.get("action").is_some() || e.get("observation").is_some())
    });
    if v0 {
        return Some(Format::OpenHandsV0);
    }
    if items.iter().any(is_gemini_content) && items.iter().all(|i| i.get("parts").is_some()) {
        return Some(Format::GeminiCli);
    }
    detect_messages(items.iter())
}

/// Anthropic image/document blocks carry a `source` object (Chat uses `image_url`).
fn has_sourced_media(message: &Value) -> bool {
    let blocks = message.get("content").and_then(Value::as_array);
    blocks.into_iter().flatten().any(|b| {
        matches!(str_at(b, "type"), Some("image" | "document"))
            && b.get("source").is_some_and(Value::is_object)
    })
}

fn is_gemini_content(v: &Value) -> bool {
    matches!(str_at(v, "role"), Some("user" | "model"))
        && v.get("parts").is_some_and(Value::is_array)
}

/// A list of messages in one of the framework or API shapes (rows 9–14 of the table).
pub fn detect_messages<'a>(items: impl Iterator<Item = &'a Value> + Clone) -> Option<Format> {
    let probe = || items.clone().take(PROBE_LINES);
    let langchain = probe().any(|i| {
        matches!(
            str_at(i, "type"),
            Some("human" | "ai" | "system" | "tool" | "function" | "chat")
        ) && i.get("data").is_some_and(|d| d.get("content").is_some())
    });
    if langchain {
        return Some(Format::LangChain);
    }
    let pydantic = probe().any(|i| {
        matches!(str_at(i, "kind"), Some("request" | "response"))
            && i.get("parts").is_some_and(Value::is_array)
    });
    if pydantic {
        return Some(Format::PydanticAi);
    }
    if probe().any(|i| {
        str_at(i, "type") == Some("message") && i.get("contents").is_some_and(Value::is_array)
    }) {
        return Some(Format::AgentFramework);
    }
    let block_types = |i: &Value| -> Vec<String> {
        i.get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| str_at(b, "type").map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let anthropic = probe().any(|i| {
        block_types(i).iter().any(|t| {
            matches!(
                t.as_str(),
                "tool_use"
                    | "tool_result"
                    | "thinking"
                    | "redacted_thinking"
                    | "server_tool_use"
                    | "compaction"
            )
        }) || has_sourced_media(i)
    });
    if anthropic {
        return Some(Format::Anthropic);
    }
    let responses = probe().any(|i| {
        matches!(
            str_at(i, "type"),
            Some(
                "function_call"
                    | "function_call_output"
                    | "reasoning"
                    | "custom_tool_call"
                    | "custom_tool_call_output"
                    | "local_shell_call"
                    | "web_search_call"
                    | "compaction"
            )
        ) || block_types(i)
            .iter()
            .any(|t| matches!(t.as_str(), "input_text" | "output_text" | "input_image"))
    });
    if responses {
        return Some(Format::OpenAiResponses);
    }
    let chat = probe().any(|i| {
        i.get("role").is_some_and(Value::is_string)
            && (i.get("content").is_some() || i.get("tool_calls").is_some())
    });
    if chat {
        return Some(Format::OpenAiChat);
    }
    None
}
