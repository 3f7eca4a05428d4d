//! Python's `json.dumps` over `serde_json::Value` (insertion order kept, as Python dicts keep
//! it): the `ensure_ascii` and `sort_keys` flags Agent Framework uses, default separators
//! (`", "`, `": "`), floats as `float.__repr__`. Knows nothing of messages.

use serde_json::Value;

use crate::pyrepr;

/// `json.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys)`.
pub fn dumps(value: &Value, ensure_ascii: bool, sort_keys: bool) -> String {
    pyrepr::json_dumps(value, ensure_ascii, sort_keys)
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
