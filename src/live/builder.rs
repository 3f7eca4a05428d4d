//! Rebuilding a `Session` as lines arrive.
//!
//! Owns: accumulating the bytes of complete lines, deciding when an unterminated last line is
//! shown (when it is already a whole JSON value, or when the source only parses with it, as a
//! JSON document without a final newline), and telling the caller which messages changed.
//!
//! Formats read a line at a time (Claude Code, Codex JSONL) are kept open as a
//! [`Stream`]: new complete lines are fed to it, and only they are parsed. Everything else —
//! other formats, JSON documents, a last line shown before its newline, new lines that change
//! how earlier ones read — re-parses the whole accumulated buffer with the batch parsers, so
//! merging rules stay exactly theirs. It must not do IO itself beyond what the parsers do
//! (Claude Code subagent files beside the session) nor know the UI.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::lines::{trim_end, Batch};
use super::tail::{TailEvent, TailReader};
use super::LiveError;
use crate::formats::{detect, Fed, Loaded, Record, Stream};
use crate::session::{Format, Message, Session, Skipped};

/// What changed in the session after new input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveUpdate {
    /// The session is as it was.
    Unchanged,
    /// Messages from `first_changed` on are new or changed; earlier ones are untouched.
    Changed { first_changed: usize },
    /// The source was replaced or truncated: the session was rebuilt from scratch.
    Reloaded,
}

/// The session as last built: kept open for more lines, or parsed whole.
enum Built {
    Stream(Stream),
    Whole(Box<Session>),
}

impl Built {
    fn session(&self) -> &Session {
        match self {
            Built::Stream(s) => s.session(),
            Built::Whole(s) => s,
        }
    }
}

impl std::fmt::Debug for Built {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Built::Stream(_) => f.write_str("Stream"),
            Built::Whole(_) => f.write_str("Whole"),
        }
    }
}

/// A session rebuilt from a growing source.
#[derive(Debug)]
pub struct LiveSession {
    /// The format: given, or detected by the first successful parse and then kept.
    format: Option<Format>,
    path: Option<PathBuf>,
    shown: String,
    built: Option<Built>,
    /// The source's bytes of complete lines (and of an unterminated last line, when the last
    /// parse had to include it), as the session's messages point into them.
    buffer: Arc<Vec<u8>>,
    /// Bytes of complete lines at the start of `buffer`.
    committed: usize,
    /// Complete lines not yet in a successfully parsed session.
    backlog: Vec<u8>,
    /// Their records and skipped lines, kept only while a stream can take them.
    backlog_records: Vec<Record>,
    backlog_skipped: Vec<Skipped>,
    /// Some backlog lines came unparsed: no stream can take them.
    backlog_unparsed: bool,
    /// Length of the unterminated last line at the last parse.
    pending_seen: usize,
    /// The longest line a parse takes (`--max-line`).
    max_line: u64,
}

impl LiveSession {
    /// An empty live session. `from` fixes the format; otherwise the first parse detects it.
    pub fn new(from: Option<Format>, path: Option<PathBuf>, shown: &str) -> LiveSession {
        LiveSession {
            format: from,
            path,
            shown: shown.to_string(),
            built: None,
            buffer: Arc::default(),
            committed: 0,
            backlog: Vec::new(),
            backlog_records: Vec::new(),
            backlog_skipped: Vec::new(),
            backlog_unparsed: false,
            pending_seen: 0,
            max_line: crate::limits::DEFAULT_LINE,
        }
    }

    /// The session, refusing a line longer than `max_line` bytes.
    pub fn with_max_line(mut self, max_line: u64) -> LiveSession {
        self.max_line = max_line;
        self
    }

    /// The session as of the last successful parse (none before the first).
    pub fn session(&self) -> Option<&Session> {
        self.built.as_ref().map(Built::session)
    }

    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// Whether new lines are parsed alone (the format reads a line at a time), rather than
    /// the whole source again.
    pub fn is_streaming(&self) -> bool {
        matches!(self.built, Some(Built::Stream(_)))
    }

