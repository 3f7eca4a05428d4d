//! pydantic-ai content as the model receives it: user prompt items, tool return values
//! (`BaseToolReturnPart.model_response_str`), retry prompts (`RetryPromptPart.model_response`),
//! tool-call arguments (`args_as_json_str`) and multimodal files.

use serde_json::{Map, Value};

use crate::formats::common::{str_at, to_json};
use crate::formats::image;
use crate::formats::shared::opaque;
use crate::session::Part;

/// Kinds of the multimodal file objects (`MultiModalContent`).
const FILE_KINDS: [&str; 6] = [
    "image-url",
    "audio-url",
    "document-url",
    "video-url",
    "binary",
    "uploaded-file",
];

fn is_file(v: &Value) -> bool {
    str_at(v, "kind").is_some_and(|k| FILE_KINDS.contains(&k))
}

/// A multimodal file: images become image parts, anything else stays opaque.
pub(super) fn file_part(v: &Value) -> Part {
    let kind = str_at(v, "kind").unwrap_or("file");
    let media = str_at(v, "media_type");
    let detail = v
        .get("vendor_metadata")
        .and_then(|m| str_at(m, "detail"))
        .map(str::to_string);
    let mut img = match kind {
        "image-url" => image::from_url(str_at(v, "url").unwrap_or_default()),
        "binary" if media.is_some_and(|m| m.starts_with("image/")) => image::from_base64(
            media,
            &standard_base64(str_at(v, "data").unwrap_or_default()),
        ),
        _ => return opaque(kind, v),
    };
    if img.media_type.is_none() {
        img.media_type = media.map(str::to_string);
    }
    img.detail = detail;
    Part::Image(img)
}

/// pydantic serialises bytes as URL-safe base64; the image reader wants the standard alphabet.
fn standard_base64(data: &str) -> String {
    if data.contains(['-', '_']) {
        data.replace('-', "+").replace('_', "/")
    } else {
        data.to_string()
    }
}

/// `UserPromptPart.content`: a string or a list of strings, text content and files.
pub(super) fn user_content(content: Option<&Value>) -> Vec<Part> {
    match content {
        Some(Value::String(s)) => vec![Part::text(s.as_str())],
        Some(Value::Array(items)) => items.iter().filter_map(user_item).collect(),
        None | Some(Value::Null) => Vec::new(),
        Some(other) => user_item(other).into_iter().collect(),
    }
}

fn user_item(v: &Value) -> Option<Part> {
    if let Some(s) = v.as_str() {
        return Some(Part::text(s));
    }
    match str_at(v, "kind") {
        Some("text-content") => Some(Part::text(str_at(v, "content").unwrap_or_default())),
        // A cache boundary marker, not content.
        Some("cache-point") => None,
        _ if is_file(v) => Some(file_part(v)),
        other => Some(opaque(other.unwrap_or("content"), v)),
    }
}

/// A tool return's content as sent: the data as text (strings verbatim, anything else as
/// compact JSON, single items unwrapped as pydantic-ai does) followed by its files.
pub(super) fn return_content(content: Option<&Value>) -> Vec<Part> {
    let content = content.unwrap_or(&Value::Null);
    let (data, files, was_list): (Vec<&Value>, Vec<&Value>, bool) = match content {
        Value::Array(items) => {
            let (files, data) = items.iter().partition(|v| is_file(v));
            (data, files, true)
        }
        v if is_file(v) => (Vec::new(), vec![v], false),
        Value::Null => (Vec::new(), Vec::new(), false),
        v => (vec![v], Vec::new(), false),
    };
    let text = match data.as_slice() {
        [] => None,
        [one] if !was_list || !files.is_empty() => Some(value_text(one)),
        many => Some(to_json(&Value::Array(
            many.iter().map(|v| (*v).clone()).collect(),
        ))),
    };
    let mut parts: Vec<Part> = text
        .filter(|t| !t.is_empty())
        .map(Part::text)
        .into_iter()
        .collect();
    parts.extend(files.into_iter().map(file_part));
    parts
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(_) if str_at(v, "kind") == Some("text-content") => {
            str_at(v, "content").unwrap_or_default().to_string()
        }
        other => to_json(other),
    }
}

