//! The history pydantic-ai-harness holds after a compaction: the list `compact` returns, as
//! `ModelMessagesTypeAdapter` JSON — the standing request of leading system prompts, the first
//! user request, the summary request (`CompactionPart` with its metadata), the receipt,
//! `keep_user_messages` copies and the kept tail, each kept record as it was stored.
//!
//! Owns: the layout (`Piece`) and turning a strategy's layout into those records. Must not:
//! decide the layout (the strategies do) or count anything. The clock readings the framework
//! makes (the summary's time, the receipt part's) are given (`Fill::now`).

use serde_json::{json, Map, Value};

use super::history::{Rec, SUMMARY_KEY};
use super::summarizing::Keep;
use super::wire::request;

const CREATED_AT_KEY: &str = "pydantic-ai-harness.compaction.summary.created_at";
pub const RECEIPT_META: &str = "pydantic-ai-harness.compaction.receipt.v1";
const KEPT_META: &str = "pydantic-ai-harness.compaction.kept-user-message.v1";
const BRIDGE: &str =
    "This summary was produced by a different model than the one continuing the task.\n\n";

/// One message of the compacted history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A new request holding these (record, part) system prompts.
    Standing(Vec<(usize, usize)>),
    /// Record `rec`: the same object when `parts` holds all of its parts, else a copy holding
    /// only these.
    Record {
        rec: usize,
        parts: Vec<usize>,
    },
    /// A `keep_user_messages` copy of record `rec`'s user turns `parts` (marked, bounded).
    Copy {
        rec: usize,
        parts: Vec<usize>,
    },
    Summary,
    Receipt,
}

/// The kept records from `start` on: whole, or the parts that survive; receipt-only requests
/// left out when a new receipt replaces them (`drop_receipts`).
pub fn tail_pieces(recs: &[&Rec], start: usize, keep: &Keep, drop_receipts: bool) -> Vec<Piece> {
    (start..recs.len())
        .filter(|&i| !(drop_receipts && is_receipt_only(recs[i])))
        .filter_map(|i| {
            let parts: Vec<usize> = (0..recs[i].parts.len()).filter(|&j| keep[i][j]).collect();
            (!parts.is_empty()).then_some(Piece::Record { rec: i, parts })
        })
        .collect()
}

/// A request made up only of receipts (`is_receipt_message`).
pub fn is_receipt_only(r: &Rec) -> bool {
    r.request && !r.parts.is_empty() && r.parts.iter().all(|p| p.user().is_some_and(|u| u.receipt))
}

/// What the layout is filled with.
pub struct Fill<'a> {
    pub recs: &'a [&'a Rec<'a>],
    /// One pydantic-ai JSON record per `Rec`.
    pub records: &'a [Value],
    pub summary: Option<&'a str>,
    pub receipt: Option<&'a str>,
    /// Prefix the cross-model handoff note (`bridge_prefix` on a model-family mismatch).
    pub bridge: bool,
    /// `keep_user_messages_max_chars`.
    pub max_chars: usize,
    /// The clock reading, as pydantic dumps a datetime (`...Z`).
    pub now: String,
}

/// The compacted history's records, in order.
pub fn history(layout: &[Piece], f: &Fill) -> Vec<Value> {
    layout.iter().filter_map(|p| piece(p, f)).collect()
}

fn piece(p: &Piece, f: &Fill) -> Option<Value> {
    Some(match p {
        Piece::Standing(pairs) => {
            let parts = pairs.iter().filter_map(|&(i, j)| part(f, i, j)).collect();
            request(parts, Value::Null)
        }
        Piece::Record { rec, parts } => record(f, *rec, parts)?,
        Piece::Copy { rec, parts } => copy(f, *rec, parts)?,
        Piece::Summary => summary(f),
        Piece::Receipt => receipt(f.receipt?, &f.now),
    })
}

fn part(f: &Fill, i: usize, j: usize) -> Option<Value> {
    f.records
        .get(i)?
        .get("parts")?
        .get(j)
        .filter(|v| !v.is_null())
        .cloned()
}

/// Record `i` with only `parts` (the stored record itself when they are all of them).
fn record(f: &Fill, i: usize, parts: &[usize]) -> Option<Value> {
    let mut v = f.records.get(i)?.clone();
    let all = f.recs.get(i).is_some_and(|r| r.parts.len() == parts.len());
    if !all {
        let kept: Vec<Value> = parts.iter().filter_map(|&j| part(f, i, j)).collect();
        v.as_object_mut()?
            .insert("parts".into(), Value::Array(kept));
    }
    Some(v)
}

