//! The message list Hermes 0.19.0 `compress()` returns: the (pruned) protected head with the
//! compaction note appended to the system prompt, the summary (standalone, with its end marker
//! and the in-process `_compressed_summary` flag, or merged into the first tail message), the
//! (pruned) tail, then `_sanitize_tool_pairs`, `_strip_historical_media` and the
//! `_db_persisted` sweep — the dicts, key order included, as Hermes holds them.
//!
//! Owns: assembling that list from one `compress()` outcome and the text to insert. Must not:
//! cut, prune or shape the summary text (`assemble`, `prune`, `summary` do).

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::assemble::Outcome;
use super::msgs::{content_text, is_image_part};
use super::py;
use super::text::{
    COMPRESSION_NOTE, MERGED_PRIOR_CONTEXT_HEADER, MERGED_SUMMARY_DELIMITER, SUMMARY_END_MARKER,
};

type Dict = Map<String, Value>;

const SUMMARY_FLAG: &str = "_compressed_summary";
const DB_PERSISTED: &str = "_db_persisted";

/// The list `compress()` returns for `out` with `inserted` (the summary with its prefix, no
/// end marker); `None` when `out` compacts nothing (Hermes returns the list it was given).
pub fn compressed(out: &Outcome, inserted: &str) -> Option<Vec<Dict>> {
    let ins = out.insertion.as_ref()?;
    let msgs = &out.msgs;
    let (start, end) = (out.compress_start, out.compress_end.min(msgs.len()));
    let mut list: Vec<Dict> = Vec::with_capacity(start + 1 + msgs.len() - end);
    for (i, m) in msgs[..start].iter().enumerate() {
        let mut d = (*m.v).clone();
        if i == 0 && m.role() == "system" {
            note(&mut d);
        }
        list.push(d);
    }
    if ins.merged_into.is_none() {
        let mut d = Dict::new();
        d.insert("role".into(), ins.role.as_str().into());
        d.insert(
            "content".into(),
            format!("{inserted}\n\n{SUMMARY_END_MARKER}").into(),
        );
        d.insert(SUMMARY_FLAG.into(), true.into());
        list.push(d);
    }
    for (i, m) in msgs.iter().enumerate().skip(end) {
        let mut d = (*m.v).clone();
        if ins.merged_into.is_some() && i == end {
            merge(&mut d, inserted);
        }
        list.push(d);
    }
    sanitize_tool_pairs(&mut list);
    strip_historical_media(&mut list);
    for d in &mut list {
        d.shift_remove(DB_PERSISTED);
    }
    Some(list)
}

/// The compaction note on the system prompt, unless it already holds it.
fn note(d: &mut Dict) {
    let existing = d.get("content").cloned().unwrap_or(Value::Null);
    if content_text(&existing).contains(COMPRESSION_NOTE) {
        return;
    }
    let text = match &existing {
        Value::String(s) if !s.is_empty() => format!("\n\n{COMPRESSION_NOTE}"),
        _ => COMPRESSION_NOTE.to_string(),
    };
    d.insert("content".into(), append_text(existing, &text, false));
}

/// The summary merged into the first tail message, between the prior-context header and the
/// end marker; the stale `api_content` sidecar dropped.
fn merge(d: &mut Dict, inserted: &str) {
    let old = d.get("content").cloned().unwrap_or_else(|| "".into());
    let suffix = format!("\n\n{MERGED_SUMMARY_DELIMITER}\n\n{inserted}\n\n{SUMMARY_END_MARKER}");
    let content = append_text(
        append_text(old, &suffix, false),
        &format!("{MERGED_PRIOR_CONTEXT_HEADER}\n"),
        true,
    );
    d.insert("content".into(), content);
    d.insert(SUMMARY_FLAG.into(), true.into());
    d.shift_remove("api_content");
}

/// `_append_text_to_content`.
fn append_text(content: Value, text: &str, prepend: bool) -> Value {
    match content {
        Value::Null => text.into(),
        Value::String(s) if prepend => format!("{text}{s}").into(),
        Value::String(s) => format!("{s}{text}").into(),
        Value::Array(mut parts) => {
            let block = json!({"type": "text", "text": text});
            if prepend {
                parts.insert(0, block);
            } else {
                parts.push(block);
            }
            Value::Array(parts)
        }
        other if prepend => format!("{text}{}", py::str_of(&other)).into(),
        other => format!("{}{text}", py::str_of(&other)).into(),
    }
}

