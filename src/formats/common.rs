//! What every parser starts from: the loaded bytes split into records, and small JSON helpers.
//!
//! Owns: JSONL splitting (with byte ranges and malformed-line reports), whole-document JSON,
//! zip detection, and typed accessors over `serde_json::Value`. It knows no format.

use std::borrow::Cow;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::{spans, LoadError};
use crate::session::{Skipped, Usage};

/// One JSONL line that parsed.
#[derive(Debug, Clone)]
pub struct Record {
    /// 0-based line number.
    pub index: usize,
    pub range: Range<usize>,
    pub value: Value,
}

/// A borrowed record: a JSONL line or an item of a JSON array, with its source position.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    /// 0-based line number (JSONL) or array index (JSON).
    pub index: usize,
    pub range: Option<(usize, usize)>,
    pub value: &'a Value,
}

impl Item<'_> {
    pub fn range(&self) -> Option<Range<usize>> {
        self.range.map(|(a, b)| a..b)
    }
}

/// The shape of the loaded bytes.
#[derive(Debug)]
pub enum Doc {
    /// JSON Lines (one record per line; a one-line file is one record).
    Lines(Lines),
    /// One JSON document spanning several lines.
    Json(Value),
    /// A zip archive (inspect_ai `.eval`).
    Zip,
}

/// The valid lines of a JSONL source. Every line is checked when the source is split (so the
/// skipped lines are known at once), but its JSON value is built only when a parser asks:
/// all at once ([`Loaded::lines`]) or one at a time ([`Loaded::each_line`], which keeps no
/// more than one value alive, so a huge session never holds its whole tree in memory).
#[derive(Debug, Default)]
pub struct Lines {
    spans: Vec<Span>,
    values: OnceLock<Vec<Value>>,
}

/// One valid line: its 0-based number and trimmed byte range.
#[derive(Debug, Clone, Copy)]
struct Span {
    index: usize,
    start: usize,
    end: usize,
}

impl Lines {
    fn of_records(records: Vec<Record>) -> Lines {
        let spans = records
            .iter()
            .map(|r| Span {
                index: r.index,
                start: r.range.start,
                end: r.range.end,
            })
            .collect();
        let values = OnceLock::from(records.into_iter().map(|r| r.value).collect::<Vec<_>>());
        Lines { spans, values }
    }

    /// Number of valid lines.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Every line's value, built on first use.
    fn values(&self, buffer: &[u8]) -> &[Value] {
        self.values
            .get_or_init(|| self.spans.iter().map(|s| s.parse(buffer)).collect())
    }

    /// The values of the first `n` lines (built alone when the others were not).
    pub fn head(&self, buffer: &[u8], n: usize) -> Vec<Cow<'_, Value>> {
        match self.values.get() {
            Some(values) => values.iter().take(n).map(Cow::Borrowed).collect(),
            None => self
                .spans
                .iter()
                .take(n)
                .map(|s| Cow::Owned(s.parse(buffer)))
                .collect(),
        }
    }
}

impl Span {
    fn item<'a>(&self, value: &'a Value) -> Item<'a> {
        Item {
            index: self.index,
            range: Some((self.start, self.end)),
            value,
        }
    }

    /// The line's value. The line was checked when it was split, so this cannot fail but for
    /// memory; a failure gives `null`, which every parser reads as a record of no known type.
    fn parse(&self, buffer: &[u8]) -> Value {
        serde_json::from_slice(&buffer[self.start..self.end]).unwrap_or(Value::Null)
    }
}

/// A source read into memory and split, before any format is applied.
#[derive(Debug)]
pub struct Loaded {
    pub buffer: Arc<Vec<u8>>,
    pub path: Option<PathBuf>,
    /// The name errors and reports use for this source.
    pub shown: String,
    pub doc: Doc,
    /// Lines that were not valid JSON (JSONL only).
    pub skipped: Vec<Skipped>,
    /// Where the content starts (after a byte-order mark).
    pub start: usize,
}

impl Loaded {
    pub fn new(bytes: Vec<u8>, path: Option<PathBuf>, shown: &str) -> Result<Loaded, LoadError> {
        Loaded::within(bytes, path, shown, crate::limits::DEFAULT_LINE)
    }

