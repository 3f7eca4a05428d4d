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
    let mut out = String::new();
    write_json(v, sort_keys, &mut out);
    out
}

fn write_json(v: &Value, sort_keys: bool, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(_) => out.push_str(&pyrepr::repr(v)),
        Value::String(s) => write_json_str(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json(item, sort_keys, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            if sort_keys {
                entries.sort_by(|a, b| a.0.chars().cmp(b.0.chars()));
            }
            out.push('{');
            for (i, (k, val)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json_str(k, out);
                out.push_str(": ");
                write_json(val, sort_keys, out);
            }
            out.push('}');
        }
    }
}

fn write_json_str(s: &str, out: &mut String) {
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
            c => out.push(c),
        }
    }
    out.push('"');
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
