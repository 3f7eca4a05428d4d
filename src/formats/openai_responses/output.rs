//! Tool results of Responses items: the `*_call_output` items the client sends back, and the
//! results server-side tools carry inline.
//!
//! Owns: output shapes (a string, a list of content blocks, Codex's old `{content, success}`,
//! shell chunks, screenshots) and reading an error flag only where the source states one
//! (`success`, a status, an exit code). It never guesses an error from the text.

use serde_json::Value;

use super::items::{content_parts, image_ref};
use crate::formats::common::{str_at, to_json};
use crate::formats::image;
use crate::session::Part;

/// The `ToolResult` of a `*_call_output` item of the given type.
pub(super) fn result(kind: &str, item: &Value) -> Part {
    let output = item.get("output");
    let (content, is_error) = match kind {
        "shell_call_output" => shell_output(output),
        "apply_patch_call_output" => {
            let status = match str_at(item, "status") {
                Some("failed") => Some(true),
                Some("completed") => Some(false),
                _ => None,
            };
            (content_parts(output), status)
        }
        "computer_call_output" => match output {
            Some(shot) if shot.is_object() => (vec![Part::Image(image_ref(shot))], None),
            _ => tool_output(output),
        },
        _ => tool_output(output),
    };
    Part::ToolResult {
        call_id: str_at(item, "call_id")
            .or_else(|| str_at(item, "id"))
            .unwrap_or_default()
            .to_string(),
        content,
        is_error,
    }
}

/// Result content and error flag of a function, custom or local-shell call output.
fn tool_output(output: Option<&Value>) -> (Vec<Part>, Option<bool>) {
    match output {
        None | Some(Value::Null) => (Vec::new(), None),
        Some(Value::String(text)) => (vec![Part::text(text.as_str())], exit_status(text)),
        Some(Value::Array(_)) => (content_parts(output), None),
        Some(Value::Object(obj)) if obj.contains_key("content") => {
            // Old Codex payload `{content, success}`.
            let content = obj.get("content");
            let stated = obj.get("success").and_then(Value::as_bool).map(|ok| !ok);
            let from_exit = content.and_then(Value::as_str).and_then(exit_status);
            (content_parts(content), stated.or(from_exit))
        }
        Some(other) => (vec![Part::text(to_json(other))], None),
    }
}

/// Whether a command output reports failure through its exit code: a leading `Exit code: N`,
/// a `Process exited with code N` header line before `Output:`, or a JSON
/// `{"output", "metadata": {"exit_code": N}}`. `None` when the text states no exit code.
pub(super) fn exit_status(text: &str) -> Option<bool> {
    if let Some(rest) = text.strip_prefix("Exit code: ") {
        return leading_int(rest).map(|code| code != 0);
    }
    let mut code = None;
    for line in text.lines().take(8) {
        if line == "Output:" {
            return code.map(|c: i64| c != 0);
        }
        if let Some(rest) = line.strip_prefix("Process exited with code ") {
            code = leading_int(rest);
        }
    }
    if text.starts_with('{') && text.contains("\"exit_code\"") {
        let value: Value = serde_json::from_str(text).ok()?;
        let code = value.pointer("/metadata/exit_code")?.as_i64()?;
        return Some(code != 0);
    }
    None
}

fn leading_int(text: &str) -> Option<i64> {
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(text.len(), |(i, _)| i);
    text.get(..end)?.parse().ok()
}

/// `shell_call_output.output`: chunks of `{stdout, stderr, outcome}`; an error when a chunk
/// exited non-zero or timed out.
fn shell_output(output: Option<&Value>) -> (Vec<Part>, Option<bool>) {
    let Some(chunks) = output.and_then(Value::as_array) else {
        return tool_output(output);
    };
    let mut parts = Vec::new();
    let mut failed: Option<bool> = None;
    for chunk in chunks {
        for key in ["stdout", "stderr"] {
            if let Some(text) = str_at(chunk, key).filter(|t| !t.is_empty()) {
                parts.push(Part::text(text));
            }
        }
        let outcome = chunk.get("outcome");
        let this = match outcome.and_then(|o| str_at(o, "type")) {
            Some("timeout") => Some(true),
            Some("exit") => outcome
                .and_then(|o| o.get("exit_code"))
                .and_then(Value::as_i64)
                .map(|c| c != 0),
            _ => None,
        };
        failed = match (failed, this) {
            (Some(a), Some(b)) => Some(a || b),
            (a, b) => a.or(b),
        };
    }
    (parts, failed)
}

/// The inline result of a server-side tool item, when it has one.
pub(super) fn server_result(kind: &str, item: &Value) -> Option<(Vec<Part>, Option<bool>)> {
    match kind {
        "file_search_call" => {
            let results = item.get("results").filter(|r| r.is_array())?;
            Some((vec![Part::text(to_json(results))], None))
        }
        "code_interpreter_call" => {
            let outputs = item.get("outputs").and_then(Value::as_array)?;
            let parts = outputs.iter().filter_map(interpreter_output).collect();
            Some((parts, None))
        }
        "image_generation_call" => {
            let data = str_at(item, "result")?;
            Some((vec![Part::Image(image::from_base64(None, data))], None))
        }
        "mcp_call" => mcp_result(item),
        _ => None,
    }
}

fn interpreter_output(out: &Value) -> Option<Part> {
    match str_at(out, "type") {
        Some("logs") => str_at(out, "logs").map(Part::text),
        Some("image") => str_at(out, "url").map(|u| Part::Image(image::from_url(u))),
        _ => Some(Part::Opaque {
            kind: str_at(out, "type").unwrap_or("output").to_string(),
            raw: to_json(out),
        }),
    }
}

/// An `mcp_call`'s `output`, or its `error` (a string or an error object).
fn mcp_result(item: &Value) -> Option<(Vec<Part>, Option<bool>)> {
    if let Some(error) = item.get("error").filter(|e| !e.is_null()) {
        let text = error
            .as_str()
            .map_or_else(|| to_json(error), str::to_string);
        return Some((vec![Part::text(text)], Some(true)));
    }
    let text = str_at(item, "output")?;
    Some((vec![Part::text(text)], None))
}
