//! Python's `repr()` / `str()` of JSON-like values, as several frameworks' estimators and
//! summarizer prompts use them (`str(args)`, `str(event)`, `repr(message)`).
//!
//! Owns: quote choice and escapes of `repr(str)`, `True`/`False`/`None`, float formatting,
//! dict/list layout and `json.dumps`, over `serde_json::Value` (insertion order kept, as Python dicts keep it).
//! Tested against real Python output (`fixtures/pyrepr/golden.json`).

use serde_json::Value;

/// `repr(value)` for the Python object `json.loads` would build.
pub fn repr(value: &Value) -> String {
    let mut out = String::new();
    write_repr(value, &mut out);
    out
}

/// `str(value)`: a string is itself; anything else is its repr.
pub fn str_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => repr(other),
    }
}

fn write_repr(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                out.push_str(&float_repr(n.as_f64().unwrap_or(0.0)));
            }
        }
        Value::String(s) => out.push_str(&str_repr(s)),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&str_repr(k));
                out.push_str(": ");
                write_repr(v, out);
            }
            out.push('}');
        }
    }
}

/// `repr(s)` for a Python `str`.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (c as u32) < 0x7f || is_printable(c) => out.push(c),
            c => {
                let n = c as u32;
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n <= 0xffff {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
        }
    }
    out.push(quote);
    out
}

/// `len(repr(value))` in characters, as Python counts them, without building the repr.
pub fn repr_chars(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(_) => repr(value).len(),
        Value::String(s) => str_repr_chars(s),
        Value::Array(items) => list_repr_chars(items.iter().map(repr_chars)),
        Value::Object(map) => dict_repr_chars(map),
    }
}

/// `len(repr(d))` of a dict, in characters.
pub fn dict_repr_chars(map: &serde_json::Map<String, Value>) -> usize {
    dict_entries_repr_chars(map.iter().map(|(k, v)| (k.as_str(), repr_chars(v))))
}

/// `len(repr(l))` of a list whose items' reprs are `items` characters long: brackets and
/// `, ` between items.
pub fn list_repr_chars(items: impl Iterator<Item = usize>) -> usize {
    let (mut n, mut total) = (0usize, 0usize);
    for len in items {
        total += len;
        n += 1;
    }
    2 + n.saturating_sub(1) * 2 + total
}

/// `len(repr(d))` of a dict of `entries` (each key and the length of its value's repr):
/// braces, `': '` after each quoted key and `, ` between entries.
pub fn dict_entries_repr_chars<'a>(entries: impl Iterator<Item = (&'a str, usize)>) -> usize {
    list_repr_chars(entries.map(|(k, len)| str_repr_chars(k) + 2 + len))
}

/// `len(str(value))` in characters.
pub fn str_of_chars(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        other => repr_chars(other),
    }
}

/// `len(repr(s))` for a Python `str`: [`str_repr`]'s length in characters.
pub fn str_repr_chars(s: &str) -> usize {
    let (mut n, mut singles, mut doubles) = (2usize, 0usize, 0usize);
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // A run of ASCII, measured in one branch-free pass.
        let end = bytes[i..]
            .iter()
            .position(|&b| !b.is_ascii())
            .map_or(bytes.len(), |p| i + p);
        let run = ascii_repr(&bytes[i..end]);
        n += run.chars;
        singles += run.singles;
        doubles += run.doubles;
        i = end;
        let Some(c) = s.get(i..).and_then(|rest| rest.chars().next()) else {
            break;
        };
        let code = c as u32;
        n += if is_printable(c) {
            1
        } else if code <= 0xff {
            4
        } else if code <= 0xffff {
            6
        } else {
            10
        };
        i += c.len_utf8();
    }
    // The quote is `"` only when the text holds `'` and no `"`; otherwise every `'` is escaped.
    if singles > 0 && doubles == 0 {
        n
    } else {
        n + singles
    }
}

