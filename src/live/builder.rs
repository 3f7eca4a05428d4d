//! Rebuilding a `Session` as lines arrive.
//!
//! Owns: accumulating the bytes of complete lines, deciding when an unterminated last line is
//! shown (when it is already a whole JSON value, or when the source only parses with it, as a
//! JSON document without a final newline), and telling the caller which messages changed.
//!
//! The approach is the simplest correct one: every change re-parses the whole accumulated
//! buffer with `formats::load_bytes`, so merging rules (Claude Code's streamed lines, Codex
//! usage attached to an earlier message, compaction marks) stay exactly those of the batch
//! parsers. Incremental parsing per format is future work. It must not do IO itself beyond
//! what `load_bytes` does (Claude Code subagent files beside the session) nor know the UI.

use std::path::{Path, PathBuf};

use super::lines::{trim_end, Batch};
use super::tail::{TailEvent, TailReader};
use super::LiveError;
use crate::formats::load_bytes;
use crate::session::{Format, Message, Session};

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

/// A session rebuilt from a growing source.
#[derive(Debug)]
pub struct LiveSession {
    /// The format: given, or detected by the first successful parse and then kept.
    format: Option<Format>,
    path: Option<PathBuf>,
    shown: String,
    session: Option<Session>,
    /// Bytes of complete lines at the start of `session.buffer`.
    committed: usize,
    /// Complete lines not yet in a successfully parsed session.
    backlog: Vec<u8>,
    /// Length of the unterminated last line at the last parse.
    pending_seen: usize,
}

impl LiveSession {
    /// An empty live session. `from` fixes the format; otherwise the first parse detects it.
    pub fn new(from: Option<Format>, path: Option<PathBuf>, shown: &str) -> LiveSession {
        LiveSession {
            format: from,
            path,
            shown: shown.to_string(),
            session: None,
            committed: 0,
            backlog: Vec::new(),
            pending_seen: 0,
        }
    }

    /// The session as of the last successful parse (none before the first).
    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// Forgets everything read (the source was replaced); the format is kept.
    pub fn reset(&mut self) {
        self.session = None;
        self.committed = 0;
        self.backlog.clear();
        self.pending_seen = 0;
    }

    /// Takes the complete lines of `batch` and the source's current unterminated last line.
    /// On a parse error the previous session stays and the lines are kept for the next try.
    pub fn apply(&mut self, batch: &Batch, pending: &[u8]) -> Result<LiveUpdate, LiveError> {
        self.backlog.extend_from_slice(&batch.bytes);
        let new_lines = !batch.records.is_empty()
            || !batch.skipped.is_empty()
            || (self.session.is_none() && !batch.is_empty());
        let new_pending = pending.len() != self.pending_seen && shows_alone(pending);
        if !new_lines && !new_pending {
            return Ok(LiveUpdate::Unchanged);
        }
        self.rebuild(pending)
    }

    fn rebuild(&mut self, pending: &[u8]) -> Result<LiveUpdate, LiveError> {
        let with_pending = shows_alone(pending);
        let parsed = match self.parse(pending, with_pending) {
            Err(_) if !with_pending && !trim_end(pending).is_empty() => self.parse(pending, true),
            other => other,
        };
        let (session, committed) = parsed?;
        let first_changed = match &self.session {
            Some(old) => first_difference(&old.messages, &session.messages),
            None => 0,
        };
        self.format = Some(session.format);
        self.session = Some(session);
        self.committed = committed;
        self.backlog.clear();
        self.pending_seen = pending.len();
        Ok(LiveUpdate::Changed { first_changed })
    }

    /// Parses the committed bytes, the backlog and (if asked) the unterminated last line.
    fn parse(&self, pending: &[u8], with_pending: bool) -> Result<(Session, usize), LiveError> {
        let base = match &self.session {
            Some(s) => s.buffer.get(..self.committed).unwrap_or_default(),
            None => &[],
        };
        let extra = if with_pending { pending.len() } else { 0 };
        let mut bytes = Vec::with_capacity(base.len() + self.backlog.len() + extra);
        bytes.extend_from_slice(base);
        bytes.extend_from_slice(&self.backlog);
        let committed = bytes.len();
        if with_pending {
            bytes.extend_from_slice(pending);
        }
        let session = load_bytes(bytes, self.path.clone(), &self.shown, self.format)?;
        Ok((session, committed))
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
        let (tail, batch) = TailReader::open(path)?;
        let shown = path.display().to_string();
        let mut live = LiveSession::new(from, Some(path.to_path_buf()), &shown);
        let pending = tail.pending().to_vec();
        if !batch.is_empty() || !pending.is_empty() {
            match live.apply(&batch, &pending) {
                Ok(_) | Err(LiveError::Load(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(LiveFile { tail, live })
    }

    /// Reads what was appended and updates the session.
    pub fn poll(&mut self) -> Result<LiveUpdate, LiveError> {
        match self.tail.poll()? {
            TailEvent::Idle => self.apply(&Batch::default()),
            TailEvent::Lines(batch) => self.apply(&batch),
            TailEvent::Reset(_) => {
                self.live.reset();
                let batch = match self.tail.poll()? {
                    TailEvent::Lines(batch) => batch,
                    _ => Batch::default(),
                };
                self.apply(&batch)?;
                Ok(LiveUpdate::Reloaded)
            }
        }
    }

    fn apply(&mut self, batch: &Batch) -> Result<LiveUpdate, LiveError> {
        self.live.apply(batch, self.tail.pending())
    }

    pub fn session(&self) -> Option<&Session> {
        self.live.session()
    }

    pub fn tail(&self) -> &TailReader {
        &self.tail
    }
}