/// `_get_tool_call_id`: `call_id or id or ""`.
fn call_id(tc: &Value) -> Option<String> {
    let pick = |k: &str| tc.get(k).filter(|v| py::truthy(v)).map(py::str_of);
    pick("call_id").or_else(|| pick("id"))
}

fn tool_calls(d: &Dict) -> &[Value] {
    match d.get("tool_calls") {
        Some(Value::Array(a)) => a,
        _ => &[],
    }
}

fn result_id(d: &Dict) -> Option<String> {
    d.get("tool_call_id")
        .filter(|v| py::truthy(v))
        .map(py::str_of)
}

/// `_sanitize_tool_pairs`: results without their call removed, calls without their result
/// stripped (an assistant message left with neither calls nor text says so).
fn sanitize_tool_pairs(list: &mut Vec<Dict>) {
    let role = |d: &Dict| d.get("role").and_then(Value::as_str).map(str::to_string);
    let surviving: HashSet<String> = list
        .iter()
        .filter(|d| role(d).as_deref() == Some("assistant"))
        .flat_map(|d| tool_calls(d).iter().filter_map(call_id))
        .collect();
    let results: HashSet<String> = list
        .iter()
        .filter(|d| role(d).as_deref() == Some("tool"))
        .filter_map(result_id)
        .collect();
    list.retain(|d| {
        role(d).as_deref() != Some("tool") || result_id(d).is_none_or(|id| surviving.contains(&id))
    });
    let missing: HashSet<&String> = surviving.difference(&results).collect();
    if missing.is_empty() {
        return;
    }
    for d in list.iter_mut() {
        if role(d).as_deref() != Some("assistant") || !d.get("tool_calls").is_some_and(py::truthy) {
            continue;
        }
        let calls = tool_calls(d);
        let kept: Vec<Value> = calls
            .iter()
            .filter(|tc| call_id(tc).is_none_or(|id| !missing.contains(&id)))
            .cloned()
            .collect();
        if kept.len() == calls.len() {
            continue;
        }
        if !kept.is_empty() {
            d.insert("tool_calls".into(), Value::Array(kept));
            continue;
        }
        d.shift_remove("tool_calls");
        let empty = match d.get("content") {
            Some(Value::String(s)) => py::is_blank(s),
            Some(v) => !py::truthy(v),
            None => true,
        };
        if empty {
            d.insert("content".into(), "(tool call removed)".into());
        }
    }
}

fn has_images(content: Option<&Value>) -> bool {
    matches!(content, Some(Value::Array(parts)) if parts.iter().any(is_image_part))
}

/// `_strip_historical_media`: image parts before the newest image-bearing user message become
/// a placeholder.
fn strip_historical_media(list: &mut [Dict]) {
    let anchor = list.iter().rposition(|d| {
        d.get("role").and_then(Value::as_str) == Some("user") && has_images(d.get("content"))
    });
    let Some(anchor) = anchor.filter(|&a| a > 0) else {
        return;
    };
    for d in &mut list[..anchor] {
        if !has_images(d.get("content")) {
            continue;
        }
        if let Some(Value::Array(parts)) = d.get_mut("content") {
            for p in parts.iter_mut().filter(|p| is_image_part(p)) {
                *p = json!({"type": "text", "text": "[Attached image — stripped after compression]"});
            }
        }
        d.shift_remove("api_content");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dicts(v: Value) -> Vec<Dict> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_object().unwrap().clone())
            .collect()
    }

    #[test]
    fn orphans_go_both_ways_and_an_emptied_call_says_so() {
        let mut list = dicts(json!([
            {"role": "tool", "tool_call_id": "gone", "content": "x"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "a"}, {"id": "b"}]},
            {"role": "tool", "tool_call_id": "a", "content": "ok"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "call_id": "c2"}]}
        ]));
        sanitize_tool_pairs(&mut list);
        assert_eq!(
            Value::Array(list.into_iter().map(Value::Object).collect()),
            json!([
                {"role": "assistant", "content": "", "tool_calls": [{"id": "a"}]},
                {"role": "tool", "tool_call_id": "a", "content": "ok"},
                {"role": "assistant", "content": "(tool call removed)"}
            ])
        );
    }
}