    /// [`Loaded::new`], refusing a JSONL line longer than `max_line` bytes (a one-line
    /// document is not a line: a regular file is read whatever its size).
    pub fn within(
        bytes: Vec<u8>,
        path: Option<PathBuf>,
        shown: &str,
        max_line: u64,
    ) -> Result<Loaded, LoadError> {
        let start = if bytes.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let mut loaded = Loaded {
            buffer: Arc::new(bytes),
            path,
            shown: shown.to_string(),
            doc: Doc::Zip,
            skipped: Vec::new(),
            start,
        };
        let body = &loaded.buffer[start..];
        if body.starts_with(b"PK\x03\x04") {
            return Ok(loaded);
        }
        if body.iter().all(|b| b.is_ascii_whitespace()) {
            return Err(LoadError::not_session(shown, "the file is empty"));
        }
        let bounds = Bounds {
            shown,
            max_line: usize::try_from(max_line).unwrap_or(usize::MAX),
        };
        loaded.doc = split(&loaded.buffer, start, &bounds, &mut loaded.skipped)?;
        Ok(loaded)
    }

    /// Number of records read (lines, or items of the top-level array).
    pub fn record_count(&self) -> usize {
        match &self.doc {
            Doc::Lines(lines) => lines.len() + self.skipped.len(),
            Doc::Json(Value::Array(items)) => items.len(),
            Doc::Json(_) => 1,
            Doc::Zip => 0,
        }
    }

    /// Positions of every record: JSONL line numbers (skipped lines included) or the indices of
    /// a top-level array.
    pub fn record_indices(&self) -> Vec<usize> {
        match &self.doc {
            Doc::Lines(lines) => {
                let mut all: Vec<usize> = lines.spans.iter().map(|s| s.index).collect();
                all.extend(self.skipped.iter().map(|s| s.line.saturating_sub(1)));
                all.sort_unstable();
                all
            }
            Doc::Json(Value::Array(items)) => (0..items.len()).collect(),
            _ => Vec::new(),
        }
    }

