//! A run of whole JSONL lines read apart from the rest of its source, for a source read a
//! chunk at a time (`formats::chunked`).
//!
//! Owns: checking a chunk's lines exactly as a whole source's are checked (same accepted
//! lines, reasons, limit), numbering them and their byte ranges as in the whole source, and
//! building one line's value at a time. Must not: know any format.

use super::check::{check_lines, Bounds};
use super::{Item, Lines};
use crate::formats::LoadError;
use crate::session::Skipped;

/// Whole lines of a source, from its line `first_line` (0-based) at byte `offset`.
pub struct Chunk {
    bytes: Vec<u8>,
    lines: Lines,
    skipped: Vec<Skipped>,
    first_line: usize,
    offset: usize,
}

impl Chunk {
    /// Checks `bytes` (whole lines, the last one ending the source or with its newline) as
    /// `Loaded::within` checks a JSON Lines source: lone surrogate escapes repaired, lines
    /// that are not a JSON object or array reported, a line over `max_line` bytes refused.
    pub fn check(
        mut bytes: Vec<u8>,
        first_line: usize,
        offset: usize,
        shown: &str,
        max_line: u64,
    ) -> Result<Chunk, LoadError> {
        crate::formats::surrogates::repair(&mut bytes);
        let bounds = Bounds {
            shown,
            max_line: usize::try_from(max_line).unwrap_or(usize::MAX),
        };
        let mut skipped = Vec::new();
        let lines = check_lines(&bytes, 0, &bounds, &mut skipped).map_err(|e| match e {
            LoadError::Malformed { path, line, what } => LoadError::Malformed {
                path,
                line: line + first_line,
                what,
            },
            other => other,
        })?;
        for s in &mut skipped {
            s.line += first_line;
        }
        Ok(Chunk {
            bytes,
            lines,
            skipped,
            first_line,
            offset,
        })
    }

    /// Calls `f` with each valid line in order, its value built alone.
    pub fn each_line(&self, mut f: impl FnMut(Item<'_>)) {
        for span in &self.lines.spans {
            let value = span.parse(&self.bytes);
            f(Item {
                index: span.index + self.first_line,
                range: Some((span.start + self.offset, span.end + self.offset)),
                value: &value,
            });
        }
    }

    /// The lines that are not records, numbered in the whole source.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Number of records (valid lines and skipped ones).
    pub fn record_count(&self) -> usize {
        self.lines.len() + self.skipped.len()
    }

    /// Line numbers (0-based, in the whole source) of every record, in order.
    pub fn record_indices(&self) -> Vec<usize> {
        let mut all: Vec<usize> = self
            .lines
            .spans
            .iter()
            .map(|s| s.index + self.first_line)
            .collect();
        all.extend(self.skipped.iter().map(|s| s.line.saturating_sub(1)));
        all.sort_unstable();
        all
    }
}
