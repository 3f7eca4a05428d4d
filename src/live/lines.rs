//! The incremental JSONL line splitter every live reader shares.
//!
//! Owns: cutting a stream of chunks into complete lines, holding back an incomplete last line
//! until its newline arrives, numbering lines from 0 across chunks, skipping a byte-order mark
//! at offset 0, tolerating CRLF, and parsing each complete line the way `formats::common` does
//! (objects and arrays are records; other non-empty lines are reported as skipped, never fatal).
//! It does no IO. Every byte fed is scanned a bounded number of times, so a line of tens of
//! megabytes arriving in small chunks costs linear time.

use serde_json::Value;

use crate::formats::Record;
use crate::session::Skipped;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Complete lines taken from a source in one step.
#[derive(Debug, Clone, Default)]
pub struct Batch {
    /// Absolute byte offset of the first byte of `bytes` in the source.
    pub offset: u64,
    /// 0-based number of the first line in `bytes`.
    pub first_line: usize,
    /// Complete lines in `bytes`, empty and malformed ones included.
    pub line_count: usize,
    /// Exactly the bytes of those lines, line endings (and a leading BOM) included.
    pub bytes: Vec<u8>,
    /// Lines that are JSON objects or arrays. `index` is the 0-based line number and `range`
    /// the absolute byte range of the line without its line ending.
    pub records: Vec<Record>,
    /// Non-empty lines that are not (1-based line numbers, as `formats` reports them).
    pub skipped: Vec<Skipped>,
    /// The lines were split but not parsed (`records` and `skipped` are empty): the reader
    /// parses them with the rest of the source.
    pub unparsed: bool,
}

impl Batch {
    /// No complete line was taken.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Number of the line after the last one in this batch.
    pub fn next_line(&self) -> usize {
        self.first_line + self.line_count
    }

    /// Appends a batch that directly follows this one.
    pub fn extend(&mut self, next: Batch) {
        if self.is_empty() {
            *self = next;
            return;
        }
        self.line_count += next.line_count;
        self.unparsed |= next.unparsed;
        self.bytes.extend_from_slice(&next.bytes);
        self.records.extend(next.records);
        self.skipped.extend(next.skipped);
    }
}

/// Splits chunks of a stream into complete lines.
#[derive(Debug, Default)]
pub struct LineSplitter {
    /// Bytes of the incomplete last line.
    pending: Vec<u8>,
    /// Absolute offset of the first pending byte (the end of the complete lines).
    offset: u64,
    /// 0-based number of the line `pending` begins.
    line: usize,
    /// Lines are split without being parsed (see [`LineSplitter::feed_unparsed`]).
    unparsed: bool,
}

impl LineSplitter {
    pub fn new() -> LineSplitter {
        LineSplitter::default()
    }

    /// Bytes of complete lines taken so far.
    pub fn committed(&self) -> u64 {
        self.offset
    }

    /// Every byte fed so far, the incomplete last line included.
    pub fn consumed(&self) -> u64 {
        self.offset + self.pending.len() as u64
    }

    /// The incomplete last line, as fed so far.
    pub fn pending(&self) -> &[u8] {
        &self.pending
    }

    /// Number of the next line to complete.
    pub fn next_line(&self) -> usize {
        self.line
    }

    /// Takes a chunk; returns the lines it completes (empty when it completes none).
    /// [`LineSplitter::feed`] without parsing the lines: for a first read of a whole file,
    /// which its reader parses as one source anyway.
    pub fn feed_unparsed(&mut self, chunk: Vec<u8>) -> Batch {
        self.unparsed = true;
        let batch = self.feed(chunk);
        self.unparsed = false;
        batch
    }

    pub fn feed(&mut self, mut chunk: Vec<u8>) -> Batch {
        let Some(last_newline) = chunk.iter().rposition(|&b| b == b'\n') else {
            self.pending.extend_from_slice(&chunk);
            return self.empty_batch();
        };
        let rest = chunk.split_off(last_newline + 1);
        let bytes = if self.pending.is_empty() {
            chunk
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(&chunk);
            joined
        };
        self.pending = rest;
        self.commit(bytes, false)
    }

    /// End of input: the incomplete last line, if any, becomes a line of its own.
    pub fn finish(&mut self) -> Batch {
        if self.pending.is_empty() {
            return self.empty_batch();
        }
        let bytes = std::mem::take(&mut self.pending);
        self.commit(bytes, true)
    }

    fn empty_batch(&self) -> Batch {
        Batch {
            offset: self.offset,
            first_line: self.line,
            ..Batch::default()
        }
    }

    /// Parses `bytes` (whole lines; the last one unterminated only at end of input).
    fn commit(&mut self, mut bytes: Vec<u8>, at_eof: bool) -> Batch {
        if !self.unparsed {
            crate::formats::surrogates::repair(&mut bytes);
        }
        let mut batch = self.empty_batch();
        let mut start = self.offset as usize;
        let mut pieces = bytes.split_inclusive(|&b| b == b'\n').peekable();
        while let Some(piece) = pieces.next() {
            let last = at_eof && pieces.peek().is_none();
            let body = piece.strip_suffix(b"\n").unwrap_or(piece);
            let (body, skip) = match body.strip_prefix(BOM) {
                Some(rest) if start == 0 => (rest, BOM.len()),
                _ => (body, 0),
            };
            if self.unparsed {
                batch.unparsed = true;
            } else {
                parse_line(body, self.line, start + skip, last, &mut batch);
            }
            start += piece.len();
            self.line += 1;
        }
        self.offset += bytes.len() as u64;
        batch.line_count = self.line - batch.first_line;
        batch.bytes = bytes;
        batch
    }
}

/// Parses one line (without its `\n`) starting at absolute offset `start`.
fn parse_line(line: &[u8], number: usize, start: usize, last: bool, batch: &mut Batch) {
    let trimmed = trim_end(line);
    if trimmed.is_empty() {
        return;
    }
    let reason = match serde_json::from_slice::<Value>(trimmed) {
        Ok(value) if value.is_object() || value.is_array() => {
            batch.records.push(Record {
                index: number,
                range: start..start + trimmed.len(),
                value,
            });
            return;
        }
        Ok(_) => "expected a JSON object, found a bare value".to_string(),
        Err(e) if last && e.is_eof() => "truncated last line (incomplete JSON)".to_string(),
        Err(e) => crate::formats::common::describe_json_error(trimmed, &e),
    };
    batch.skipped.push(Skipped {
        line: number + 1,
        reason,
    });
}

/// The line without trailing whitespace (a CR of CRLF included).
pub(crate) fn trim_end(line: &[u8]) -> &[u8] {
    let end = line
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    line.get(..end).unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A followed line holding a lone surrogate escape is a record (the half emoji reads as
    /// U+FFFD), not a skipped line; the bytes kept for the session are the repaired ones.
    #[test]
    fn a_lone_surrogate_in_a_followed_line_is_read() {
        let mut splitter = LineSplitter::new();
        let batch = splitter.feed(b"{\"a\": \"x \\ud83d y\"}\n{\"b\": \"\\\\ud83d\"}\n".to_vec());
        assert!(batch.skipped.is_empty(), "{:?}", batch.skipped);
        assert_eq!(batch.records.len(), 2);
        assert_eq!(batch.records[0].value["a"], "x \u{fffd} y");
        assert_eq!(batch.records[1].value["b"], "\\ud83d");
        let range = batch.records[0].range.clone();
        assert_eq!(&batch.bytes[range], b"{\"a\": \"x \\ufffd y\"}");
    }
}
