//! Loading and analysing the session a printed command works on, with a progress line on
//! stderr for a large file when stderr is a terminal (`progress_line`).
//!
//! Owns: the choice between keeping the source's bytes and letting them go (every file is
//! read through `formats::chunked`: a chunk at a time where its format allows, whole
//! otherwise; a command that needs only the messages lets the bytes go, one that reads records
//! as they were has them read again from the file), and the progress line. Must not: read a
//! file twice (but where `formats::chunked` says), or do anything more than the plain load
//! when no line is shown.

use std::path::Path;
use std::sync::Arc;

use super::progress_line::{self, Line};
use super::{load_source, Common};
use crate::analysis::{Analysis, Options};
use crate::formats::chunked;
use crate::progress::{Phase, Progress};
use crate::session::Session;
use crate::tokens::Registry;

/// The analysed session of `source` (a path, or `-` for stdin).
pub fn analyse(source: &str, common: &Common) -> anyhow::Result<Analysis> {
    analyse_keeping(source, common, Raw::Keep)
}

/// Whether the source's bytes can be had after parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Raw {
    /// Kept: the command shows or writes records as they were (plans, diffs, compaction). A
    /// file read a chunk at a time keeps them in the file, read again when asked for.
    Keep,
    /// Let go once parsed: the command needs only the messages (the report), and the bytes
    /// are as large as the file.
    Release,
}

/// [`analyse`], letting the source's bytes go after parsing when `raw` says so.
pub fn analyse_keeping(source: &str, common: &Common, raw: Raw) -> anyhow::Result<Analysis> {
    analyse_with(source, common, raw, true)
}

/// [`analyse_keeping`] with no progress line: one of many sources worked on at once.
pub fn analyse_quietly(source: &str, common: &Common, raw: Raw) -> anyhow::Result<Analysis> {
    analyse_with(source, common, raw, false)
}

fn analyse_with(source: &str, common: &Common, raw: Raw, line: bool) -> anyhow::Result<Analysis> {
    let limits = common.limits();
    let registry = crate::config::load_registry(common.config.as_deref(), limits.config)?;
    let options = common.options();
    let file_len = (source != "-")
        .then(|| std::fs::metadata(source).ok())
        .flatten()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let Some(len) = file_len else {
        // Stdin, or a directory: read as its format reads it.
        let session = load_source(source, common.from, &limits)?;
        return Ok(Analysis::new(session, &registry, &options));
    };
    let progress = (line && progress_line::wanted(len)).then(|| Arc::new(Progress::new()));
    let line = progress.as_ref().map(|p| Line::start(p.clone(), len));
    if let Some(p) = &progress {
        p.start(Phase::Reading, len);
    }
    let bytes = match raw {
        Raw::Keep => chunked::Bytes::Kept,
        Raw::Release => chunked::Bytes::Released,
    };
    let session = chunked::load(
        Path::new(source),
        common.from,
        &limits,
        progress.as_deref(),
        warm(&registry, &options),
        bytes,
    )?;
    let analysis = Analysis::with_progress(session, &registry, &options, progress.as_deref());
    drop(line);
    Ok(analysis)
}

/// Loads the tables of the encoding a session beginning as `head` will be counted with while
/// the rest is read.
fn warm<'a>(registry: &'a Registry, options: &'a Options) -> impl FnOnce(&Session) + 'a {
    move |head| crate::analysis::encoding_for(head.model.as_deref(), registry, options).warm()
}
