//! Python's `json.dumps` over `serde_json::Value` (insertion order kept, as Python dicts keep
//! it): the `ensure_ascii` and `sort_keys` flags Agent Framework uses, default separators
//! (`", "`, `": "`), floats as `float.__repr__`. Knows nothing of messages.

use serde_json::Value;

use crate::pyrepr;

/// `json.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys)`.
pub fn dumps(value: &Value, ensure_ascii: bool, sort_keys: bool) -> String {
    let mut out = String::new();
    write(value, ensure_ascii, sort_keys, &mut out);
    out
}

fn write(value: &Value, ascii: bool, sort: bool, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                let x = n.as_f64().unwrap_or(0.0);
                out.push_str(&match x {
                    x if x.is_nan() => "NaN".to_string(),
                    x if x.is_infinite() && x > 0.0 => "Infinity".to_string(),
                    x if x.is_infinite() => "-Infinity".to_string(),
                    x => pyrepr::float_repr(x),
                });
            }
        }
        Value::String(s) => write_str(s, ascii, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(item, ascii, sort, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if sort {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str(k, ascii, out);
                out.push_str(": ");
                write(v, ascii, sort, out);
            }
            out.push('}');
        }
    }
}

fn write_str(s: &str, ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if ascii && (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Python's `len()` of a string: code points.
pub fn py_len(s: &str) -> usize {
    s.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matches_python_dumps() {
        // json.dumps({"b": [1, 2.5, None, True], "a": "é\n\"x\""}, ensure_ascii=False, sort_keys=True)
        let v = json!({"b": [1, 2.5, null, true], "a": "é\n\"x\"\u{1}"});
        assert_eq!(
            dumps(&v, false, true),
            "{\"a\": \"é\\n\\\"x\\\"\\u0001\", \"b\": [1, 2.5, null, true]}"
        );
        assert_eq!(dumps(&json!("😀"), true, false), r#""\ud83d\ude00""#);
        assert_eq!(
            dumps(&json!({"z": 1e16, "a": 0.1}), false, false),
            r#"{"z": 1e+16, "a": 0.1}"#
        );
    }
}