    /// Forgets everything read (the source was replaced); the format is kept.
    pub fn reset(&mut self) {
        self.built = None;
        self.buffer = Arc::default();
        self.committed = 0;
        self.backlog.clear();
        self.backlog_records.clear();
        self.backlog_skipped.clear();
        self.backlog_unparsed = false;
        self.pending_seen = 0;
    }

    /// Takes the complete lines of `batch` and the source's current unterminated last line.
    /// On a parse error the previous session stays and the lines are kept for the next try.
    pub fn apply(&mut self, batch: &Batch, pending: &[u8]) -> Result<LiveUpdate, LiveError> {
        self.apply_batch(batch.clone(), pending)
    }

    /// [`LiveSession::apply`] of a batch the caller no longer needs (its records are moved).
    pub fn apply_batch(&mut self, batch: Batch, pending: &[u8]) -> Result<LiveUpdate, LiveError> {
        self.backlog.extend_from_slice(&batch.bytes);
        let new_lines = !batch.records.is_empty()
            || !batch.skipped.is_empty()
            || (batch.unparsed && !batch.is_empty())
            || (self.built.is_none() && !batch.is_empty());
        if batch.unparsed {
            // Lines only the whole source's parse reads.
            self.backlog_unparsed = true;
        } else if matches!(self.built, Some(Built::Stream(_))) {
            self.backlog_records.extend(batch.records);
            self.backlog_skipped.extend(batch.skipped);
        }
        let new_pending = pending.len() != self.pending_seen && shows_alone(pending);
        if !new_lines && !new_pending {
            return Ok(LiveUpdate::Unchanged);
        }
        self.rebuild(pending)
    }

    fn rebuild(&mut self, pending: &[u8]) -> Result<LiveUpdate, LiveError> {
        let with_pending = shows_alone(pending);
        if !with_pending {
            if let Some(update) = self.feed_stream() {
                self.pending_seen = pending.len();
                return Ok(update);
            }
        }
        let parsed = match self.parse(pending, with_pending) {
            Err(_) if !with_pending && !trim_end(pending).is_empty() => self.parse(pending, true),
            other => other,
        };
        let (built, buffer, committed) = parsed?;
        let first_changed = match &self.built {
            Some(old) => first_difference(&old.session().messages, &built.session().messages),
            None => 0,
        };
        self.format = Some(built.session().format);
        self.built = Some(built);
        self.buffer = buffer;
        self.committed = committed;
        self.clear_backlog();
        self.pending_seen = pending.len();
        Ok(LiveUpdate::Changed { first_changed })
    }

    fn clear_backlog(&mut self) {
        self.backlog.clear();
        self.backlog_records.clear();
        self.backlog_skipped.clear();
        self.backlog_unparsed = false;
    }

    /// Feeds the backlog to the open stream, if there is one and the buffer holds only
    /// complete lines. `None`: the whole source must be parsed again.
    fn feed_stream(&mut self) -> Option<LiveUpdate> {
        let Some(Built::Stream(stream)) = &mut self.built else {
            return None;
        };
        if self.buffer.len() != self.committed || self.backlog_unparsed {
            return None;
        }
        let mut buffer = std::mem::take(&mut self.buffer);
        Arc::make_mut(&mut buffer).extend_from_slice(&self.backlog);
        let fed = stream.feed(&self.backlog_records, &self.backlog_skipped, &buffer);
        self.committed = buffer.len();
        self.buffer = buffer;
        match fed {
            Fed::Changed { first_changed } => {
                self.clear_backlog();
                Some(LiveUpdate::Changed { first_changed })
            }
            Fed::Restart => {
                // The lines are in the buffer now; the whole of it is read again.
                self.built = None;
                self.clear_backlog();
                self.backlog = std::mem::take(Arc::make_mut(&mut self.buffer));
                self.committed = 0;
                None
            }
        }
    }

