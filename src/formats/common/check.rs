//! Checking the lines of a JSONL source without building their values.
//!
//! Owns: cutting the source into lines (on several threads for a large one), accepting a line
//! exactly when a `serde_json::Value` parse would accept it as an object or array, the reason
//! when not, and the line-length limit. Must not: build the values or know any format.

use super::{describe_json_error, trim_line, Lines, Span};
use crate::formats::LoadError;
use crate::session::Skipped;

/// The name of the source and the longest JSONL line it may hold.
pub(super) struct Bounds<'a> {
    pub(super) shown: &'a str,
    pub(super) max_line: usize,
}

impl Bounds<'_> {
    /// The error for line `line` (1-based) being over the limit.
    pub(super) fn too_long(&self, line: usize) -> LoadError {
        LoadError::Malformed {
            path: self.shown.to_string(),
            line,
            what: crate::limits::line_exceeded(self.max_line as u64),
        }
    }
}

/// Checks every non-empty line (without building its value); lines that are not JSON
/// objects or arrays are reported. Large sources are checked on all cores, in slices that
/// start at a line.
pub(super) fn check_lines(
    buffer: &[u8],
    start: usize,
    bounds: &Bounds,
    skipped: &mut Vec<Skipped>,
) -> Result<Lines, LoadError> {
    let body = &buffer[start..];
    let threads = crate::par::cores();
    let pieces = if body.len() < PARALLEL_CHECK_MIN {
        1
    } else {
        threads.min(8)
    };
    let mut cuts = vec![start];
    for k in 1..pieces {
        let at = start + body.len() * k / pieces;
        let prev = *cuts.last().unwrap_or(&start);
        let next = memchr::memchr(b'\n', &buffer[at.max(prev)..]).map(|i| at.max(prev) + i + 1);
        match next {
            Some(n) if n < buffer.len() => cuts.push(n),
            _ => break,
        }
    }
    cuts.push(buffer.len());
    let max = bounds.max_line;
    let checked: Vec<SliceCheck> = if cuts.len() == 2 {
        vec![check_slice(buffer, start, buffer.len(), max)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = cuts
                .windows(2)
                .map(|w| {
                    let (a, b) = (w[0], w[1]);
                    scope.spawn(move || check_slice(buffer, a, b, max))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        })
    };
    merge(checked, bounds, skipped)
}

/// The slices' lines as one source's: line numbers restart at 0 in each slice, so they are
/// shifted by the lines before it.
fn merge(
    checked: Vec<SliceCheck>,
    bounds: &Bounds,
    skipped: &mut Vec<Skipped>,
) -> Result<Lines, LoadError> {
    let mut lines = Lines::default();
    let mut before = 0usize;
    for slice in checked {
        if let Some(number) = slice.too_long {
            return Err(bounds.too_long(before + number + 1));
        }
        lines.spans.extend(slice.spans.into_iter().map(|mut s| {
            s.index += before;
            s
        }));
        skipped.extend(slice.skipped.into_iter().map(|mut k| {
            k.line += before;
            k
        }));
        before += slice.lines;
    }
    Ok(lines)
}

/// What checking one slice found; line numbers are relative to the slice.
#[derive(Default)]
struct SliceCheck {
    /// The valid lines.
    spans: Vec<Span>,
    skipped: Vec<Skipped>,
    /// How many lines the slice holds.
    lines: usize,
    /// The first line longer than the limit (checking stopped there).
    too_long: Option<usize>,
}

/// Below this many bytes the lines are checked on one thread.
pub(super) const PARALLEL_CHECK_MIN: usize = 4 << 20;

/// Checks the lines of `buffer[from..to]` (which starts at a line), up to the first line
/// longer than `max_line` bytes.
fn check_slice(buffer: &[u8], from: usize, to: usize, max_line: usize) -> SliceCheck {
    let mut spans = Vec::new();
    let mut skipped = Vec::new();
    let mut pos = from;
    let mut number = 0usize;
    while pos < to {
        let end = memchr::memchr(b'\n', &buffer[pos..to]).map_or(to, |i| pos + i);
        let last = end == buffer.len();
        let line = trim_line(&buffer[pos..end]);
        if line.len() > max_line {
            return SliceCheck {
                too_long: Some(number),
                ..SliceCheck::default()
            };
        }
        if !line.is_empty() {
            match check_line(line) {
                Ok(()) => spans.push(Span {
                    index: number,
                    start: pos,
                    end: pos + line.len(),
                }),
                Err(reason) => skipped.push(Skipped {
                    line: number + 1,
                    reason: if last && reason.is_eof() {
                        "truncated last line (incomplete JSON)".to_string()
                    } else {
                        reason.describe(line)
                    },
                }),
            }
        }
        number += 1;
        pos = end + 1;
    }
    SliceCheck {
        spans,
        skipped,
        lines: number,
        too_long: None,
    }
}

/// Why a line is not a record.
enum BadLine {
    Bare,
    Json(serde_json::Error),
}

impl BadLine {
    fn is_eof(&self) -> bool {
        matches!(self, BadLine::Json(e) if e.is_eof())
    }

    fn describe(&self, line: &[u8]) -> String {
        match self {
            BadLine::Bare => "expected a JSON object, found a bare value".to_string(),
            BadLine::Json(e) => describe_json_error(line, e),
        }
    }
}

/// Whether a (trimmed, non-empty) line is one JSON object or array, without building it.
fn check_line(line: &[u8]) -> Result<(), BadLine> {
    serde_json::from_slice::<Checked>(line).map_err(BadLine::Json)?;
    // Valid JSON whose first byte opens an object or array is one.
    match line.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{' | b'[') => Ok(()),
        _ => Err(BadLine::Bare),
    }
}

/// A JSON value read and thrown away, accepted exactly when a `Value` would be: unlike
/// `IgnoredAny`, it goes through `deserialize_any`, so numbers out of range and nesting past
/// the depth limit fail here as they fail there.
struct Checked;

impl<'de> serde::Deserialize<'de> for Checked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Checked, D::Error> {
        d.deserialize_any(CheckVisitor)
    }
}

struct CheckVisitor;

impl<'de> serde::de::Visitor<'de> for CheckVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        while map.next_entry::<Checked, Checked>()?.is_some() {}
        Ok(Checked)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// A large source is checked on several threads in slices cut at line starts: the lines,
    /// their numbers and the skipped ones are those of one pass over the whole.
    #[test]
    fn checking_in_slices_equals_one_pass() {
        let mut bytes = Vec::new();
        let mut n = 0usize;
        while bytes.len() < PARALLEL_CHECK_MIN * 3 {
            let line = match n % 97 {
                0 => "{\"broken\": ".to_string(),
                1 => String::new(),
                2 => "   ".to_string(),
                3 => "17".to_string(),
                _ => format!(
                    "{{\"type\": \"user\", \"n\": {n}, \"text\": \"{}\"}}",
                    "x".repeat(n % 300)
                ),
            };
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
            n += 1;
        }
        bytes.extend_from_slice(b"{\"last\": tru");
        let mut skipped = Vec::new();
        let bounds = Bounds {
            shown: "x",
            max_line: usize::MAX,
        };
        let lines = check_lines(&bytes, 0, &bounds, &mut skipped).unwrap();
        let one_pass = check_slice(&bytes, 0, bytes.len(), usize::MAX);
        let (spans, one_pass_skipped) = (one_pass.spans, one_pass.skipped);
        let got: Vec<(usize, usize, usize)> = lines
            .spans
            .iter()
            .map(|s| (s.index, s.start, s.end))
            .collect();
        let want: Vec<(usize, usize, usize)> =
            spans.iter().map(|s| (s.index, s.start, s.end)).collect();
        assert_eq!(got, want);
        assert_eq!(skipped, one_pass_skipped);
        assert!(skipped
            .iter()
            .any(|k| k.reason.starts_with("truncated last line")));
        assert!(skipped.len() > 2 * (n / 97));
    }

    /// A line is checked without building its value, and accepted exactly when a `Value` parse
    /// accepts it as an object or array, with the same reason when not.
    #[test]
    fn checking_a_line_agrees_with_parsing_it() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let lines: Vec<&[u8]> = vec![
            br#"{"a": 1, "b": [true, null, "x\u00e9"]}"#,
            br#"{"x": 1e400}"#,
            br#"{"x": -1e400}"#,
            br#"{"x": 123456789012345678901234567890}"#,
            deep.as_bytes(),
            br#"{"x": "\ud800"}"#,
            br#"{"x": 1}garbage"#,
            b"42",
            br#""text""#,
            br#"[1, 2"#,
            br#"{"dup": 1, "dup": 2}"#,
            b"{\"bad\": \"\xff\"}",
        ];
        for line in lines {
            let parsed = serde_json::from_slice::<Value>(line);
            let checked = check_line(line);
            match (&parsed, &checked) {
                (Ok(v), Ok(())) => assert!(v.is_object() || v.is_array()),
                (Ok(v), Err(BadLine::Bare)) => assert!(!v.is_object() && !v.is_array()),
                (Err(e), Err(bad)) => assert_eq!(
                    bad.describe(line),
                    describe_json_error(line, e),
                    "{}",
                    String::from_utf8_lossy(line)
                ),
                _ => panic!(
                    "{}: parse {:?}, check {:?}",
                    String::from_utf8_lossy(line),
                    parsed.is_ok(),
                    checked.is_ok()
                ),
            }
        }
    }
}
