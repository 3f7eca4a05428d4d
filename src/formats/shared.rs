//! Helpers the plain message-list formats share (Chat Completions, Anthropic Messages,
//! pydantic-ai, LangChain, Agent Framework): finding the list of records, synthesized call ids,
//! opaque parts without inline payloads, Python `json.dumps` text and epoch timestamps.
//!
//! Owns nothing format-specific: each of those parsers decides what a record means.

use serde_json::{Map, Value};

use crate::formats::common::{to_json, Doc, Item, Loaded};
use crate::session::Part;

/// The records of a list-shaped source and the object that wraps them, if any.
pub(crate) struct Listing<'a> {
    pub items: Vec<Item<'a>>,
    /// The request body / log object holding the list (`{"messages": [...], ...}`).
    pub wrapper: Option<&'a Value>,
}

/// Finds the records: the lines of a JSONL file, a bare JSON array, the array under the first
/// of `keys` found in an object document, or else the object document itself as one record.
pub(crate) fn listing<'a>(loaded: &'a Loaded, keys: &[&str]) -> Listing<'a> {
    if let Doc::Lines(lines) = &loaded.doc {
        if lines.len() > 1 {
            return Listing {
                items: loaded.lines(),
                wrapper: None,
            };
        }
    }
    let Some(doc) = loaded.document() else {
        return Listing {
            items: Vec::new(),
            wrapper: None,
        };
    };
    if doc.is_array() {
        return Listing {
            items: loaded.items(&[]),
            wrapper: None,
        };
    }
    if let Some(key) = keys
        .iter()
        .find(|k| doc.get(**k).is_some_and(Value::is_array))
    {
        return Listing {
            items: loaded.items(&[key]),
            wrapper: Some(doc),
        };
    }
    let items = match &loaded.doc {
        Doc::Lines(_) => loaded.lines(),
        _ => vec![Item {
            index: 0,
            range: Some((loaded.start, trimmed_end(&loaded.buffer))),
            value: doc,
        }],
    };
    Listing {
        items,
        wrapper: None,
    }
}

fn trimmed_end(buffer: &[u8]) -> usize {
    buffer.len()
        - buffer
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_whitespace())
            .count()
}

/// The call id the source gives, or a stable synthesized one (`"<record>:<n>"`).
pub(crate) fn call_id(given: Option<&str>, record: usize, n: usize) -> String {
    match given {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => format!("{record}:{n}"),
    }
}

/// An opaque part holding `value` as compact JSON, with inline payloads (base64 data, data
/// URIs) replaced by a note of their length so no payload is kept.
pub(crate) fn opaque(kind: &str, value: &Value) -> Part {
    Part::Opaque {
        kind: kind.to_string(),
        raw: to_json(&strip_payloads(value, None)),
    }
}

/// Keys whose long string values are binary or encrypted payloads.
const PAYLOAD_KEYS: [&str; 7] = [
    "data",
    "file_data",
    "b64_json",
    "base64",
    "bytes",
    "blob",
    "encrypted_content",
];
/// Strings shorter than this are kept even under a payload key.
const PAYLOAD_MIN: usize = 64;

fn strip_payloads(value: &Value, key: Option<&str>) -> Value {
    match value {
        Value::String(s) if s.len() >= PAYLOAD_MIN => {
            if let Some(rest) = s.strip_prefix("data:") {
                let meta = rest.split(',').next().unwrap_or_default();
                return Value::String(format!("data:{meta},<{} chars>", s.len()));
            }
            if key.is_some_and(|k| PAYLOAD_KEYS.contains(&k)) {
                return Value::String(format!("<{} chars>", s.len()));
            }
            value.clone()
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| strip_payloads(v, key)).collect()),
        Value::Object(map) => {
            let stripped: Map<String, Value> = map
                .iter()
                .map(|(k, v)| (k.clone(), strip_payloads(v, Some(k))))
                .collect();
            Value::Object(stripped)
        }
        _ => value.clone(),
    }
}

/// A JSON value as Python's `json.dumps(value)` writes it: `", "` and `": "` separators and
/// non-ASCII characters escaped (`ensure_ascii=True`).
pub(crate) fn py_json(value: &Value) -> String {
    crate::pyrepr::json_dumps(value, true, false)
}

/// Seconds since the Unix epoch as an RFC 3339 UTC timestamp (millisecond precision).
pub(crate) fn iso_from_epoch(secs: f64) -> Option<String> {
    if !(0.0..=253_402_300_799.0).contains(&secs) {
        return None;
    }
    let millis = (secs * 1000.0).round() as i64;
    let (days, ms_of_day) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    let (y, m, d) = civil_from_days(days);
    let s = ms_of_day / 1000;
    Some(format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        s / 3600,
        s / 60 % 60,
        s % 60,
        ms_of_day % 1000
    ))
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn py_json_matches_python_dumps() {
        // python3 -c 'import json; print(json.dumps({"a": [1, 2.5, None, True], "b": "é\n\"x\"", "c": {}}))'
        let v = json!({"a": [1, 2.5, null, true], "b": "é\n\"x\"", "c": {}});
        assert_eq!(
            py_json(&v),
            r#"{"a": [1, 2.5, null, true], "b": "\u00e9\n\"x\"", "c": {}}"#
        );
        // json.dumps("😀") == '"\\ud83d\\ude00"'
        assert_eq!(py_json(&json!("😀")), r#""\ud83d\ude00""#);
    }

    #[test]
    fn epoch_to_iso() {
        // datetime.fromtimestamp(1718000000.5, timezone.utc) == 2024-06-10 06:13:20.500000
        assert_eq!(
            iso_from_epoch(1_718_000_000.5).as_deref(),
            Some("2024-06-10T06:13:20.500Z")
        );
        assert_eq!(
            iso_from_epoch(0.0).as_deref(),
            Some("1970-01-01T00:00:00.000Z")
        );
        assert_eq!(iso_from_epoch(f64::NAN), None);
    }

    #[test]
    fn payloads_are_stripped_from_opaque_parts() {
        let data = "A".repeat(100);
        let v = json!({"type": "input_audio", "input_audio": {"data": data, "format": "wav"},
                       "uri": format!("data:audio/wav;base64,{data}")});
        let Part::Opaque { kind, raw } = opaque("input_audio", &v) else {
            panic!("not opaque")
        };
        assert_eq!(kind, "input_audio");
        assert!(!raw.contains(&data));
        assert!(raw.contains(r#""data":"<100 chars>""#));
        assert!(raw.contains("data:audio/wav;base64,<122 chars>"));
    }

    #[test]
    fn synthesized_ids_are_stable() {
        assert_eq!(call_id(None, 4, 1), "4:1");
        assert_eq!(call_id(Some(""), 4, 1), "4:1");
        assert_eq!(call_id(Some("call_1"), 4, 1), "call_1");
    }
}
