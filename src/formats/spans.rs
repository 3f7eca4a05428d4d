//! Byte ranges of values inside a JSON document, without building it again.
//!
//! Owns: a minimal JSON skipper that finds where the items of an array lie, so a message can
//! point back at its raw record. It trusts that the bytes already parsed as JSON; on anything
//! unexpected it gives up (`None`) rather than guess.

use std::ops::Range;

/// Byte ranges (into `buf`) of the items of the array at `path` (object keys) inside the JSON
/// value that occupies `doc`.
pub fn array_items(buf: &[u8], doc: Range<usize>, path: &[&str]) -> Option<Vec<Range<usize>>> {
    let mut pos = skip_ws(buf, doc.start);
    for key in path {
        pos = find_key(buf, pos, key)?;
    }
    if buf.get(pos) != Some(&b'[') {
        return None;
    }
    let mut items = Vec::new();
    pos = skip_ws(buf, pos + 1);
    if buf.get(pos) == Some(&b']') {
        return Some(items);
    }
    loop {
        let end = skip_value(buf, pos)?;
        items.push(pos..end);
        pos = skip_ws(buf, end);
        match buf.get(pos)? {
            b',' => pos = skip_ws(buf, pos + 1),
            b']' => return Some(items),
            _ => return None,
        }
    }
}

/// Position of the value of `key` in the object starting at `pos`.
fn find_key(buf: &[u8], pos: usize, key: &str) -> Option<usize> {
    if buf.get(pos) != Some(&b'{') {
        return None;
    }
    let mut pos = skip_ws(buf, pos + 1);
    loop {
        if buf.get(pos)? == &b'}' {
            return None;
        }
        let key_end = skip_string(buf, pos)?;
        let name = &buf[pos + 1..key_end - 1];
        pos = skip_ws(buf, key_end);
        if buf.get(pos)? != &b':' {
            return None;
        }
        pos = skip_ws(buf, pos + 1);
        if name == key.as_bytes() {
            return Some(pos);
        }
        pos = skip_ws(buf, skip_value(buf, pos)?);
        match buf.get(pos)? {
            b',' => pos = skip_ws(buf, pos + 1),
            _ => return None,
        }
    }
}

fn skip_ws(buf: &[u8], mut pos: usize) -> usize {
    while pos < buf.len() && matches!(buf[pos], b' ' | b'\t' | b'\n' | b'\r') {
        pos += 1;
    }
    pos
}

/// End (exclusive) of the string starting at `pos`.
fn skip_string(buf: &[u8], pos: usize) -> Option<usize> {
    if buf.get(pos) != Some(&b'"') {
        return None;
    }
    let mut i = pos + 1;
    while i < buf.len() {
        match buf[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// End (exclusive) of the value starting at `pos`. Iterative, so deep nesting cannot overflow.
fn skip_value(buf: &[u8], pos: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = pos;
    loop {
        match *buf.get(i)? {
            b'"' => i = skip_string(buf, i)?,
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            _ => {
                if depth == 0 {
                    while i < buf.len()
                        && !matches!(buf[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                    {
                        i += 1;
                    }
                    return Some(i);
                }
                i += 1;
            }
        }
        if depth == 0 {
            return Some(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_items_of_a_nested_array() {
        let text = br#"{"model": "x", "messages": [ {"a": "]}\"" }, 3 , [1,[2]] ], "z": 1}"#;
        let items = array_items(text, 0..text.len(), &["messages"]).unwrap();
        let got: Vec<&str> = items
            .iter()
            .map(|r| std::str::from_utf8(&text[r.clone()]).unwrap())
            .collect();
        assert_eq!(got, vec![r#"{"a": "]}\"" }"#, "3", "[1,[2]]"]);
    }

    #[test]
    fn bare_array_and_missing_key() {
        let text = b" [ {}, {\"b\":[]} ]";
        assert_eq!(array_items(text, 0..text.len(), &[]).unwrap().len(), 2);
        assert!(array_items(text, 0..text.len(), &["messages"]).is_none());
    }
}
