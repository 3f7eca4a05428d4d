//! What every parser starts from: the loaded bytes split into records, and small JSON helpers.
//!
//! Owns: JSONL splitting (with byte ranges and malformed-line reports), whole-document JSON,
//! zip detection, and typed accessors over `serde_json::Value`. It knows no format.

use std::borrow::Cow;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

mod check;
mod chunk;
pub mod tree;

use super::{spans, LoadError};
use crate::session::{Skipped, Usage};
use check::{check_lines, Bounds};
pub use chunk::Chunk;

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
    /// UTF-8 text that is neither JSON nor JSON Lines. Only a format that reads text (aider's
    /// markdown history) takes it; for any other it is refused with `refusal`, the error a
    /// JSON reader gives for these bytes.
    Text(Refusal),
}

/// Why text that is not JSON is not a session, for the formats that read only JSON.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// 1-based line of the JSON error.
    pub line: usize,
    pub what: String,
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
    /// The byte ranges of a top-level array's items, when they were noted as the bytes were
    /// written ([`Loaded::of_array`]) rather than found by reading them again.
    pub item_ranges: Option<Vec<Range<usize>>>,
}

impl Loaded {
    pub fn new(bytes: Vec<u8>, path: Option<PathBuf>, shown: &str) -> Result<Loaded, LoadError> {
        Loaded::within(bytes, path, shown, crate::limits::DEFAULT_LINE)
    }

