//! The helpers of a cheap look inside one session file (its title and how many message records
//! it holds), which each format's `home` module does its own way.
//!
//! Owns: reading a file (whole up to a size cap, else only its head), its JSONL lines worth
//! looking at, parsing the few lines that can carry a title, and making a one-line title.
//! Must not build a `Session`, count tokens, or fail: anything odd yields `None`s.

use std::io::{self, Read};
use std::path::Path;

use serde_json::Value;

use super::bytes::{Line, Lines};

/// The bytes to scan: the whole file when it is at most `cap` bytes (`true`), else its first
/// `head` bytes (`false`).
pub(crate) fn read_capped(
    path: &Path,
    size: u64,
    cap: u64,
    head: u64,
) -> io::Result<(Vec<u8>, bool)> {
    let whole = size <= cap;
    let limit = if whole { cap } else { head };
    let mut bytes = Vec::new();
    crate::limits::open_regular(path)?
        .take(limit)
        .read_to_end(&mut bytes)?;
    Ok((bytes, whole))
}

/// The lines worth looking at: every complete line, and the unterminated last one only if it is
/// a whole JSON value (a writer may be halfway through it). A head-only read drops its last line.
pub(crate) fn lines(bytes: &[u8], whole: bool) -> impl Iterator<Item = &[u8]> {
    Lines::new(bytes).filter_map(move |Line { text, complete }| {
        let keep = complete || (whole && serde_json::from_slice::<Value>(text).is_ok());
        keep.then_some(text)
    })
}

/// One line parsed as JSON (only ever done for the few lines that may carry a title).
pub(crate) fn parse(line: &[u8]) -> Option<Value> {
    serde_json::from_slice(line).ok()
}

/// The text between the first `open` and the following `close`.
pub(crate) fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let rest = text.get(start..)?;
    rest.find(close).and_then(|end| rest.get(..end))
}

/// Longest title kept, in characters.
const TITLE_CHARS: usize = 160;

/// A one-line title: whitespace runs collapsed, at most `TITLE_CHARS` characters (`…` marks a
/// cut); `None` when nothing is left.
pub(crate) fn clean(text: &str) -> Option<String> {
    let mut out = String::new();
    for (n, word) in text.split_whitespace().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > TITLE_CHARS {
            let cut: String = out.chars().take(TITLE_CHARS - 1).collect();
            return Some(format!("{}…", cut.trim_end()));
        }
    }
    (!out.is_empty()).then_some(out)
}
