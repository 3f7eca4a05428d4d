//! Reading a session from a pipe (`ctxray -`) or any other `Read`, as it arrives.
//!
//! Owns: one bounded `read` per poll fed to the shared line splitter, and end of input (where
//! an unterminated last line becomes a line of its own). It does not spawn threads or
//! parse sessions; a caller that must not block runs it where blocking is fine.

use std::io::{ErrorKind, Read};

use super::lines::{Batch, LineSplitter};
use super::LiveError;

/// Bytes asked of the reader per poll.
const CHUNK: usize = 64 * 1024;

/// What one poll of a stream found.
#[derive(Debug, Clone)]
pub enum StdinEvent {
    /// No new complete line (nothing read, or only part of a line).
    Idle,
    /// New complete lines.
    Lines(Batch),
    /// End of input; the batch holds the unterminated last line, if there was one.
    /// Every later poll returns `End` with an empty batch.
    End(Batch),
}

/// Reads JSONL incrementally from any `Read`.
#[derive(Debug)]
pub struct StdinReader<R> {
    reader: R,
    shown: String,
    splitter: LineSplitter,
    buf: Vec<u8>,
    done: bool,
    /// Bytes read so far, and the most that may be (`--max-input`).
    read: u64,
    limit: u64,
}

impl<R: Read> StdinReader<R> {
    /// `shown` names the stream in errors (`-` or `<stdin>`).
    pub fn new(reader: R, shown: &str) -> StdinReader<R> {
        StdinReader {
            reader,
            shown: shown.to_string(),
            splitter: LineSplitter::new(),
            buf: vec![0; CHUNK],
            done: false,
            read: 0,
            limit: crate::limits::DEFAULT_INPUT,
        }
    }

    /// The reader, failing once more than `limit` bytes were read.
    pub fn with_limit(mut self, limit: u64) -> StdinReader<R> {
        self.limit = limit;
        self
    }

    /// Performs one `read` (blocking if the reader blocks) and returns the lines it completed.
    pub fn poll(&mut self) -> Result<StdinEvent, LiveError> {
        if self.done {
            return Ok(StdinEvent::End(self.splitter.finish()));
        }
        match self.reader.read(&mut self.buf) {
            Ok(0) => {
                self.done = true;
                Ok(StdinEvent::End(self.splitter.finish()))
            }
            Ok(n) => {
                self.read += n as u64;
                if self.read > self.limit {
                    self.done = true;
                    return Err(LiveError::Load(crate::formats::LoadError::Limit {
                        path: self.shown.clone(),
                        what: crate::limits::input_exceeded(self.limit),
                    }));
                }
                let chunk = self.buf.get(..n).unwrap_or_default().to_vec();
                let batch = self.splitter.feed(chunk);
                Ok(if batch.is_empty() {
                    StdinEvent::Idle
                } else {
                    StdinEvent::Lines(batch)
                })
            }
            Err(e) if matches!(e.kind(), ErrorKind::Interrupted | ErrorKind::WouldBlock) => {
                Ok(StdinEvent::Idle)
            }
            Err(e) => Err(LiveError::io(&self.shown, e)),
        }
    }

    /// Reads to the end of input and returns every line.
    pub fn read_all(&mut self) -> Result<Batch, LiveError> {
        let mut all = Batch::default();
        loop {
            match self.poll()? {
                StdinEvent::Idle => {}
                StdinEvent::Lines(batch) => all.extend(batch),
                StdinEvent::End(batch) => {
                    all.extend(batch);
                    return Ok(all);
                }
            }
        }
    }

    /// The incomplete last line read so far.
    pub fn pending(&self) -> &[u8] {
        self.splitter.pending()
    }

    /// Whether the end of input was reached.
    pub fn is_done(&self) -> bool {
        self.done
    }
}