fn summary(f: &Fill) -> Value {
    let text = f.summary.unwrap_or_default();
    let text = match f.bridge {
        true => format!("{BRIDGE}{}", text.strip_prefix(BRIDGE).unwrap_or(text)),
        false => text.to_string(),
    };
    let created_at = match f.now.strip_suffix('Z') {
        Some(t) => format!("{t}+00:00"),
        None => f.now.clone(),
    };
    let part = json!({
        "content": text, "id": null, "provider_name": null, "provider_details": null,
        "metadata": { SUMMARY_KEY: true, CREATED_AT_KEY: created_at },
        "part_kind": "compaction"
    });
    request(vec![part], Value::String(f.now.clone()))
}

fn receipt(text: &str, now: &str) -> Value {
    let part = json!({
        "content": [{"content": text, "metadata": RECEIPT_META, "kind": "text-content"}],
        "timestamp": now, "part_kind": "user-prompt"
    });
    request(vec![part], Value::Null)
}

/// `_kept_user_messages`: the user turns of record `i`, each marked as a kept copy and bounded
/// to `max_chars`, in a copy of the request whose metadata marks it too.
fn copy(f: &Fill, i: usize, parts: &[usize]) -> Option<Value> {
    let mut v = f.records.get(i)?.clone();
    let kept: Vec<Value> = parts
        .iter()
        .filter_map(|&j| part(f, i, j))
        .map(|p| marked(p, f.max_chars))
        .collect();
    let obj = v.as_object_mut()?;
    obj.insert("parts".into(), Value::Array(kept));
    let mut meta = obj
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    meta.insert(KEPT_META.into(), Value::Bool(true));
    obj.insert("metadata".into(), Value::Object(meta));
    Some(v)
}

/// `_mark_kept` of a bounded `UserPromptPart` (one already marked is kept as it is).
fn marked(mut p: Value, max_chars: usize) -> Value {
    let is_marker = |m: &Value| {
        m.as_str() == Some(KEPT_META) || m.get(KEPT_META).and_then(Value::as_bool) == Some(true)
    };
    let items: Vec<Value> = match p.get("content") {
        Some(Value::String(s)) => vec![Value::String(s.clone())],
        Some(Value::Array(items)) => items.clone(),
        _ => return p,
    };
    let already = items.iter().any(|it| {
        it.get("kind").and_then(Value::as_str) == Some("text-content")
            && it.get("metadata").is_some_and(is_marker)
    });
    if already {
        return p;
    }
    let mut remaining = max_chars;
    let mut out = Vec::new();
    for item in items {
        let text_item =
            item.is_string() || item.get("kind").and_then(Value::as_str) == Some("text-content");
        if !text_item {
            out.push(item);
            continue;
        }
        if remaining == 0 {
            continue;
        }
        let text = item
            .as_str()
            .or_else(|| item.get("content").and_then(Value::as_str))
            .unwrap_or_default();
        let cut = truncate(text, remaining);
        remaining -= cut.chars().count().min(remaining);
        out.push(mark(item, cut));
    }
    if let Some(obj) = p.as_object_mut() {
        obj.insert("content".into(), Value::Array(out));
    }
    p
}

fn mark(item: Value, text: String) -> Value {
    let Value::Object(mut obj) = item else {
        return json!({"content": text, "metadata": KEPT_META, "kind": "text-content"});
    };
    obj.insert("content".into(), Value::String(text));
    let meta = match obj.remove("metadata") {
        None | Some(Value::Null) => Value::String(KEPT_META.into()),
        Some(Value::Object(mut m)) => {
            m.insert(KEPT_META.into(), Value::Bool(true));
            Value::Object(m)
        }
        Some(other) => other,
    };
    let mut ordered = Map::new();
    for (k, v) in obj {
        if k == "kind" {
            ordered.insert("metadata".into(), meta.clone());
        }
        ordered.insert(k, v);
    }
    if !ordered.contains_key("metadata") {
        ordered.insert("metadata".into(), meta);
    }
    Value::Object(ordered)
}

/// `_truncate_with_marker`: at most `max` characters, `[...]` inside the cap.
fn truncate(text: &str, max: usize) -> String {
    const MARKER: &str = "[...]";
    if text.chars().count() <= max {
        return text.to_string();
    }
    if max <= MARKER.len() {
        return MARKER[..max].to_string();
    }
    let head: String = text.chars().take(max - MARKER.len()).collect();
    format!("{head}{MARKER}")
}