/// `args_as_json_str`: a string verbatim, an object as compact JSON, nothing as `{}`.
pub(super) fn args_text(args: Option<&Value>) -> String {
    match args {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(v @ Value::Object(map)) if !map.is_empty() => to_json(v),
        Some(v @ (Value::Array(_) | Value::Number(_) | Value::Bool(_))) => to_json(v),
        _ => "{}".to_string(),
    }
}

/// `RetryPromptPart.model_response()`: the feedback text the model is sent.
pub(super) fn retry_text(part: &Value) -> String {
    let tool = str_at(part, "tool_name");
    let description = match part.get("content") {
        Some(Value::Array(errors)) => validation_errors(errors, tool.is_some()),
        other => {
            let text = other.and_then(Value::as_str).unwrap_or_default();
            match tool {
                None => format!("Validation feedback:\n{text}"),
                Some(_) => text.to_string(),
            }
        }
    };
    format!("{description}\n\nFix the errors and try again.")
}

/// The error list as pydantic-ai renders it: `ctx` dropped, and for output (non-tool)
/// retries `input` too on top-level errors; pretty JSON with two-space indent.
fn validation_errors(errors: &[Value], for_tool: bool) -> String {
    let cleaned: Vec<Value> = errors
        .iter()
        .map(|e| {
            let shallow = e
                .get("loc")
                .and_then(Value::as_array)
                .is_none_or(|l| l.len() <= 1);
            let drop_input = !for_tool && shallow;
            let map: Map<String, Value> = e
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| k.as_str() != "ctx" && !(drop_input && k.as_str() == "input"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            Value::Object(map)
        })
        .collect();
    let json = serde_json::to_string_pretty(&cleaned).unwrap_or_default();
    let plural = if errors.len() == 1 { "" } else { "s" };
    format!(
        "{} validation error{plural}:\n```json\n{json}\n```",
        errors.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn retry_prompt_texts_match_pydantic_ai() {
        let tool = json!({"part_kind": "retry-prompt", "tool_name": "cat", "content": "path must be absolute"});
        assert_eq!(
            retry_text(&tool),
            "path must be absolute\n\nFix the errors and try again."
        );
        let output = json!({"part_kind": "retry-prompt", "tool_name": null, "content": "bad"});
        assert_eq!(
            retry_text(&output),
            "Validation feedback:\nbad\n\nFix the errors and try again."
        );
        let errors = json!({"part_kind": "retry-prompt", "tool_name": "add", "content": [
            {"type": "int_parsing", "loc": ["a"], "msg": "Input should be a valid integer", "input": "x", "ctx": {"k": 1}}
        ]});
        assert_eq!(
            retry_text(&errors),
            "1 validation error:\n```json\n[\n  {\n    \"type\": \"int_parsing\",\n    \"loc\": [\n      \"a\"\n    ],\n    \"msg\": \"Input should be a valid integer\",\n    \"input\": \"x\"\n  }\n]\n```\n\nFix the errors and try again."
        );
    }

    #[test]
    fn tool_return_unwraps_like_model_response_str() {
        let text = |v: Value| {
            return_content(Some(&v))
                .iter()
                .map(Part::plain_text)
                .collect::<Vec<_>>()
        };
        assert_eq!(text(json!("ok")), ["ok"]);
        assert_eq!(
            text(json!({"a": 1, "b": [true]})),
            [r#"{"a":1,"b":[true]}"#]
        );
        assert_eq!(text(json!(["x"])), [r#"["x"]"#]);
        assert_eq!(text(json!([1, 2])), ["[1,2]"]);
        assert_eq!(text(json!(null)), Vec::<String>::new());
        let with_file = json!(["caption", {"kind": "image-url", "url": "https://e.x/a.png"}]);
        let parts = return_content(Some(&with_file));
        assert_eq!(
            parts.iter().map(Part::kind).collect::<Vec<_>>(),
            ["text", "image"]
        );
        assert_eq!(parts[0].plain_text(), "caption");
    }

    #[test]
    fn args_as_json_str() {
        assert_eq!(args_text(None), "{}");
        assert_eq!(args_text(Some(&json!(""))), "{}");
        assert_eq!(args_text(Some(&json!({}))), "{}");
        assert_eq!(args_text(Some(&json!("{\"a\": 1}"))), "{\"a\": 1}");
        assert_eq!(args_text(Some(&json!({"a": 1}))), "{\"a\":1}");
    }
}
