//! The few Python behaviours Hermes' compressor leans on, over `serde_json::Value`: `len()` and
//! slicing in code points, `json.dumps` (default separators, `ensure_ascii=False`, optional
//! `sort_keys`), truthiness, `str()` and `f"{n:,}"`.

use serde_json::Value;

use crate::pyrepr;

/// `len(s)`: code points.
pub fn len(s: &str) -> usize {
    s.chars().count()
}

/// `s[:n]`.
pub fn head(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((at, _)) => &s[..at],
        None => s,
    }
}

/// `s[-n:]` (n > 0).
pub fn tail(s: &str, n: usize) -> &str {
    let total = len(s);
    if n >= total {
        return s;
    }
    match s.char_indices().nth(total - n) {
        Some((at, _)) => &s[at..],
        None => "",
    }
}

/// `str(value)`.
pub fn str_of(v: &Value) -> String {
    pyrepr::str_of(v)
}

/// Python truthiness of a JSON-built value.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `f"{n:,}"`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `json.dumps(v, ensure_ascii=False[, sort_keys=True])`.
pub fn dumps(v: &Value, sort_keys: bool) -> String {
    pyrepr::json_dumps(v, false, sort_keys)
}

/// `str.strip()` is empty.
pub fn is_blank(s: &str) -> bool {
    s.chars().all(is_space)
}

/// Python's `str.isspace()` for one character (Unicode whitespace plus the \x1c–\x1f separators).
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dumps_like_python() {
        let v = json!({"b": [1, 2.5, null, true], "a": "é\n\"x\u{1}"});
        assert_eq!(
            dumps(&v, false),
            "{\"b\": [1, 2.5, null, true], \"a\": \"é\\n\\\"x\\u0001\"}"
        );
        assert_eq!(
            dumps(&v, true),
            "{\"a\": \"é\\n\\\"x\\u0001\", \"b\": [1, 2.5, null, true]}"
        );
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(999), "999");
        assert_eq!(head("héllo", 2), "hé");
        assert_eq!(tail("héllo", 3), "llo");
    }
}
