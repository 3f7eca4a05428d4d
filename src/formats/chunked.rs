//! Reading a large JSON Lines session of a format read one line at a time (Claude Code,
//! Codex) a chunk at a time: each chunk's bytes go once its lines are read, so the file is
//! never in memory whole. A command that needs only the messages (`report`) lets the bytes go
//! for good; one that reads records as they were (a plan, a diff, a compaction) reads them
//! again from the file when it asks (`FileRecords`, `Session::records`).
//!
//! Owns: cutting the file into chunks at line ends, checking each chunk as the whole-file load
//! checks its lines (`common::Chunk`: same line numbers, byte ranges, skipped lines, limit),
//! feeding the lines to the format's reader, the source bookkeeping, and reading a record's
//! bytes again. Must not: give a session other than the whole-file load of the same file
//! gives, but for where its raw bytes are (`Session::buffer` is empty). Where that cannot be
//! known from one pass — another format, a first line that is not a record, a Claude Code
//! subagent's own file, a Claude Code file whose later lines change which branch a rewind
//! abandoned, a Codex file of the older event shape — the file is loaded whole instead, as
//! before, its bytes kept in memory when they are wanted.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::common::{Chunk, Doc, Item, Loaded};
use super::stream::LineReader;
use super::{detect, registry, LoadError};
use crate::limits::Limits;
use crate::progress::Progress;
use crate::session::{Format, RecordSource, Session};

/// Bytes read at a time. A line longer than this makes its chunk longer.
pub const CHUNK: usize = 4 << 20;

/// The session in `path` (a regular file), read a chunk at a time when it is JSON Lines of a
/// line-by-line format, else whole; its bytes let go or kept as `keep` says. `progress`
/// advances by bytes read; `on_head` is shown the session as its first chunk reads (chunk by
/// chunk only).
pub fn load(
    path: &Path,
    from: Option<Format>,
    limits: &Limits,
    progress: Option<&Progress>,
    on_head: impl FnOnce(&Session),
    keep: Bytes,
) -> Result<Session, LoadError> {
    load_in(path, from, limits, progress, on_head, CHUNK, keep)
}

/// What becomes of the source's bytes once its messages are read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Bytes {
    /// Let go for good.
    Released,
    /// Kept (a file loaded whole), or read again from the file (one read a chunk at a time).
    Kept,
}

impl Bytes {
    /// A session loaded whole, its bytes let go when they are not wanted.
    fn whole(self, session: Session) -> Session {
        match self {
            Bytes::Kept => session,
            Bytes::Released => released(session),
        }
    }
}

/// [`load`] with chunks of `chunk` bytes (tests cut small files finely).
pub fn load_in(
    path: &Path,
    from: Option<Format>,
    limits: &Limits,
    progress: Option<&Progress>,
    on_head: impl FnOnce(&Session),
    chunk: usize,
    keep: Bytes,
) -> Result<Session, LoadError> {
    let shown = path.display().to_string();
    let io = |source| LoadError::Io {
        path: shown.clone(),
        source,
    };
    let mut file = File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    let eof = fill(&mut file, &mut bytes, chunk, progress).map_err(io)?;
    let Some(cut) = head_cut(&bytes).filter(|_| !eof) else {
        return whole(file, bytes, path, from, limits, progress, keep);
    };
    let rest = bytes.split_off(cut);
    let head = Loaded::within(bytes, Some(path.to_path_buf()), &shown, limits.line)?;
    let format = match from {
        Some(f) => f,
        None => detect::detect(&head)?,
    };
    let lines_in_head = match &head.doc {
        Doc::Lines(lines) if lines.len() >= 2 => count_lines(&head.buffer),
        _ => 0,
    };
    let reader = match lines_in_head {
        0 => None,
        _ => registry::of(format).lines(&head).and_then(Result::ok),
    };
    let Some(mut reader) = reader else {
        let mut bytes = unshared(head);
        bytes.extend_from_slice(&rest);
        return whole(file, bytes, path, from, limits, progress, keep);
    };
    let offset = head.buffer.len();
    drop(head);
    on_head(reader.session_mut());
    let mut at = Position {
        line: lines_in_head,
        offset,
    };
    let mut pending = rest;
    loop {
        // What is pending holds no newline: only the bytes read now are searched for one.
        let searched = pending.len();
        let eof = fill(&mut file, &mut pending, chunk, progress).map_err(io)?;
        let cut = if eof {
            pending.len()
        } else {
            match memchr::memrchr(b'\n', &pending[searched..]) {
                Some(i) => searched + i + 1,
                None => continue,
            }
        };
        let carry = pending.split_off(cut);
        let lines = count_lines(&pending) + usize::from(eof && !pending.ends_with(b"\n"));
        let taken = pending.len();
        let chunk = Chunk::check(pending, at.line, at.offset, &shown, limits.line)?;
        take(reader.as_mut(), &chunk);
        at.line += lines;
        at.offset += taken;
        pending = carry;
        if eof {
            break;
        }
    }
    if !reader.consistent() {
        // The lines read differently once all were seen: read the file again, whole.
        return super::load_path_within(path, from, limits).map(|s| keep.whole(s));
    }
    let mut session = reader.finish(Some(path));
    session.renumber();
    if super::uncertain::is_uncertain(&session) {
        let clues = super::uncertain::Clues::of_file(path, format, limits);
        super::uncertain::check(&mut session, &clues);
    }
    let records: Arc<dyn RecordSource> = Arc::new(FileRecords {
        file: Mutex::new(file),
        len: at.offset,
    });
    let head = session.buffer.clone();
    let mut session = reading_again(session, &head, &records);
    // Records read as empty messages are noted while their bytes can still be read.
    super::empty::note(&mut session);
    Ok(match keep {
        Bytes::Released => released(session),
        Bytes::Kept => session,
    })
}