/// What a run of ASCII adds to a `str`'s repr: its characters escaped (`\\`, `\t`, `\n`, `\r`
/// take 2, other controls `\xNN` 4, quotes 1 before the quote is chosen), and its quotes.
struct AsciiRepr {
    chars: usize,
    singles: usize,
    doubles: usize,
}

fn ascii_repr(run: &[u8]) -> AsciiRepr {
    let mut out = AsciiRepr {
        chars: run.len(),
        singles: 0,
        doubles: 0,
    };
    // In blocks whose sums fit in a u32 lane, so the loop stays vectorized.
    for block in run.chunks(1 << 20) {
        let (mut extra, mut singles, mut doubles) = (0u32, 0u32, 0u32);
        for &b in block {
            let two = u32::from(b == b'\\' || b == b'\t' || b == b'\n' || b == b'\r');
            let control = u32::from(b < 0x20 || b == 0x7f);
            // A control that is not one of the two-character escapes takes 4.
            extra += two + 3 * (control - (control & two));
            singles += u32::from(b == b'\'');
            doubles += u32::from(b == b'"');
        }
        out.chars += extra as usize;
        out.singles += singles as usize;
        out.doubles += doubles as usize;
    }
    out
}

/// Python's `str.isprintable()` for one non-ASCII character: false for separators (Zs, Zl,
/// Zp), controls (Cc), format characters (Cf), private use (Co) and noncharacters. Unassigned
/// code points (Cn) are treated as printable: telling them apart needs the Unicode database.
fn is_printable(c: char) -> bool {
    let n = c as u32;
    let not_printable = matches!(n,
        0x80..=0xa0
        | 0xad
        | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891 | 0x8e2
        | 0x1680 | 0x180e
        | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x2064 | 0x2066..=0x206f
        | 0x3000
        | 0xd800..=0xf8ff
        | 0xfdd0..=0xfdef
        | 0xfeff | 0xfff9..=0xfffb
        | 0x110bd | 0x110cd | 0x13430..=0x1343f
        | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a
        | 0xe0001 | 0xe0020..=0xe007f
        | 0xf0000..=0x10ffff
    );
    !not_printable && (n & 0xfffe) != 0xfffe
}

/// Python's `json.dumps` with default separators (`", "`, `": "`), floats as
/// `float.__repr__`; the `ensure_ascii` and `sort_keys` flags as in Python.
pub fn json_dumps(value: &Value, ensure_ascii: bool, sort_keys: bool) -> String {
    let mut out = String::new();
    write_json(value, ensure_ascii, sort_keys, &mut out);
    out
}

fn write_json(value: &Value, ascii: bool, sort: bool, out: &mut String) {
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
                    x => float_repr(x),
                });
            }
        }
        Value::String(s) => write_json_str(s, ascii, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json(item, ascii, sort, out);
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
                write_json_str(k, ascii, out);
                out.push_str(": ");
                write_json(v, ascii, sort, out);
            }
            out.push('}');
        }
    }
}

