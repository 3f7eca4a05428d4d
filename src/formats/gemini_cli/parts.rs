//! Gemini `Part`s (the `@google/genai` shape) and recorded token counts, read into the common
//! model: text, thoughts, inline and file data, recorded tool results, `thoughts` summaries and
//! `tokens`, and the API's own `usageMetadata`. Function calls and responses need the turn's context and live in `emit`.

use serde_json::Value;

use crate::formats::common::{str_at, to_json, u64_at};
use crate::formats::image;
use crate::session::{Part, Usage};

/// Text, thought, inline data and file parts; anything else kept opaque.
pub(super) fn media_or_text(p: &Value) -> Part {
    if let Some(text) = str_at(p, "text") {
        if p.get("thought").and_then(Value::as_bool) == Some(true) {
            return Part::Reasoning {
                text: text.to_string(),
                opaque_len: 0,
            };
        }
        return Part::text(text);
    }
    if let Some(data) = p.get("inlineData") {
        let mime = str_at(data, "mimeType");
        return Part::Image(image::from_base64(mime, str_at(data, "data").unwrap_or("")));
    }
    if let Some(file) = p.get("fileData") {
        let mut img = image::from_url(str_at(file, "fileUri").unwrap_or(""));
        if img.media_type.is_none() {
            img.media_type = str_at(file, "mimeType").map(str::to_string);
        }
        return Part::Image(img);
    }
    let kind = p
        .as_object()
        .and_then(|o| o.keys().next())
        .map_or("part", String::as_str);
    Part::Opaque {
        kind: kind.to_string(),
        raw: to_json(p),
    }
}

/// A tool call's recorded `result`: a string (sent as `{output}`), one part, or a list.
pub(super) fn result_content(result: &Value) -> Vec<Part> {
    let one = |p: &Value| match p.get("functionResponse") {
        Some(r) => Part::text(r.get("response").map_or_else(String::new, to_json)),
        None => media_or_text(p),
    };
    match result {
        Value::String(s) => vec![Part::text(to_json(&serde_json::json!({ "output": s })))],
        Value::Array(items) => items.iter().map(one).collect(),
        other => vec![one(other)],
    }
}

/// `thoughts: [{subject, description}]` as Gemini CLI replays them: `**subject** description`.
pub(super) fn thoughts(v: Option<&Value>) -> Vec<Part> {
    let Some(list) = v.and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .map(|t| {
            let description = str_at(t, "description").unwrap_or("");
            let text = match str_at(t, "subject").filter(|s| !s.is_empty()) {
                Some(subject) => format!("**{subject}** {description}"),
                None => description.to_string(),
            };
            Part::Reasoning {
                text,
                opaque_len: 0,
            }
        })
        .collect()
}

/// `tokens: {input, output, cached, thoughts, tool, total}`; input includes the cache.
pub(super) fn usage(tokens: Option<&Value>) -> Option<Usage> {
    let t = tokens.filter(|t| t.is_object())?;
    Some(Usage {
        input: u64_at(t, "input"),
        output: u64_at(t, "output"),
        cache_read: u64_at(t, "cached"),
        cache_write: None,
        reasoning: u64_at(t, "thoughts"),
        total: u64_at(t, "total"),
        input_includes_cache: true,
    })
}

/// A `GenerateContentResponseUsageMetadata` (`promptTokenCount`, `candidatesTokenCount`,
/// `cachedContentTokenCount`, `thoughtsTokenCount`, `totalTokenCount`), as Qwen Code records
/// it; the prompt count includes the cached tokens.
pub(crate) fn usage_metadata(v: Option<&Value>) -> Option<Usage> {
    let t = v.filter(|t| t.is_object())?;
    let usage = Usage {
        input: u64_at(t, "promptTokenCount"),
        output: u64_at(t, "candidatesTokenCount"),
        cache_read: u64_at(t, "cachedContentTokenCount"),
        cache_write: None,
        reasoning: u64_at(t, "thoughtsTokenCount"),
        total: u64_at(t, "totalTokenCount"),
        input_includes_cache: true,
    };
    (usage.input.is_some() || usage.output.is_some() || usage.total.is_some()).then_some(usage)
}
