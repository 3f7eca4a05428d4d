//! Following a growing file, as `tail -F` does.
//!
//! Owns: reading only the bytes appended since the last poll (a seek to the last offset, never
//! a re-read of the whole file), and noticing when the file at the path is no longer the one
//! being read: shorter than what was read (truncated), another inode or device (rotated or
//! replaced), or different first bytes (rewritten in place). It does not parse sessions,
//! sleep, watch or spawn threads: the caller decides when to `poll`.

use std::fs::{self, File, Metadata};
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::lines::{Batch, LineSplitter};
use super::LiveError;

/// How many leading bytes are compared on each poll to notice an in-place rewrite.
const HEAD_LEN: usize = 4096;

/// Why a followed file must be read again from its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResetReason {
    /// The file is shorter than the bytes already read.
    Truncated { len: u64, read: u64 },
    /// The path now names another file (log rotation, an atomic rename over it).
    Replaced,
    /// The file's first bytes changed (rewritten in place).
    Rewritten,
}

/// What one poll found.
#[derive(Debug, Clone)]
pub enum TailEvent {
    /// No new complete line (an incomplete last line may have grown).
    Idle,
    /// New complete lines, numbered on from the previous ones.
    Lines(Batch),
    /// The file was truncated or replaced. Everything read before is void; the reader now
    /// follows the file at the path from offset 0, and the next `poll` returns its lines from
    /// line 0 (or open a new reader).
    Reset(ResetReason),
}

/// Reads a file as it grows.
#[derive(Debug)]
pub struct TailReader {
    path: PathBuf,
    shown: String,
    file: File,
    identity: Option<(u64, u64)>,
    /// The file's first bytes as read (up to `HEAD_LEN`).
    head: Vec<u8>,
    splitter: LineSplitter,
}

impl TailReader {
    /// Opens `path` and reads the complete lines already there.
    pub fn open(path: &Path) -> Result<(TailReader, Batch), LiveError> {
        let mut reader = TailReader::attach(path)?;
        let batch = reader.read_new(true)?;
        Ok((reader, batch))
    }

    /// [`TailReader::open`] without parsing the lines already there (`Batch::unparsed`), for
    /// a caller that reads them as one source.
    pub fn open_unparsed(path: &Path) -> Result<(TailReader, Batch), LiveError> {
        let mut reader = TailReader::attach(path)?;
        let batch = reader.read_new(false)?;
        Ok((reader, batch))
    }

    fn attach(path: &Path) -> Result<TailReader, LiveError> {
        let shown = path.display().to_string();
        // Only a regular file is followed: a device or a FIFO at the path (or a link to one)
        // would be read without end, or wait for a writer.
        let file = crate::limits::open_regular(path).map_err(|e| LiveError::io(&shown, e))?;
        let meta = file.metadata().map_err(|e| LiveError::io(&shown, e))?;
        Ok(TailReader {
            path: path.to_path_buf(),
            shown,
            file,
            identity: identity(&meta),
            head: Vec::new(),
            splitter: LineSplitter::new(),
        })
    }

    /// Reads what was appended since the last poll, or reports that the file was replaced.
    pub fn poll(&mut self) -> Result<TailEvent, LiveError> {
        if let Some(reason) = self.changed()? {
            *self = TailReader::attach(&self.path)?;
            return Ok(TailEvent::Reset(reason));
        }
        let batch = self.read_new(true)?;
        Ok(if batch.is_empty() {
            TailEvent::Idle
        } else {
            TailEvent::Lines(batch)
        })
    }

    /// The incomplete last line read so far.
    pub fn pending(&self) -> &[u8] {
        self.splitter.pending()
    }

    /// Number of the next line to complete (= complete lines read so far).
    pub fn next_line(&self) -> usize {
        self.splitter.next_line()
    }

    /// Bytes read so far, the incomplete last line included.
    pub fn offset(&self) -> u64 {
        self.splitter.consumed()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the path no longer names the file as read. A path that vanished is not a
    /// change: the open file is still followed until another appears.
    fn changed(&mut self) -> Result<Option<ResetReason>, LiveError> {
        let meta = match fs::metadata(&self.path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(LiveError::io(&self.shown, e)),
        };
        if identity(&meta) != self.identity {
            return Ok(Some(ResetReason::Replaced));
        }
        let read = self.splitter.consumed();
        if meta.len() < read {
            return Ok(Some(ResetReason::Truncated {
                len: meta.len(),
                read,
            }));
        }
        if !self.head.is_empty() && self.read_head()? != self.head {
            return Ok(Some(ResetReason::Rewritten));
        }
        Ok(None)
    }

    fn read_head(&mut self) -> Result<Vec<u8>, LiveError> {
        let mut head = Vec::with_capacity(self.head.len());
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| {
                (&mut self.file)
                    .take(self.head.len() as u64)
                    .read_to_end(&mut head)
            })
            .map_err(|e| LiveError::io(&self.shown, e))?;
        Ok(head)
    }

    /// Reads from the last offset to the end of the file, parsing the lines if asked.
    fn read_new(&mut self, parse: bool) -> Result<Batch, LiveError> {
        let mut chunk = Vec::new();
        self.file
            .seek(SeekFrom::Start(self.splitter.consumed()))
            .and_then(|_| self.file.read_to_end(&mut chunk))
            .map_err(|e| LiveError::io(&self.shown, e))?;
        let missing = HEAD_LEN.saturating_sub(self.head.len());
        self.head.extend(chunk.iter().take(missing));
        Ok(if parse {
            self.splitter.feed(chunk)
        } else {
            self.splitter.feed_unparsed(chunk)
        })
    }
}

#[cfg(unix)]
fn identity(meta: &Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_meta: &Metadata) -> Option<(u64, u64)> {
    None
}
