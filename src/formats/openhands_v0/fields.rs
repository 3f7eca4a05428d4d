//! Reading the fields of V0 events: thoughts, the model response's tool-call arguments and
//! usage, error flags, and what a recall observation adds to the prompt.

use serde_json::Value;

use crate::formats::common::{arguments_text, str_at, u64_at};
use crate::session::{Part, Usage};

/// `args.thought`: a string, or (late 0.x) `{text, reasoning_content}`.
pub(super) fn thought_text(args: &Value) -> &str {
    match args.get("thought") {
        Some(Value::String(s)) => s,
        Some(obj) => str_at(obj, "text").unwrap_or_default(),
        None => "",
    }
}

/// The arguments string the model returned for `call_id`.
pub(super) fn response_arguments(response: &Value, call_id: &str) -> Option<String> {
    let calls = response
        .pointer("/choices/0/message/tool_calls")?
        .as_array()?;
    let call = calls.iter().find(|c| str_at(c, "id") == Some(call_id))?;
    Some(arguments_text(call.pointer("/function/arguments")))
}

/// litellm usage: `prompt_tokens` includes cached tokens.
pub(super) fn usage(u: &Value) -> Option<Usage> {
    let input = u64_at(u, "prompt_tokens");
    let output = u64_at(u, "completion_tokens");
    if input.is_none() && output.is_none() {
        return None;
    }
    let cached = u
        .pointer("/prompt_tokens_details/cached_tokens")
        .and_then(Value::as_u64);
    Some(Usage {
        input,
        output,
        cache_read: cached.or_else(|| u64_at(u, "cache_read_input_tokens")),
        cache_write: u64_at(u, "cache_creation_input_tokens"),
        reasoning: u
            .pointer("/completion_tokens_details/reasoning_tokens")
            .and_then(Value::as_u64),
        total: u64_at(u, "total_tokens"),
        input_includes_cache: true,
    })
}

/// Whether a result is an error, only where the event says so: an `error` or rejection
/// observation, a command's exit code, or its `success` flag.
pub(super) fn error_flag(v: &Value, observation: &str) -> Option<bool> {
    if matches!(observation, "error" | "user_rejected") {
        return Some(true);
    }
    let exit = v
        .pointer("/extras/metadata/exit_code")
        .and_then(Value::as_i64);
    if let Some(code) = exit.or_else(|| v.pointer("/extras/exit_code").and_then(Value::as_i64)) {
        return Some(code != 0);
    }
    v.get("success").and_then(Value::as_bool).map(|ok| !ok)
}

/// What a recall observation contributes to the prompt: V0 renders these fields through its
/// templates into a user message; the fields themselves are kept (the template text is not).
pub(super) fn recall_parts(extras: &Value) -> Vec<Part> {
    let mut parts = Vec::new();
    for key in [
        "repo_instructions",
        "additional_agent_instructions",
        "conversation_instructions",
    ] {
        if let Some(text) = str_at(extras, key).filter(|t| !t.trim().is_empty()) {
            parts.push(Part::text(text));
        }
    }
    let knowledge = extras.get("microagent_knowledge").and_then(Value::as_array);
    for k in knowledge.into_iter().flatten() {
        if let Some(text) = str_at(k, "content").filter(|t| !t.trim().is_empty()) {
            parts.push(Part::text(text));
        }
    }
    parts
}
