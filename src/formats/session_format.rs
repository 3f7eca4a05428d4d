//! What a session format module tells the rest of ctxray.
//!
//! Owns: the [`SessionFormat`] trait — a format's name and description, how its content is
//! recognised, how it is read (a file, a directory, one line at a time), how its histories are
//! written, where its tool keeps sessions and how the session picker shows them. Every method
//! but the name, the description and the parse has a default that means "not this format's".

use std::path::Path;

use serde_json::Value;

use super::common::Loaded;
use super::home::{Finder, Home};
use super::stream::LineReader;
use super::LoadError;
use crate::session::{Format, Session};

/// One session format, implemented by its module.
pub trait SessionFormat: Sync {
    /// Its identity; `format().name()` is the name `--from` and `formats` use.
    fn format(&self) -> Format;

    /// One line on what the format is, for `ctxray formats`.
    fn description(&self) -> &'static str;

    /// Whether a JSON Lines record is one of this format's (the first lines are asked).
    fn sniff_record(&self, _record: &Value) -> bool {
        false
    }

    /// Whether a whole JSON document is this format's own (asked before the document is looked
    /// into for a list of messages).
    fn sniff_document(&self, _doc: &Value) -> bool {
        false
    }

    /// Whether a list of messages (a top-level array, a request body's `messages` or `input`)
    /// has this format's shape; `probe` holds its first items.
    fn sniff_messages(&self, _probe: &[&Value]) -> bool {
        false
    }

    /// Whether a source that is text rather than JSON (its first non-blank line is `head`) is
    /// this format's. A format that says yes for some text reads sources of any shape
    /// ([`Loaded::text`]).
    fn sniff_text(&self, _head: &str) -> bool {
        false
    }

    /// Whether this format reads text sources (`Doc::Text`); any other refuses them.
    fn reads_text(&self) -> bool {
        false
    }

    /// Whether a zip archive is this format's.
    fn reads_zip(&self) -> bool {
        false
    }

    /// Reads a source in this format.
    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError>;

    /// Reads a directory as one session of this format; `Ok(None)` when it is not one.
    fn load_dir(&self, _path: &Path) -> Result<Option<Session>, LoadError> {
        Ok(None)
    }

    /// Whether a directory is one session of this format (read by [`SessionFormat::load_dir`])
    /// rather than a folder of session files; asked without reading it whole.
    fn claims_dir(&self, _path: &Path) -> bool {
        false
    }

    /// A reader that goes on taking lines after `loaded`, for formats read one JSON Lines
    /// record at a time (a growing file is followed, a large one read in chunks). `None` when
    /// the format is read whole.
    fn lines(&self, _loaded: &Loaded) -> Option<Result<Box<dyn LineReader>, LoadError>> {
        None
    }

    /// Whether the history documents a preset persists in this format are written one record
    /// per line (JSON Lines) rather than as one JSON document.
    fn writes_lines(&self) -> bool {
        false
    }

    /// Where this format's tool keeps its sessions on this machine, if it has such a place.
    fn home(&self) -> Option<Home> {
        None
    }

    /// The sessions under `root` (where [`SessionFormat::home`] says), each given to `finder`.
    fn find(&self, _root: &Path, _finder: &mut Finder) {}

    /// The theme role the session picker draws this format's tool name in.
    fn picker_role(&self) -> &'static str {
        "dim"
    }

    /// Where a session found on disk lives in its tool's terms (a project, a day), from the
    /// names of its path's components; `None` leaves the picker to show the parent directory.
    fn picker_place(&self, _names: &[String]) -> Option<String> {
        None
    }
}