    /// Parses the committed bytes, the backlog and (if asked) the unterminated last line: kept
    /// open as a stream where the format allows and no unterminated line is included.
    fn parse(
        &self,
        pending: &[u8],
        with_pending: bool,
    ) -> Result<(Built, Arc<Vec<u8>>, usize), LiveError> {
        let base = self.buffer.get(..self.committed).unwrap_or_default();
        let extra = if with_pending { pending.len() } else { 0 };
        let mut bytes = Vec::with_capacity(base.len() + self.backlog.len() + extra);
        bytes.extend_from_slice(base);
        bytes.extend_from_slice(&self.backlog);
        let committed = bytes.len();
        if with_pending {
            bytes.extend_from_slice(pending);
        }
        let loaded = Loaded::within(bytes, self.path.clone(), &self.shown, self.max_line)?;
        let format = match self.format {
            Some(f) => f,
            None => detect::detect(&loaded)?,
        };
        let buffer = Arc::clone(&loaded.buffer);
        if !with_pending {
            if let Some(stream) = Stream::open(format, &loaded) {
                return Ok((Built::Stream(stream?), buffer, committed));
            }
        }
        let session = crate::formats::parse(format, &loaded)?;
        Ok((Built::Whole(Box::new(session)), buffer, committed))
    }
}

/// Whether an unterminated last line is already a whole record worth showing. Cheap when it
/// is not: only a line ending in `}` or `]` is parsed.
fn shows_alone(pending: &[u8]) -> bool {
    let line = trim_end(pending);
    matches!(line.last(), Some(b'}' | b']'))
        && serde_json::from_slice::<serde_json::Value>(line).is_ok()
}

/// Index of the first message that differs (a shallow comparison: records, role, parts,
/// usage), or the shorter length when one list extends the other.
fn first_difference(old: &[Message], new: &[Message]) -> usize {
    old.iter()
        .zip(new)
        .position(|(a, b)| {
            a.source_indices != b.source_indices
                || a.role != b.role
                || a.parts.len() != b.parts.len()
                || a.usage != b.usage
        })
        .unwrap_or(old.len().min(new.len()))
}

/// A followed file and the session rebuilt from it.
#[derive(Debug)]
pub struct LiveFile {
    tail: TailReader,
    live: LiveSession,
}

impl LiveFile {
    /// Opens and parses `path`. An empty or not yet parsable file is not an error: the
    /// session appears with the first poll that parses.
    pub fn open(path: &Path, from: Option<Format>) -> Result<LiveFile, LiveError> {
        LiveFile::open_within(path, from, crate::limits::DEFAULT_LINE)
    }

    /// [`LiveFile::open`], refusing a line longer than `max_line` bytes.
    pub fn open_within(
        path: &Path,
        from: Option<Format>,
        max_line: u64,
    ) -> Result<LiveFile, LiveError> {
        let (tail, batch) = TailReader::open_unparsed(path)?;
        let shown = path.display().to_string();
        let mut live =
            LiveSession::new(from, Some(path.to_path_buf()), &shown).with_max_line(max_line);
        let pending = tail.pending().to_vec();
        if !batch.is_empty() || !pending.is_empty() {
            match live.apply_batch(batch, &pending) {
                Ok(_) | Err(LiveError::Load(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(LiveFile { tail, live })
    }

    /// Reads what was appended and updates the session.
    pub fn poll(&mut self) -> Result<LiveUpdate, LiveError> {
        match self.tail.poll()? {
            TailEvent::Idle => self.apply(Batch::default()),
            TailEvent::Lines(batch) => self.apply(batch),
            TailEvent::Reset(_) => {
                self.live.reset();
                let batch = match self.tail.poll()? {
                    TailEvent::Lines(batch) => batch,
                    _ => Batch::default(),
                };
                self.apply(batch)?;
                Ok(LiveUpdate::Reloaded)
            }
        }
    }

    fn apply(&mut self, batch: Batch) -> Result<LiveUpdate, LiveError> {
        self.live.apply_batch(batch, self.tail.pending())
    }

    pub fn session(&self) -> Option<&Session> {
        self.live.session()
    }

    pub fn tail(&self) -> &TailReader {
        &self.tail
    }
}
