//! Byte-level helpers for the discovery scan: find the next line end, and read one top-level
//! key of a JSON object without building a tree.
//!
//! Owns: skipping JSON values lexically (strings, nesting) so a scan touches only the bytes before
//! the key it wants. Must not allocate, validate JSON, or know any session format.

/// Index of the first `\n` in `bytes`, eight bytes at a time.
pub(crate) fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = ONES * b'\n' as u64;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word) ^ NL;
        if (x.wrapping_sub(ONES) & !x & HIGHS) != 0 {
            return chunk.iter().position(|&b| b == b'\n').map(|i| offset + i);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| offset + i)
}

/// Splits `bytes` into lines (without the `\n`); the last piece is the unterminated tail, if any.
pub(crate) struct Lines<'a> {
    rest: &'a [u8],
}

impl<'a> Lines<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Lines<'a> {
        Lines { rest: bytes }
    }
}

/// One line, and whether a `\n` ended it.
pub(crate) struct Line<'a> {
    pub(crate) text: &'a [u8],
    pub(crate) complete: bool,
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let rest = self.rest;
        match find_newline(rest) {
            Some(i) => {
                self.rest = rest.get(i + 1..).unwrap_or_default();
                Some(Line {
                    text: rest.get(..i).unwrap_or_default(),
                    complete: true,
                })
            }
            None => {
                self.rest = &[];
                Some(Line {
                    text: rest,
                    complete: false,
                })
            }
        }
    }
}

/// The bytes from where the value of top-level `key` starts (to the end of `obj`), if `obj` is a
/// JSON object holding that key. Stops at the key: the bytes after it are never looked at.
pub(crate) fn value_of<'a>(obj: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let mut i = skip_ws(obj, 0);
    if obj.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_ws(obj, i);
        if obj.get(i) != Some(&b'"') {
            return None;
        }
        let end = skip_string(obj, i)?;
        let name = obj.get(i + 1..end - 1)?;
        i = skip_ws(obj, end);
        if obj.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(obj, i + 1);
        if name == key.as_bytes() {
            return obj.get(i..);
        }
        i = skip_ws(obj, skip_value(obj, i)?);
        match obj.get(i) {
            Some(b',') => i += 1,
            _ => return None,
        }
    }
}

/// The raw contents of the string at the start of `value` (escapes left as they are).
pub(crate) fn raw_str(value: &[u8]) -> Option<&[u8]> {
    if value.first() != Some(&b'"') {
        return None;
    }
    let end = skip_string(value, 0)?;
    value.get(1..end - 1)
}

/// The string value of top-level `key` in `obj`, raw.
pub(crate) fn str_of<'a>(obj: &'a [u8], key: &str) -> Option<&'a [u8]> {
    value_of(obj, key).and_then(raw_str)
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while s.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// Index just past the string starting at `i` (which holds `"`).
fn skip_string(s: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        match s.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

/// Index just past the value starting at `i`.
fn skip_value(s: &[u8], i: usize) -> Option<usize> {
    match s.get(i)? {
        b'"' => skip_string(s, i),
        b'{' | b'[' => skip_nested(s, i),
        _ => {
            let mut j = i;
            while s
                .get(j)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// Index just past the object or array starting at `i`.
fn skip_nested(s: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    loop {
        match s.get(j)? {
            b'"' => {
                j = skip_string(s, j)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newline_found_at_every_position() {
        for len in 0..40 {
            for at in 0..len {
                let mut v = vec![b'x'; len];
                v[at] = b'\n';
                assert_eq!(find_newline(&v), Some(at));
            }
            assert_eq!(find_newline(&vec![b'x'; len]), None);
        }
    }

    #[test]
    fn top_level_key_skips_nested_and_escaped() {
        let line = br#"{"data":{"type":"user","x":[1,{"type":"a"}]},"s":"q\"type\":","n":-1.5e3,"type":"assistant"}"#;
        assert_eq!(str_of(line, "type"), Some(&b"assistant"[..]));
        assert_eq!(str_of(line, "missing"), None);
        assert_eq!(str_of(b"[1]", "type"), None);
        assert_eq!(str_of(br#"{"type":"us"#, "type"), None);
        assert_eq!(
            str_of(br#" { "a" : true , "type" : "x" }"#, "type"),
            Some(&b"x"[..])
        );
    }
}
