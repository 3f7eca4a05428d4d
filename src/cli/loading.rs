//! Loading and analysing the session a printed command works on, with a progress line on
//! stderr for a large file when stderr is a terminal (`progress_line`).
//!
//! Owns: the choice between the plain load and the watched one, and reading a large file in
//! chunks so that reading shows progress. Must not: read a file twice, or do anything more
//! than the plain load when no line is shown.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;

use super::progress_line::{self, Line};
use super::{load_source, Common};
use crate::analysis::Analysis;
use crate::progress::{Phase, Progress};

/// The analysed session of `source` (a path, or `-` for stdin).
pub fn analyse(source: &str, common: &Common) -> anyhow::Result<Analysis> {
    analyse_keeping(source, common, Raw::Keep)
}

/// Whether the source's bytes stay in memory after parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Raw {
    /// Kept: the command shows or writes records as they were (plans, diffs, compaction).
    Keep,
    /// Let go once parsed: the command needs only the messages (the report), and the bytes
    /// are as large as the file.
    Release,
}

/// [`analyse`], letting the source's bytes go after parsing when `raw` says so.
pub fn analyse_keeping(source: &str, common: &Common, raw: Raw) -> anyhow::Result<Analysis> {
    let limits = common.limits();
    let registry = crate::config::load_registry(common.config.as_deref(), limits.config)?;
    let options = common.options();
    let file_len = (source != "-")
        .then(|| std::fs::metadata(source).ok())
        .flatten()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let Some(len) = file_len.filter(|&len| progress_line::wanted(len)) else {
        let mut session = load_source(source, common.from, &limits)?;
        if raw == Raw::Release {
            release_raw(&mut session);
        }
        return Ok(Analysis::new(session, &registry, &options));
    };
    let progress = Arc::new(Progress::new());
    let line = Line::start(progress.clone(), len);
    let bytes = read_watched(Path::new(source), len, &progress)?;
    progress.start(Phase::Parsing, 0);
    let mut session = crate::formats::load_bytes_within(
        bytes,
        Some(source.into()),
        source,
        common.from,
        &limits,
    )?;
    if raw == Raw::Release {
        release_raw(&mut session);
    }
    let analysis = Analysis::with_progress(session, &registry, &options, Some(&progress));
    drop(line);
    Ok(analysis)
}

/// The bytes of `path`, read a megabyte at a time, advancing `progress`.
fn read_watched(path: &Path, len: u64, progress: &Progress) -> anyhow::Result<Vec<u8>> {
    let shown = path.display();
    progress.start(Phase::Reading, len);
    let mut file = std::fs::File::open(path).with_context(|| format!("{shown}: cannot read"))?;
    let mut bytes = Vec::with_capacity(len as usize);
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        let n = file
            .read(&mut chunk)
            .with_context(|| format!("{shown}: cannot read"))?;
        if n == 0 {
            return Ok(bytes);
        }
        bytes.extend_from_slice(&chunk[..n]);
        progress.advance(n as u64);
    }
}

/// Drops a session's (and its children's) hold on the source's bytes: raw records are no
/// longer available, every parsed message is.
fn release_raw(session: &mut crate::session::Session) {
    session.buffer = Arc::default();
    session.children.iter_mut().for_each(release_raw);
}
