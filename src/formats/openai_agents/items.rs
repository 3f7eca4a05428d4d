//! The items and usage of a serialized `RunState`, in the Responses API's own shape.
//!
//! Owns: turning a JS SDK protocol item (`callId`, `function_call_result`, tool output
//! `{type: "text"}`) into the Responses item the Python SDK stores as is, so that
//! `openai_responses::map_item` reads both; and reading a model response's `usage` in either
//! spelling (`input_tokens`/`inputTokens`, details as an object or a list of objects). The
//! protocol shapes follow openai-agents-js `packages/agents-core/src/types/protocol.ts`; the
//! Python usage shape `serialize_usage` in openai-agents-python `src/agents/usage.py`.

use serde_json::{Map, Value};

use crate::formats::common::{str_at, u64_at};
use crate::session::Usage;

/// A raw item as a Responses item: a Python item is returned unchanged, a JS protocol item is
/// renamed where its shape differs.
pub(super) fn responses_item(raw: &Value) -> Value {
    let Some(obj) = raw.as_object() else {
        return raw.clone();
    };
    let mut out = Map::with_capacity(obj.len());
    for (key, value) in obj {
        match key.as_str() {
            "callId" => {
                out.insert("call_id".to_string(), value.clone());
            }
            "providerData" => {}
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    let renamed = match str_at(raw, "type") {
        Some("function_call_result") => Some("function_call_output"),
        Some("computer_call_result") => Some("computer_call_output"),
        _ => None,
    };
    if let Some(kind) = renamed {
        out.insert("type".to_string(), Value::String(kind.to_string()));
        if let Some(output) = out.get("output").map(tool_output) {
            out.insert("output".to_string(), output);
        }
    }
    Value::Object(out)
}

/// A JS tool output (`string`, one `{type: text|image|file}` object, or a list of `input_*`
/// items) as a Responses `function_call_output.output` (a string or a list of `input_*`).
fn tool_output(output: &Value) -> Value {
    match output {
        Value::Object(_) => match str_at(output, "type") {
            Some("text") => Value::String(str_at(output, "text").unwrap_or("").to_string()),
            _ => Value::Array(vec![input_part(output)]),
        },
        Value::Array(items) => Value::Array(items.iter().map(input_part).collect()),
        other => other.clone(),
    }
}

fn input_part(part: &Value) -> Value {
    match str_at(part, "type") {
        Some("text") => serde_json::json!({
            "type": "input_text",
            "text": str_at(part, "text").unwrap_or(""),
        }),
        _ => part.clone(),
    }
}

/// A model response's usage. Input counts cached tokens (OpenAI style). A usage that records
/// no request and no token (`requests: 0`, the SDK's empty `Usage()`) says nothing and is
/// `None`.
pub(super) fn usage(v: &Value) -> Option<Usage> {
    let input = u64_either(v, "input_tokens", "inputTokens");
    let output = u64_either(v, "output_tokens", "outputTokens");
    let total = u64_either(v, "total_tokens", "totalTokens");
    if input.is_none() && output.is_none() {
        return None;
    }
    let empty = [input, output, total].iter().all(|n| n.unwrap_or(0) == 0);
    if empty && u64_at(v, "requests") == Some(0) {
        return None;
    }
    let inputs = v
        .get("input_tokens_details")
        .or_else(|| v.get("inputTokensDetails"));
    let outputs = v
        .get("output_tokens_details")
        .or_else(|| v.get("outputTokensDetails"));
    Some(Usage {
        input,
        output,
        cache_read: detail(inputs, "cached_tokens", "cachedTokens"),
        cache_write: detail(inputs, "cache_write_tokens", "cacheWriteTokens"),
        reasoning: detail(outputs, "reasoning_tokens", "reasoningTokens"),
        total,
        input_includes_cache: true,
    })
}

fn u64_either(v: &Value, snake: &str, camel: &str) -> Option<u64> {
    u64_at(v, snake).or_else(|| u64_at(v, camel))
}

/// A details field: one object, or a list of objects (one per request) summed.
fn detail(details: Option<&Value>, snake: &str, camel: &str) -> Option<u64> {
    match details? {
        Value::Array(list) => list
            .iter()
            .filter_map(|d| u64_either(d, snake, camel))
            .reduce(|a, b| a.saturating_add(b)),
        d => u64_either(d, snake, camel),
    }
}