    /// The JSONL lines as items (empty for a multi-line JSON document). This builds every
    /// line's value and keeps them; a parser that reads lines in order uses
    /// [`Loaded::each_line`] instead.
    pub fn lines(&self) -> Vec<Item<'_>> {
        match &self.doc {
            Doc::Lines(lines) => lines
                .spans
                .iter()
                .zip(lines.values(&self.buffer))
                .map(|(s, value)| Item {
                    index: s.index,
                    range: Some((s.start, s.end)),
                    value,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Calls `f` with each JSONL line in order, building one line's value at a time (or
    /// reusing the values [`Loaded::lines`] already built). Nothing for a JSON document.
    pub fn each_line(&self, mut f: impl FnMut(Item<'_>)) {
        self.find_map_line(|item| -> Option<()> {
            f(item);
            None
        });
    }

    /// [`Loaded::each_line`] until `f` returns something, which is returned.
    pub fn find_map_line<T>(&self, mut f: impl FnMut(Item<'_>) -> Option<T>) -> Option<T> {
        let Doc::Lines(lines) = &self.doc else {
            return None;
        };
        if let Some(values) = lines.values.get() {
            return lines
                .spans
                .iter()
                .zip(values)
                .find_map(|(s, value)| f(s.item(value)));
        }
        lines.spans.iter().find_map(|s| {
            let value = s.parse(&self.buffer);
            f(s.item(&value))
        })
    }

    /// The whole document as one JSON value: the document itself, or the only line of a
    /// one-line file.
    pub fn document(&self) -> Option<&Value> {
        match &self.doc {
            Doc::Json(v) => Some(v),
            Doc::Lines(lines) if lines.len() == 1 => lines.values(&self.buffer).first(),
            _ => None,
        }
    }

    /// Byte range of the whole document (`document()`).
    pub fn document_range(&self) -> Option<Range<usize>> {
        match &self.doc {
            Doc::Json(_) => Some(self.start..self.buffer.len()),
            Doc::Lines(lines) if lines.len() == 1 => lines.spans.first().map(|s| s.start..s.end),
            _ => None,
        }
    }

    /// The items of the array found at `path` (object keys) inside the document, each with its
    /// byte range. An empty path means the document itself is the array.
    pub fn items(&self, path: &[&str]) -> Vec<Item<'_>> {
        let Some(mut value) = self.document() else {
            return Vec::new();
        };
        for key in path {
            match value.get(key) {
                Some(v) => value = v,
                None => return Vec::new(),
            }
        }
        let Some(array) = value.as_array() else {
            return Vec::new();
        };
        let ranges = self
            .document_range()
            .and_then(|doc| spans::array_items(&self.buffer, doc, path))
            .filter(|r| r.len() == array.len());
        array
            .iter()
            .enumerate()
            .map(|(index, value)| Item {
                index,
                range: ranges.as_ref().map(|r| (r[index].start, r[index].end)),
                value,
            })
            .collect()
    }
}

/// The name of the source and the longest JSONL line it may hold.
struct Bounds<'a> {
    shown: &'a str,
    max_line: usize,
}

impl Bounds<'_> {
    /// The error for line `line` (1-based) being over the limit.
    fn too_long(&self, line: usize) -> LoadError {
        LoadError::Malformed {
            path: self.shown.to_string(),
            line,
            what: crate::limits::line_exceeded(self.max_line as u64),
        }
    }
}

/// Splits the bytes into JSONL records, or parses them as one JSON document.
fn split(
    buffer: &[u8],
    start: usize,
    bounds: &Bounds,
    skipped: &mut Vec<Skipped>,
) -> Result<Doc, LoadError> {
    let shown = bounds.shown;
    let body = &buffer[start..];
    let first_end = memchr::memchr(b'\n', body).unwrap_or(body.len());
    let first_line = trim_line(&body[..first_end]);
    let rest_empty = body[first_end..].iter().all(|b| b.is_ascii_whitespace());
    if !rest_empty && first_line.len() > bounds.max_line {
        return Err(bounds.too_long(1));
    }
    let first_parses = !first_line.is_empty()
        && first_line[0] == b'{'
        && serde_json::from_slice::<Value>(first_line).is_ok();
    if !first_parses || rest_empty {
        match serde_json::from_slice::<Value>(body) {
            Ok(value) if rest_empty && first_parses => {
                let end = start + first_end;
                return Ok(Doc::Lines(Lines::of_records(vec![Record {
                    index: 0,
                    range: start..trimmed_end(buffer, start, end),
                    value,
                }])));
            }
            Ok(value) => return Ok(Doc::Json(value)),
            Err(whole) => {
                let lines = check_lines(buffer, start, bounds, skipped)?;
                if lines.is_empty() {
                    skipped.clear();
                    let why = describe_json_error(body, &whole);
                    let what = if !why.starts_with("not valid UTF-8") && looks_binary(body) {
                        "not a session: binary data, expected JSON or JSON Lines".to_string()
                    } else {
                        format!("not a session: expected JSON or JSON Lines ({why})")
                    };
                    return Err(LoadError::Malformed {
                        path: shown.to_string(),
                        line: whole.line(),
                        what,
                    });
                }
                return Ok(Doc::Lines(lines));
            }
        }
    }
    Ok(Doc::Lines(check_lines(buffer, start, bounds, skipped)?))
}

/// Checks every non-empty line (without building its value); lines that are not JSON
/// objects or arrays are reported. Large sources are checked on all cores, in slices that
/// start at a line.
fn check_lines(
    buffer: &[u8],
    start: usize,
    bounds: &Bounds,
    skipped: &mut Vec<Skipped>,
) -> Result<Lines, LoadError> {
    let body = &buffer[start..];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
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
    // Line numbers restart at 0 in each slice: shift them by the lines before it.
    let mut lines = Lines::default();
    let mut before = 0usize;
    for SliceCheck {
        spans,
        skipped: skips,
        lines: count,
        too_long,
    } in checked
    {
        if let Some(number) = too_long {
            return Err(bounds.too_long(before + number + 1));
        }
        lines.spans.extend(spans.into_iter().map(|mut s| {
            s.index += before;
            s
        }));
        skipped.extend(skips.into_iter().map(|mut k| {
            k.line += before;
            k
        }));
        before += count;
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
const PARALLEL_CHECK_MIN: usize = 4 << 20;

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

/// What is wrong with bytes `serde_json` refused, in the reader's words: bytes that are not
/// UTF-8 and nesting past the parser's depth limit are named as such.
pub fn describe_json_error(bytes: &[u8], e: &serde_json::Error) -> String {
    let text = e.to_string();
    if text.starts_with("invalid unicode code point") {
        if let Err(bad) = std::str::from_utf8(bytes) {
            let at = bad.valid_up_to();
            let line_start = bytes[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let byte = bytes.get(at).copied().unwrap_or_default();
            return format!(
                "not valid UTF-8: byte 0x{byte:02x} at column {} (expected UTF-8 text)",
                at - line_start + 1
            );
        }
    }
    if let Some(at) = text.strip_prefix("recursion limit exceeded ") {
        return format!("JSON nested more than 128 levels deep ({at})");
    }
    format!("invalid JSON: {text}")
}

/// Whether the bytes look like a binary file rather than text: a NUL, or bytes that are not
/// UTF-8, within the first 8 KiB.
fn looks_binary(body: &[u8]) -> bool {
    let head = &body[..body.len().min(8192)];
    if head.contains(&0) {
        return true;
    }
    match std::str::from_utf8(head) {
        Ok(_) => false,
        // A multi-byte character cut by the 8 KiB window is still text.
        Err(e) => e.error_len().is_some(),
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && line[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    &line[..end]
}

fn trimmed_end(buffer: &[u8], start: usize, end: usize) -> usize {
    start + trim_line(&buffer[start..end]).len()
}

// ---- typed accessors -------------------------------------------------------------------------

/// Whether a record carries nothing: an empty object or array. Such a record is counted but
/// makes no message, so that a file of millions of `{}` lines costs what its spans cost.
pub fn carries_nothing(v: &Value) -> bool {
    match v {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// `v[key]` as a string.
pub fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)?.as_str()
}

/// `v[key]` as an unsigned integer (floats that are whole numbers accepted).
pub fn u64_at(v: &Value, key: &str) -> Option<u64> {
    let x = v.get(key)?;
    x.as_u64()
        .or_else(|| x.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
}

/// The compact JSON text of a value, as an API would send it.
pub fn to_json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Arguments as the JSON string sent: a string value is kept as is, anything else serialised.
pub fn arguments_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => to_json(other),
    }
}

/// Usage in OpenAI style (input includes cache): reads the given field names.
pub fn usage_from(
    v: &Value,
    input: &str,
    output: &str,
    cache_read: &[&str],
    input_includes_cache: bool,
) -> Option<Usage> {
    let input_n = u64_at(v, input);
    let output_n = u64_at(v, output);
    if input_n.is_none() && output_n.is_none() {
        return None;
    }
    let cache = cache_read.iter().find_map(|path| {
        let mut cur = v;
        for key in path.split('.') {
            cur = cur.get(key)?;
        }
        cur.as_u64()
    });
    Some(Usage {
        input: input_n,
        output: output_n,
        cache_read: cache,
        input_includes_cache,
        ..Usage::default()
    })
}

#[cfg(test)]
mod tests {
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

    /// A JSONL line longer than the limit is refused with its line number, whichever slice of
    /// a parallel check it falls in; a line at the limit, and a one-line document over it,
    /// are read.
    #[test]
    fn a_line_over_the_limit_is_refused_with_its_number() {
        let line = |n: usize| format!("{{\"n\": {n}, \"pad\": \"{}\"}}\n", "x".repeat(100));
        let mut bytes = String::new();
        let mut n = 0;
        while bytes.len() < PARALLEL_CHECK_MIN * 3 {
            bytes.push_str(&line(n));
            n += 1;
        }
        let long = format!("{{\"long\": \"{}\"}}", "y".repeat(4000));
        let cut = bytes.len() * 2 / 3;
        let at = bytes[..cut].matches('\n').count();
        let cut = bytes[..cut].rfind('\n').map_or(0, |i| i + 1);
        bytes.insert_str(cut, &format!("{long}\n"));
        let err = Loaded::within(bytes.clone().into_bytes(), None, "big.jsonl", 4000)
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(&*format!(
                "big.jsonl:{}: a line longer than 4000 bytes (raise with --max-line SIZE)",
                at + 1
            ))
        );
        let read = Loaded::within(bytes.into_bytes(), None, "big.jsonl", long.len() as u64);
        assert_eq!(read.map(|l| l.record_count()).ok(), Some(n + 1));
        let one = Loaded::within(long.clone().into_bytes(), None, "one.json", 10);
        assert!(one.is_ok(), "a one-line document is not a line");
        let first = Loaded::within(format!("{long}\n{}", line(0)).into_bytes(), None, "f", 10);
        assert_eq!(
            first.err().map(|e| e.to_string()),
            Some("f:1: a line longer than 10 bytes (raise with --max-line SIZE)".to_string())
        );
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
