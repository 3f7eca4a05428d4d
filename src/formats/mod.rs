//! Reading sessions: detection, and one parser per format.
//!
//! Owns: turning bytes on disk (a file, a directory, stdin) into a `Session`. Each format's
//! module knows its own quirks and nothing else, and tells the rest of ctxray what it is
//! through `session_format::SessionFormat`; `registry::FORMATS` lists them once. `detect` decides
//! which one applies from the content, never from the file name. Nothing here counts tokens or
//! knows about compaction or terminals.

pub mod chunked;
#[cfg(test)]
mod chunked_tests;
pub mod common;
pub mod detect;
pub mod empty;
pub mod home;
pub mod image;
pub mod refused;
pub mod registry;
pub mod session_format;
pub(crate) mod shared;
pub mod spans;
pub mod sqlite;
pub mod stream;
pub mod surrogates;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod test_support_db;
pub mod uncertain;

pub(crate) mod agent_framework;
mod aider;
mod anthropic;
mod claude_code;
mod cline;
mod codex;
mod copilot_cli;
mod gemini_cli;
mod goose;
mod inspect_ai;
mod langchain;
mod openai_agents;
mod openai_chat;
mod openai_responses;
mod opencode;
mod openhands;
mod openhands_eval;
mod openhands_v0;
mod pi;
mod pydantic_ai;
mod qwen_code;
mod swe_agent;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::limits::{Limits, ReadError};
use crate::session::{Format, Session};
pub use common::{Doc, Loaded, Record};
pub use stream::{Fed, Stream};

/// Why a source could not be loaded. Each message names the file, and the line where one applies.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a session file: {why}")]
    NotASession { path: String, why: String },
    #[error("{path}:{line}: {what}")]
    Malformed {
        path: String,
        line: usize,
        what: String,
    },
    /// A limit of `crate::limits` reached; `what` names the limit and the flag raising it.
    #[error("{path}: {what}")]
    Limit { path: String, what: String },
}

impl LoadError {
    pub fn not_session(path: &str, why: impl Into<String>) -> LoadError {
        LoadError::NotASession {
            path: path.to_string(),
            why: why.into(),
        }
    }
}

/// Loads a session from a file or directory, detecting its format unless `from` is given.
pub fn load_path(path: &Path, from: Option<Format>) -> Result<Session, LoadError> {
    load_path_within(path, from, &Limits::default())
}

/// [`load_path`] within `limits`: a source that is not a regular file (a FIFO, a device) is
/// read up to `limits.input` bytes, a JSONL line up to `limits.line`.
pub fn load_path_within(
    path: &Path,
    from: Option<Format>,
    limits: &Limits,
) -> Result<Session, LoadError> {
    let shown = path.display().to_string();
    let meta = fs::metadata(path).map_err(|source| LoadError::Io {
        path: shown.clone(),
        source,
    })?;
    if meta.is_dir() {
        return load_dir(path, from);
    }
    if meta.is_file() && from.is_none_or(|f| f == Format::OPENCODE) {
        // A database is read by SQLite, never whole into memory: its head is enough to know it.
        if sqlite::head(path).is_some_and(|head| opencode::db::is_opencode_db(&head)) {
            let mut session = opencode::load_db(path, &shown)?;
            empty::note(&mut session);
            return Ok(session);
        }
    }
    let bytes = crate::limits::read_source(path, limits).map_err(|e| read_error(&shown, e))?;
    load_bytes_within(bytes, Some(path.to_path_buf()), &shown, from, limits)
}

/// The load error of a bounded read.
pub fn read_error(shown: &str, e: ReadError) -> LoadError {
    match e {
        ReadError::Io(source) => LoadError::Io {
            path: shown.to_string(),
            source,
        },
        ReadError::Exceeded(what) => LoadError::Limit {
            path: shown.to_string(),
            what,
        },
    }
}

/// Loads a session from bytes already read (stdin, a test). `path` lets a format find files
/// beside the session (Claude Code subagents).
pub fn load_bytes(
    bytes: Vec<u8>,
    path: Option<PathBuf>,
    shown: &str,
    from: Option<Format>,
) -> Result<Session, LoadError> {
    load_bytes_within(bytes, path, shown, from, &Limits::default())
}

/// [`load_bytes`] with JSONL lines bounded by `limits.line`.
pub fn load_bytes_within(
    bytes: Vec<u8>,
    path: Option<PathBuf>,
    shown: &str,
    from: Option<Format>,
    limits: &Limits,
) -> Result<Session, LoadError> {
    if from.is_none_or(|f| f == Format::OPENCODE) && opencode::db::is_opencode_db(&bytes) {
        let Some(path) = path else {
            return Err(LoadError::not_session(
                shown,
                "an opencode database (opencode.db) not read from a file: give its path, so \
                 SQLite reads it with its -wal",
            ));
        };
        let mut session = opencode::load_db(&path, shown)?;
        empty::note(&mut session);
        return Ok(session);
    }
    if from.is_none_or(|f| f == Format::GOOSE) && goose::db::is_goose_db(&bytes) {
        let Some(path) = path else {
            return Err(LoadError::not_session(
                shown,
                "a Goose session database (sessions.db) not read from a file: give its path, so \
                 SQLite reads it with its -wal",
            ));
        };
        let mut session = goose::load_db(&path, shown)?;
        empty::note(&mut session);
        return Ok(session);
    }
    let loaded = Loaded::within(bytes, path, shown, limits.line)?;
    let format = match from {
        Some(f) => f,
        None => detect::detect(&loaded)?,
    };
    parse(format, &loaded)
}

/// Whether a directory is itself one session (a format reads it whole, or it is a tool's
/// store that is refused by name), not a folder of them.
pub fn is_session_dir(path: &Path) -> bool {
    registry::FORMATS.iter().any(|f| f.claims_dir(path))
}

fn load_dir(path: &Path, from: Option<Format>) -> Result<Session, LoadError> {
    let shown = path.display().to_string();
    for format in registry::FORMATS {
        if from.is_some_and(|f| f != format.format()) {
            continue;
        }
        if let Some(mut session) = format.load_dir(path)? {
            empty::note(&mut session);
            return Ok(session);
        }
    }
    Err(LoadError::not_session(
        &shown,
        "a directory, but not an OpenHands conversation (no events/ and no event-<n>-<id>.json files); give a session file",
    ))
}

/// Parses already-loaded bytes as the given format.
pub fn parse(format: Format, loaded: &Loaded) -> Result<Session, LoadError> {
    let module = registry::of(format);
    if let (Some(refusal), false) = (loaded.refusal(), module.reads_text()) {
        return Err(refusal);
    }
    let mut session = module.parse(loaded)?;
    session.renumber();
    if uncertain::is_uncertain(&session) {
        uncertain::check(&mut session, &uncertain::Clues::of(loaded, format));
    }
    empty::note(&mut session);
    Ok(session)
}

/// A fresh session for `loaded`, with the lines it could not read already reported.
pub(crate) fn start(format: Format, loaded: &Loaded) -> Session {
    let mut session = Session::new(format, loaded.shown.clone(), Arc::clone(&loaded.buffer));
    session.source.records = loaded.record_count();
    session.source.skipped = loaded.skipped.clone();
    session.source.record_indices = loaded.record_indices();
    session
}
