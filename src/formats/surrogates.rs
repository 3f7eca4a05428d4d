//! Lone UTF-16 surrogate escapes in JSON text: `JSON.stringify` writes `\ud83d` alone when a
//! string was cut inside an emoji, and `serde_json` refuses such a string, which would drop the
//! whole record (or refuse a whole JSON document).
//!
//! Owns: rewriting each unpaired `\uD800`–`\uDFFF` escape to `\ufffd` in place, before any JSON
//! is parsed (and `parse_value` for JSON text read apart from a source). The rewrite keeps every byte offset (both escapes are six bytes), so record ranges
//! into the buffer stay valid. It must not touch anything else: a correctly paired escape, an
//! escaped backslash followed by `u` (`\\ud83d` is text, not an escape), raw bytes.

/// Rewrites every unpaired surrogate escape in `bytes` to `\ufffd`; returns how many. One pass,
/// jumping from backslash to backslash.
pub fn repair(bytes: &mut [u8]) -> usize {
    let mut repaired = 0;
    let mut i = 0;
    while let Some(found) = memchr::memchr(b'\\', bytes.get(i..).unwrap_or_default()) {
        let at = i + found;
        if bytes.get(at + 1) != Some(&b'u') {
            // `\\`, `\"`, `\n` …: the escaped byte is not the start of another escape.
            i = at + 2;
            continue;
        }
        let Some(unit) = escape_at(bytes, at) else {
            i = at + 2;
            continue;
        };
        i = at + 6;
        match unit {
            0xD800..=0xDBFF => {
                if escape_at(bytes, at + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) {
                    i = at + 12;
                } else {
                    replace(bytes, at);
                    repaired += 1;
                }
            }
            0xDC00..=0xDFFF => {
                replace(bytes, at);
                repaired += 1;
            }
            _ => {}
        }
    }
    repaired
}

/// Parses JSON text as a `Value`, reading lone surrogate escapes as U+FFFD: for text parsed
/// outside a loaded source (a sidecar file, a streamed event). The text is copied and repaired
/// only when the first parse fails.
pub fn parse_value(text: &[u8]) -> serde_json::Result<serde_json::Value> {
    serde_json::from_slice(text).or_else(|first| {
        let mut copy = text.to_vec();
        if repair(&mut copy) == 0 {
            return Err(first);
        }
        serde_json::from_slice(&copy)
    })
}

/// The code unit of a `\uXXXX` escape starting at `at`, if one is there.
fn escape_at(bytes: &[u8], at: usize) -> Option<u32> {
    let escape = bytes.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    escape[2..].iter().try_fold(0u32, |acc, &b| {
        let digit = char::from(b).to_digit(16)?;
        Some(acc * 16 + digit)
    })
}

fn replace(bytes: &mut [u8], at: usize) {
    if let Some(digits) = bytes.get_mut(at + 2..at + 6) {
        digits.copy_from_slice(b"fffd");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(text: &str) -> (String, usize) {
        let mut bytes = text.as_bytes().to_vec();
        let n = repair(&mut bytes);
        (String::from_utf8(bytes).unwrap(), n)
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character() {
        assert_eq!(
            repaired(r#"{"a":"x \ud83d y"}"#),
            (r#"{"a":"x \ufffd y"}"#.into(), 1)
        );
        assert_eq!(
            repaired(r#"{"a":"\uDE00"}"#),
            (r#"{"a":"\ufffd"}"#.into(), 1)
        );
        // A high surrogate followed by another high one: only the first is alone.
        assert_eq!(
            repaired(r#""\ud83d\ud83d\ude00""#),
            (r#""\ufffd\ud83d\ude00""#.into(), 1)
        );
        // Cut at the end of the text.
        assert_eq!(repaired(r#""\ud83d"#), (r#""\ufffd"#.into(), 1));
        let (text, _) = repaired(r#"{"a":"x \ud83d y","b":"\udc00"}"#);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["a"], "x \u{fffd} y");
        assert_eq!(v["b"], "\u{fffd}");
    }

    #[test]
    fn pairs_escaped_backslashes_and_other_escapes_are_left_alone() {
        for text in [
            r#""\ud83d\ude00""#,
            r#""\\ud83d""#,
            r#""\\\\ud83d""#,
            r#""\u00e9\n\"\\""#,
            r#""\ud83""#,
            r#""\uzzzz""#,
            "\\",
        ] {
            assert_eq!(repaired(text), (text.to_string(), 0), "{text}");
        }
        // An odd run of backslashes ends in a real escape.
        assert_eq!(repaired(r#""\\\ud83d""#), (r#""\\\ufffd""#.into(), 1));
    }

    /// Text parsed apart from a source is repaired only when it needs it, and other errors
    /// are still errors.
    #[test]
    fn parse_value_reads_lone_surrogates_and_keeps_other_errors() {
        let v = parse_value(br#"{"id": "abc \ud83d"}"#).unwrap();
        assert_eq!(v["id"], "abc \u{fffd}");
        assert_eq!(
            parse_value(br#"{"a": "\ud83d\ude00"}"#).unwrap()["a"],
            "\u{1f600}"
        );
        assert!(parse_value(br#"{"a": "\uZZZZ"}"#).is_err());
        assert!(parse_value(br#"{"a": "#).is_err());
    }

    /// One pass over a long line of escapes stays linear.
    #[test]
    fn a_long_line_of_escapes_is_repaired_in_one_pass() {
        let line = format!("\"{}\"", r"\ud83d\\".repeat(1 << 20));
        let (text, n) = repaired(&line);
        assert_eq!(n, 1 << 20);
        assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
    }
}