    /// [`Loaded::new`], refusing a JSONL line longer than `max_line` bytes (a one-line
    /// document is not a line: a regular file is read whatever its size).
    pub fn within(
        mut bytes: Vec<u8>,
        path: Option<PathBuf>,
        shown: &str,
        max_line: u64,
    ) -> Result<Loaded, LoadError> {
        if !bytes.starts_with(b"PK\x03\x04") {
            super::surrogates::repair(&mut bytes);
        }
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
            item_ranges: None,
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

    /// A JSON array document written from values already built (a compacted history read
    /// back): the bytes are `serde_json`'s compact serialisation of the array, each item's
    /// range noted as it is written, and the document is the values themselves, not a parse of
    /// those bytes (the same values: floats round-trip exactly, keys keep their order). Not
    /// `write`: no bytes, and so no item has a range (a record of it cannot be read again).
    pub fn of_array(
        items: Vec<Value>,
        shown: &str,
        write: bool,
    ) -> Result<Loaded, serde_json::Error> {
        if !write {
            return Ok(Loaded {
                buffer: Arc::default(),
                path: None,
                shown: shown.to_string(),
                doc: Doc::Json(Value::Array(items)),
                skipped: Vec::new(),
                start: 0,
                item_ranges: None,
            });
        }
        let mut buffer = vec![b'['];
        let mut ranges = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                buffer.push(b',');
            }
            let start = buffer.len();
            serde_json::to_writer(&mut buffer, item)?;
            ranges.push(start..buffer.len());
        }
        buffer.push(b']');
        Ok(Loaded {
            buffer: Arc::new(buffer),
            path: None,
            shown: shown.to_string(),
            doc: Doc::Json(Value::Array(items)),
            skipped: Vec::new(),
            start: 0,
            item_ranges: Some(ranges),
        })
    }

    /// The document of [`Loaded::of_array`] given back (`None` for any other).
    pub fn into_document(self) -> Option<Value> {
        match self.doc {
            Doc::Json(v) => Some(v),
            _ => None,
        }
    }

    /// Number of records read (lines, or items of the top-level array).
    pub fn record_count(&self) -> usize {
        match &self.doc {
            Doc::Lines(lines) => lines.len() + self.skipped.len(),
            Doc::Json(Value::Array(items)) => items.len(),
            Doc::Json(_) => 1,
            Doc::Zip => 0,
            Doc::Text(_) => self.text().map_or(0, |t| t.lines().count()),
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

    /// The value of the `k`-th valid JSONL line (in the order `each_line` gives them), built
    /// now and not kept (or the one [`Loaded::lines`] already built): for a reader that picks
    /// the lines it reads after a first pass, so that it holds one value at a time.
    pub fn line_at(&self, k: usize) -> Option<(usize, Range<usize>, Cow<'_, Value>)> {
        let Doc::Lines(lines) = &self.doc else {
            return None;
        };
        let s = lines.spans.get(k)?;
        let value = match lines.values.get() {
            Some(values) => Cow::Borrowed(values.get(k)?),
            None => Cow::Owned(s.parse(&self.buffer)),
        };
        Some((s.index, s.start..s.end, value))
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

    /// The source as UTF-8 text (after any byte-order mark), whatever it was split into: a
    /// text format's file may hold lines that happen to be JSON. `None` for a zip archive or
    /// bytes that are not UTF-8.
    pub fn text(&self) -> Option<&str> {
        match &self.doc {
            Doc::Zip => None,
            _ => std::str::from_utf8(self.buffer.get(self.start..)?).ok(),
        }
    }

    /// The error a reader of JSON gives for a [`Doc::Text`] source.
    pub fn refusal(&self) -> Option<LoadError> {
        match &self.doc {
            Doc::Text(r) => Some(LoadError::Malformed {
                path: self.shown.clone(),
                line: r.line,
                what: r.what.clone(),
            }),
            _ => None,
        }
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
        let noted = self.item_ranges.as_ref().filter(|_| path.is_empty());
        let ranges = match noted {
            Some(r) => Some(Cow::Borrowed(r)),
            None => self
                .document_range()
                .and_then(|doc| spans::array_items(&self.buffer, doc, path))
                .map(Cow::Owned),
        }
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
                    let binary = !why.starts_with("not valid UTF-8") && looks_binary(body);
                    let what = if binary {
                        "not a session: binary data, expected JSON or JSON Lines".to_string()
                    } else {
                        format!("not a session: expected JSON or JSON Lines ({why})")
                    };
                    let refusal = Refusal {
                        line: whole.line(),
                        what,
                    };
                    if !binary && std::str::from_utf8(body).is_ok() {
                        return Ok(Doc::Text(refusal));
                    }
                    return Err(LoadError::Malformed {
                        path: shown.to_string(),
                        line: refusal.line,
                        what: refusal.what,
                    });
                }
                return Ok(Doc::Lines(lines));
            }
        }
    }
    Ok(Doc::Lines(check_lines(buffer, start, bounds, skipped)?))
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
    use super::check::PARALLEL_CHECK_MIN;
    use super::*;

    /// A line read alone is the line `lines` builds, before and after those are kept; a
    /// malformed line is not counted, and past the last there is none.
    #[test]
    fn a_line_read_alone_is_the_line_read_with_the_rest() {
        let text = "{\"a\":1}\nnot json\n{\"b\":[2]}\n\n{\"c\":\"x\"}\n";
        let loaded = Loaded::within(text.as_bytes().to_vec(), None, "l.jsonl", 1000).unwrap();
        let alone: Vec<(usize, Range<usize>, Value)> = (0..3)
            .map(|k| loaded.line_at(k).map(|(i, r, v)| (i, r, v.into_owned())))
            .collect::<Option<_>>()
            .unwrap();
        assert!(loaded.line_at(3).is_none());
        let all: Vec<(usize, Range<usize>, Value)> = loaded
            .lines()
            .into_iter()
            .map(|item| (item.index, item.range().unwrap(), item.value.clone()))
            .collect();
        assert_eq!(alone, all);
        assert_eq!(
            alone[1].0, 2,
            "the line after the malformed one keeps its number"
        );
        let kept = loaded
            .line_at(2)
            .map(|(_, _, v)| matches!(v, Cow::Borrowed(_)));
        assert_eq!(kept, Some(true), "once built, the values are reused");
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

    /// Awkward items: brackets and quotes inside strings, escapes, non-ASCII, floats that
    /// print long, nesting, an empty object and array.
    fn awkward_items() -> Vec<Value> {
        vec![
            serde_json::json!({"type": "message", "text": "a ] b [ c } \" \\ {", "n": 0.1}),
            serde_json::json!([1, [2, [3, {"k": "\u{1F600}\u{7}\n"}]], -1.5e300]),
            serde_json::json!({}),
            serde_json::json!([]),
            serde_json::json!("plain"),
            serde_json::json!({"z": 1, "a": 2, "m": {"y": null, "b": true}}),
        ]
    }

    /// The written array is `serde_json`'s own serialisation of it, each noted range is the
    /// range a reader of those bytes finds, and the document is the items unchanged.
    #[test]
    fn an_array_written_from_values_has_the_bytes_and_ranges_a_reader_finds() {
        for n in 0..=awkward_items().len() {
            let items: Vec<Value> = awkward_items().into_iter().take(n).collect();
            let whole = Value::Array(items.clone());
            let loaded = Loaded::of_array(items.clone(), "h", true).unwrap();
            assert_eq!(*loaded.buffer, serde_json::to_vec(&whole).unwrap());
            let found = spans::array_items(&loaded.buffer, 0..loaded.buffer.len(), &[]).unwrap();
            assert_eq!(loaded.item_ranges.as_deref(), Some(&found[..]));
            let read: Vec<Value> = found
                .iter()
                .map(|r| serde_json::from_slice(&loaded.buffer[r.clone()]).unwrap())
                .collect();
            assert_eq!(read, items);
            let listed = loaded.items(&[]);
            assert_eq!(listed.len(), n);
            assert!(listed
                .iter()
                .zip(&found)
                .all(|(i, r)| i.range() == Some(r.clone())));
            assert_eq!(loaded.into_document(), Some(whole));
        }
        let unwritten = Loaded::of_array(awkward_items(), "h", false).unwrap();
        assert!(unwritten.buffer.is_empty());
        let listed = unwritten.items(&[]);
        assert_eq!(listed.len(), awkward_items().len());
        assert!(listed.iter().all(|i| i.range.is_none()));
    }
}
