//! The framework's token estimate of one message: `CharacterEstimatorTokenizer`
//! (`max(1, len(text) // 4)`) over `_serialize_message` — `json.dumps({role, message_id,
//! contents}, ensure_ascii=False, sort_keys=True)` with each content's `to_dict(exclude_none)`
//! minus `raw_representation` and `items`; 1.23 also drops opaque `protected_data` and
//! `encrypted_content`, writes `hosted` on calls and redacts exceptions (its `to_dict`).

use serde_json::{json, Map, Value};

use super::model::{ctype, field, truthy, AfMsg, Estimated};
use super::pyjson::{dumps, py_len};
use super::Version;

/// `CharacterEstimatorTokenizer.count_tokens`.
pub fn count_text(text: &str) -> i64 {
    (py_len(text) / 4).max(1) as i64
}

/// The estimate of one message, as `annotate_token_counts` caches it. It reads the role, the
/// id and the contents only: a copy of a message counted before (the same contents, role and
/// id) is not serialised again.
pub fn count_message(m: &AfMsg, v: Version) -> i64 {
    let memo = m.contents.estimate();
    if let Some(e) = memo.get() {
        if e.v == v && e.role == m.role && e.id == m.id {
            return e.tokens;
        }
    }
    let tokens = count_text(&serialize_message(m, v));
    let _ = memo.set(Estimated {
        role: m.role.clone(),
        id: m.id.clone(),
        v,
        tokens,
    });
    tokens
}

pub fn serialize_message(m: &AfMsg, v: Version) -> String {
    let contents: Vec<Value> = m.contents.iter().map(|c| serialize_content(c, v)).collect();
    let payload = json!({
        "role": m.role,
        "message_id": m.id,
        "contents": contents,
    });
    dumps(&payload, false, true)
}

fn serialize_content(c: &Value, v: Version) -> Value {
    let Some(obj) = c.as_object() else {
        return c.clone();
    };
    let mut p: Map<String, Value> = obj
        .iter()
        .filter(|(_, val)| !val.is_null())
        .map(|(k, val)| (k.clone(), val.clone()))
        .collect();
    p.remove("raw_representation");
    p.remove("items");
    if v == Version::V1_17 {
        return Value::Object(p);
    }
    if ctype(c) == "function_call" && !p.contains_key("hosted") {
        let label = c
            .get("additional_properties")
            .and_then(|a| a.get("server_label"))
            .is_some_and(truthy);
        p.insert("hosted".into(), json!(label));
    }
    if p.contains_key("exception") {
        p.insert("exception".into(), json!("FunctionInvocationError"));
    }
    strip_protected(&mut p);
    if let Some(Value::Object(props)) = p.get("additional_properties") {
        if !props.is_empty() {
            let filtered = strip_opaque(&Value::Object(props.clone())).unwrap_or(json!({}));
            p.insert("additional_properties".into(), filtered);
        }
    }
    Value::Object(p)
}

fn strip_protected(p: &mut Map<String, Value>) {
    let data = p
        .get("protected_data")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    let filtered = data
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
        .filter(|v| v.is_object() || v.is_array())
        .and_then(|v| strip_opaque(&v));
    match filtered {
        Some(f) => {
            p.insert("protected_data".into(), json!(dumps(&f, false, false)));
        }
        None => {
            p.remove("protected_data");
        }
    }
}

/// `_strip_opaque_reasoning_payload`: drops `encrypted_content` members; empty → None.
fn strip_opaque(v: &Value) -> Option<Value> {
    match v {
        Value::Object(map) => {
            let out: Map<String, Value> = map
                .iter()
                .filter(|(k, _)| k.as_str() != "encrypted_content")
                .filter_map(|(k, item)| strip_opaque(item).map(|s| (k.clone(), s)))
                .collect();
            (!out.is_empty()).then_some(Value::Object(out))
        }
        Value::Array(items) => {
            let out: Vec<Value> = items.iter().filter_map(strip_opaque).collect();
            (!out.is_empty()).then_some(Value::Array(out))
        }
        Value::Null => None,
        other => Some(other.clone()),
    }
}

/// Text of `text` contents (`Message.text` joins them with spaces).
pub fn message_text(m: &AfMsg) -> String {
    m.contents
        .iter()
        .filter(|c| ctype(c) == "text")
        .map(|c| field(c, "text").unwrap_or_default())
        .collect::<Vec<_>>()
        .join(" ")
}