fn write_json_str(s: &str, ascii: bool, out: &mut String) {
    out.push('"');
    // Runs of characters that stand for themselves are copied whole.
    let bytes = s.as_bytes();
    let (mut from, mut i) = (0, 0);
    while i < bytes.len() {
        let b = bytes[i];
        if b >= 0x20 && b != b'"' && b != b'\\' && !(ascii && b > 0x7e) {
            i += 1;
            continue;
        }
        out.push_str(&s[from..i]);
        let Some(c) = s[i..].chars().next() else {
            break;
        };
        write_json_char(c, ascii, out);
        i += c.len_utf8();
        from = i;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// One character of a string as `json.dumps` writes it.
fn write_json_char(c: char, ascii: bool, out: &mut String) {
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

/// `repr(float)`: the shortest round-tripping digits, fixed notation for exponents -4..16,
/// scientific (`1e+16`, `1.5e-05`) otherwise.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let point = exp + 1;
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let (head, tail) = digits.split_at(1);
        let frac = if tail.is_empty() {
            String::new()
        } else {
            format!(".{tail}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{head}{frac}e{esign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalars_and_containers() {
        let v = json!({"path": "a.txt", "n": 3, "ok": true, "x": null, "l": [1.5, "b"]});
        assert_eq!(
            repr(&v),
            "{'path': 'a.txt', 'n': 3, 'ok': True, 'x': None, 'l': [1.5, 'b']}"
        );
        assert_eq!(str_of(&json!("plain")), "plain");
    }

    #[test]
    fn quotes_and_escapes() {
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("both ' and \""), "'both \\' and \"'");
        assert_eq!(str_repr("a\nb\t\\\u{1}"), "'a\\nb\\t\\\\\\x01'");
        assert_eq!(
            str_repr("caf\u{e9} \u{a0}\u{200b}日本"),
            "'café \\xa0\\u200b日本'"
        );
    }

    /// The counted length is the built repr's, character for character: every escape class
    /// (backslash, tab, controls, DEL, Latin-1 and BMP non-printables, astral, both quotes)
    /// inside containers. Fails when one class is charged the wrong width.
    #[test]
    fn repr_chars_is_the_repr_s_length() {
        let mut texts: Vec<String> = crate::testing::hostile_lines();
        texts.extend(
            [
                "it's",
                "say \"hi\"",
                "both ' and \"",
                "a\\b",
                "\u{1}\u{7f}\u{80}\u{a0}",
                "caf\u{e9} \u{200b}\u{2028}\u{feff}日本",
                "\u{1f600}\u{e0001}\u{ffff}\u{10fffe}",
                "\u{fdd0}\u{d7ff}",
                "",
            ]
            .map(String::from),
        );
        for t in &texts {
            assert_eq!(str_repr_chars(t), str_repr(t).chars().count(), "{t:?}");
        }
        let v = json!({
            "t": texts, "n": [1, -2, 1.5, 1e300, 0.0001], "b": [true, false, null],
            "nested": {"it's": {"x": []}, "": {}}
        });
        assert_eq!(repr_chars(&v), repr(&v).chars().count());
        for item in [v.clone(), v["t"][8].clone(), json!(2.5)] {
            assert_eq!(str_of_chars(&item), str_of(&item).chars().count());
        }
    }

    /// `write_json_str` as first written, a character at a time.
    fn json_str_by_chars(s: &str, ascii: bool) -> String {
        let mut out = String::from('"');
        for c in s.chars() {
            write_json_char(c, ascii, &mut out);
        }
        out.push('"');
        out
    }

    proptest::proptest! {
        #[test]
        fn json_strings_copied_by_runs_equal_them_written_by_characters(
            t in proptest::prelude::any::<String>(),
            mixed in "[a\"\\\\\n\u{1}\u{7f}\u{80}é😀 ]{0,40}",
        ) {
            for s in [&t, &mixed] {
                for ascii in [false, true] {
                    let mut got = String::new();
                    write_json_str(s, ascii, &mut got);
                    proptest::prop_assert_eq!(got, json_str_by_chars(s, ascii));
                }
            }
        }

        /// Any text: the counted length is the built repr's.
        #[test]
        fn repr_chars_of_any_text(
            t in proptest::prelude::any::<String>(),
            mixed in "['\"\\\\\t\n\r\u{1}\u{1f}\u{7f}a \u{80}\u{a0}é😀]{0,40}",
        ) {
            for s in [&t, &mixed] {
                proptest::prop_assert_eq!(str_repr_chars(s), str_repr(s).chars().count(), "{:?}", s);
            }
        }
    }

    #[test]
    fn floats_like_python() {
        assert_eq!(float_repr(1.0), "1.0");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(1.5e-5), "1.5e-05");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(123456789.125), "123456789.125");
        assert_eq!(float_repr(-2.5e22), "-2.5e+22");
    }
}
