//! Live follow: reading a session while its agent is still writing it.
//!
//! Owns: tailing a growing file ([`TailReader`]: only the bytes appended since the last poll,
//! an incomplete last line held back until its newline arrives, truncation and replacement
//! detected), reading any `Read` incrementally ([`StdinReader`], for `ctxray -`), the shared
//! line splitter ([`LineSplitter`]), rebuilding a `Session` as records arrive
//! ([`LiveSession`]), and finding the sessions on this machine for the picker (`discover`,
//! over each format's `home`).
//!
//! Must not: touch a terminal, spawn threads, sleep or block beyond one `read` call. Every
//! reader is driven by its caller's `poll` (the TUI runtime decides when); nothing here knows
//! about tokens, compaction or rendering. Parsing itself belongs to `formats`.

mod builder;
pub mod discover;
mod lines;
mod stdin;
mod tail;

pub use builder::{LiveFile, LiveSession, LiveUpdate};
pub use lines::{Batch, LineSplitter};
pub use stdin::{StdinEvent, StdinReader};
pub use tail::{ResetReason, TailEvent, TailReader};

use crate::formats::LoadError;

/// Why a live source could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Load(#[from] LoadError),
}

impl LiveError {
    pub(crate) fn io(path: &str, source: std::io::Error) -> LiveError {
        LiveError::Io {
            path: path.to_string(),
            source,
        }
    }
}
