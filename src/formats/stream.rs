//! A JSON Lines session that goes on taking lines after it was read, so that a growing file is
//! followed without being parsed again.
//!
//! Owns: the [`LineReader`] a format that reads one line at a time gives (Claude Code, Codex),
//! keeping it open between batches of new lines, bringing the session's source bookkeeping (records,
//! skipped lines, buffer) along, saying which messages changed, and saying when new lines
//! change how earlier ones read (the caller then reads the whole source again). What a line
//! means stays the format parsers' business: a session fed line by line is the session the
//! batch parser returns for the same lines.

use std::path::PathBuf;
use std::sync::Arc;

use std::path::Path;

use super::common::{Doc, Item, Loaded, Record};
use super::{registry, LoadError};
use crate::session::{Format, Session, Skipped};

/// A format's parser kept open: it takes JSON Lines records one at a time, and the session of
/// the records taken so far equals the batch parse of the same lines.
pub trait LineReader: Send {
    /// Takes the next record.
    fn feed(&mut self, item: &Item);
    /// Whether the records taken so far read as this reader reads them; when not, the source
    /// must be read again whole.
    fn consistent(&self) -> bool;
    fn session(&self) -> &Session;
    fn session_mut(&mut self) -> &mut Session;
    /// The lowest message changed in place since the last call.
    fn take_touched(&mut self) -> Option<usize>;
    /// Makes the session whole as of the records taken (children, buffer), all pointing into
    /// `buffer`, the source so far; `path` is the source's file.
    fn settle(&mut self, path: Option<&Path>, buffer: &Arc<Vec<u8>>);
    /// The session of every record taken.
    fn finish(self: Box<Self>, path: Option<&Path>) -> Session;
}

/// A session kept open for more lines.
pub struct Stream {
    reader: Box<dyn LineReader>,
    path: Option<PathBuf>,
}

/// What feeding new lines did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fed {
    /// Messages from `first_changed` on are new or changed.
    Changed { first_changed: usize },
    /// The new lines change how earlier ones read: the source must be read again whole.
    Restart,
}

impl Stream {
    /// Reads `loaded` as `format` and keeps it open. `None` when the format is not read line
    /// by line or the source is not JSON Lines.
    pub fn open(format: Format, loaded: &Loaded) -> Option<Result<Stream, LoadError>> {
        if !matches!(loaded.doc, Doc::Lines(_)) {
            return None;
        }
        let reader = match registry::of(format).lines(loaded)? {
            Ok(reader) => reader,
            Err(e) => return Some(Err(e)),
        };
        let mut stream = Stream {
            reader,
            path: loaded.path.clone(),
        };
        stream.take_touched();
        stream.settle(&loaded.buffer);
        Some(Ok(stream))
    }

    pub fn session(&self) -> &Session {
        self.reader.session()
    }

    fn session_mut(&mut self) -> &mut Session {
        self.reader.session_mut()
    }

    /// Takes the lines that followed: `records` and `skipped` in line order, all after the
    /// lines read so far, with `buffer` the whole source up to and including them.
    pub fn feed(&mut self, records: &[Record], skipped: &[Skipped], buffer: &Arc<Vec<u8>>) -> Fed {
        let before = self.session().messages.len();
        for record in records {
            let item = Item {
                index: record.index,
                range: Some((record.range.start, record.range.end)),
                value: &record.value,
            };
            self.reader.feed(&item);
        }
        if !self.reader.consistent() {
            return Fed::Restart;
        }
        let source = &mut self.session_mut().source;
        source.records += records.len() + skipped.len();
        source.skipped.extend(skipped.iter().cloned());
        let mut indices: Vec<usize> = records.iter().map(|r| r.index).collect();
        indices.extend(skipped.iter().map(|s| s.line.saturating_sub(1)));
        indices.sort_unstable();
        source.record_indices.extend(indices);
        let first_changed = self.take_touched().map_or(before, |t| t.min(before));
        self.settle(buffer);
        Fed::Changed { first_changed }
    }