/// The session, and the children read from the same file (those holding its first chunk's
/// bytes), with their records read again from the file; children read from files of their
/// own keep their bytes.
fn reading_again(
    mut session: Session,
    head: &Arc<Vec<u8>>,
    records: &Arc<dyn RecordSource>,
) -> Session {
    if Arc::ptr_eq(&session.buffer, head) {
        session.buffer = Arc::default();
        session.records = Some(records.clone());
    }
    session.children = (session.children.into_iter())
        .map(|child| reading_again(child, head, records))
        .collect();
    session
}

/// A file read a chunk at a time, its records read again where a command asks for them.
#[derive(Debug)]
pub struct FileRecords {
    file: Mutex<File>,
    /// Bytes read when the session was: ranges past them are not the session's.
    len: usize,
}

impl RecordSource for FileRecords {
    fn bytes(&self) -> usize {
        self.len
    }

    fn read(&self, range: Range<usize>) -> Option<Vec<u8>> {
        if range.start > range.end || range.end > self.len {
            return None;
        }
        let mut file = self.file.lock().ok()?;
        file.seek(SeekFrom::Start(range.start as u64)).ok()?;
        let mut bytes = vec![0; range.len()];
        file.read_exact(&mut bytes).ok()?;
        Some(bytes)
    }
}

/// Where the next chunk starts in the whole source.
struct Position {
    line: usize,
    offset: usize,
}

/// Takes a chunk's records, and its bookkeeping, into the session being read.
fn take(reader: &mut dyn LineReader, chunk: &Chunk) {
    chunk.each_line(|item: Item| reader.feed(&item));
    let source = &mut reader.session_mut().source;
    source.records += chunk.record_count();
    source.skipped.extend(chunk.skipped().iter().cloned());
    source.record_indices.extend(chunk.record_indices());
}

/// Where the first chunk is cut: after its last newline, when its first line is a JSON
/// object (so that the whole file is JSON Lines, as the whole-file load decides) and a
/// second line starts before the cut.
fn head_cut(bytes: &[u8]) -> Option<usize> {
    let start = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let body = &bytes[start..];
    let first_end = memchr::memchr(b'\n', body)?;
    let first = body[..first_end].trim_ascii();
    let is_record = first.first() == Some(&b'{')
        && serde_json::from_slice::<serde::de::IgnoredAny>(first).is_ok();
    let cut = start + memchr::memrchr(b'\n', body)? + 1;
    (is_record && cut > start + first_end + 1).then_some(cut)
}

/// Lines that end in `bytes` (its newlines).
fn count_lines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// Reads until `bytes` grew by `chunk` bytes or the file ended; true at its end.
fn fill(
    file: &mut File,
    bytes: &mut Vec<u8>,
    chunk: usize,
    progress: Option<&Progress>,
) -> std::io::Result<bool> {
    let want = bytes.len() + chunk;
    while bytes.len() < want {
        let before = bytes.len();
        let n = file
            .by_ref()
            .take((want - before) as u64)
            .read_to_end(bytes)?;
        if let Some(p) = progress {
            p.advance(n as u64);
        }
        if n == 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The rest of `file` after `bytes`, loaded whole as before, its bytes then let go unless
/// `keep` says otherwise.
fn whole(
    mut file: File,
    mut bytes: Vec<u8>,
    path: &Path,
    from: Option<Format>,
    limits: &Limits,
    progress: Option<&Progress>,
    keep: Bytes,
) -> Result<Session, LoadError> {
    let shown = path.display().to_string();
    while !fill(&mut file, &mut bytes, 1 << 20, progress).map_err(|source| LoadError::Io {
        path: shown.clone(),
        source,
    })? {}
    super::load_bytes_within(bytes, Some(path.to_path_buf()), &shown, from, limits)
        .map(|s| keep.whole(s))
}

/// The bytes of a loaded head no one else holds (copied when another holder remains).
fn unshared(head: Loaded) -> Vec<u8> {
    Arc::try_unwrap(head.buffer).unwrap_or_else(|shared| shared.as_ref().clone())
}

/// The session (and its children) without the source's bytes.
fn released(mut session: Session) -> Session {
    session.buffer = Arc::default();
    session.records = None;
    session.children = session.children.into_iter().map(released).collect();
    session
}
