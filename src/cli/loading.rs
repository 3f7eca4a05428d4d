//! Loading and analysing the session a printed command works on, with a progress line on
//! stderr for a large file when stderr is a terminal (`progress_line`).
//!
//! Owns: the choice between the plain load, the watched one and the released one (a command
//! that needs only the messages reads a file a chunk at a time, `formats::chunked`), and
//! reading a large file in chunks so that reading shows progress. Must not: read a file twice
//! (but where `formats::chunked` says), or do anything more than the plain load when no line is
//! shown.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;

use super::progress_line::{self, Line};
use super::{load_source, Common};
use crate::analysis::{Analysis, Options};
use crate::progress::{Phase, Progress};
use crate::session::Session;
use crate::tokens::Registry;

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
        let session = match (raw, file_len) {
            (Raw::Release, Some(_)) => crate::formats::chunked::load_released(
                Path::new(source),
                common.from,
                &limits,
                None,
                warm(&registry, &options),
            )?,
            _ => load_source(source, common.from, &limits)?,
        };
        return Ok(Analysis::new(session, &registry, &options));
    };
    let progress = Arc::new(Progress::new());
    let line = Line::start(progress.clone(), len);
    if raw == Raw::Release {
        progress.start(Phase::Reading, len);
        let session = crate::formats::chunked::load_released(
            Path::new(source),
            common.from,
            &limits,
            Some(&progress),
            warm(&registry, &options),
        )?;
        let analysis = Analysis::with_progress(session, &registry, &options, Some(&progress));
        drop(line);
        return Ok(analysis);
    }
    let bytes = read_watched(Path::new(source), len, &progress)?;
    progress.start(Phase::Parsing, 0);
    let session = crate::formats::load_bytes_within(
        bytes,
        Some(source.into()),
        source,
        common.from,
        &limits,
    )?;
    let analysis = Analysis::with_progress(session, &registry, &options, Some(&progress));
    drop(line);
    Ok(analysis)
}

/// Loads the tables of the encoding a session beginning as `head` will be counted with while
/// the rest is read.
fn warm<'a>(registry: &'a Registry, options: &'a Options) -> impl FnOnce(&Session) + 'a {
    move |head| crate::analysis::encoding_for(head.model.as_deref(), registry, options).warm()
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