    fn take_touched(&mut self) -> Option<usize> {
        self.reader.take_touched()
    }

    /// Makes the session whole as of the lines read: children, buffer, message numbers.
    fn settle(&mut self, buffer: &Arc<Vec<u8>>) {
        self.reader.settle(self.path.as_deref(), buffer);
        self.session_mut().renumber();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{detect, parse};

    /// The session a stream builds line by line equals the batch parse of the same lines,
    /// at every prefix: the stream is opened on the first `k` lines and fed the rest one
    /// line at a time.
    fn check_prefixes(bytes: &[u8], shown: &str) {
        let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
        let whole = Loaded::new(bytes.to_vec(), None, shown).expect("loads");
        let format = detect::detect(&whole).expect("detects");
        let step = (lines.len() / 12).max(1);
        let mut compared = 0;
        for k in (1..lines.len()).step_by(step) {
            let head: Vec<u8> = lines[..k].concat();
            let Ok(loaded) = Loaded::new(head.clone(), None, shown) else {
                continue;
            };
            let Some(Ok(mut stream)) = Stream::open(format, &loaded) else {
                continue;
            };
            let mut buffer = head;
            let mut restarted = false;
            for (n, line) in lines.iter().enumerate().skip(k) {
                let offset = buffer.len();
                buffer.extend_from_slice(line);
                let body = line.trim_ascii_end();
                let mut records = Vec::new();
                let mut skipped = Vec::new();
                match serde_json::from_slice::<serde_json::Value>(body) {
                    Ok(value) if value.is_object() || value.is_array() => records.push(Record {
                        index: n,
                        range: offset..offset + body.len(),
                        value,
                    }),
                    _ if body.is_empty() => {}
                    _ => skipped.push(Skipped {
                        line: n + 1,
                        reason: "bad".into(),
                    }),
                }
                if stream.feed(&records, &skipped, &Arc::new(buffer.clone())) == Fed::Restart {
                    restarted = true;
                    break;
                }
            }
            if restarted {
                continue;
            }
            let expected = parse(format, &whole).expect("parses");
            let got = stream.session();
            assert_eq!(
                got.messages.len(),
                expected.messages.len(),
                "{shown} from {k}"
            );
            for (a, b) in got.messages.iter().zip(&expected.messages) {
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "{shown} from line {k}");
            }
            assert_eq!(format!("{:?}", got.marks), format!("{:?}", expected.marks));
            assert_eq!(
                got.source.records, expected.source.records,
                "{shown} from {k}"
            );
            assert_eq!(got.source.record_indices, expected.source.record_indices);
            assert_eq!(
                got.source.abandoned, expected.source.abandoned,
                "{shown} from {k}"
            );
            assert_eq!(got.children.len(), expected.children.len());
            assert_eq!(got.model, expected.model);
            compared += 1;
        }
        assert!(compared > 0, "{shown}: no prefix was followed to the end");
    }

    #[test]
    fn streamed_sessions_equal_batch_parses_at_every_prefix() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut checked = 0;
        for dir in [root.join("fixtures"), root.join("../shared/samples")] {
            let mut files = Vec::new();
            collect(&dir, &mut files);
            for file in files {
                let Ok(bytes) = std::fs::read(&file) else {
                    continue;
                };
                let Ok(loaded) = Loaded::new(bytes.clone(), None, "x") else {
                    continue;
                };
                let Ok(format) = detect::detect(&loaded) else {
                    continue;
                };
                if matches!(format, Format::CLAUDE_CODE | Format::CODEX)
                    && matches!(loaded.doc, Doc::Lines(ref l) if l.len() > 2)
                {
                    check_prefixes(&bytes, &file.display().to_string());
                    checked += 1;
                }
            }
        }
        assert!(
            checked >= 4,
            "only {checked} Claude Code / Codex files found"
        );
    }

    fn collect(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                collect(&path, out);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                out.push(path);
            }
        }
    }
}
