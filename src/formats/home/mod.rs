//! Where agent tools keep their sessions on this machine, and how a format finds them.
//!
//! Owns: [`Home`] (a tool's root under the user's home, the variable that moves it, its layout),
//! [`Found`] (one session found, with a cheap look inside: title, message records, working
//! directory), the
//! [`Limits`] of that look, and the [`Finder`] a format's `find` is given: a bounded,
//! loop-proof walker (`walk`) and the reading of each file found within the limits. The
//! layouts themselves are each format's (`<format>/home.rs`); the roots, the walk over every
//! format and the filter are the session picker's (`live::discover`).
//!
//! Must not parse a whole session, touch a terminal, spawn threads, or fail because of one bad
//! file or directory.

pub(crate) mod bytes;
pub(crate) mod peek;
pub(crate) mod walk;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::session::Format;
use walk::{Entry, Walker};

/// Where a tool keeps its sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Home {
    /// The tool's name as its users say it (`Claude Code`).
    pub tool: &'static str,
    /// The root's directory under the user's home (`.claude`).
    pub dir: &'static str,
    /// The environment variable that moves the root, if there is one.
    pub var: Option<&'static str>,
    /// Where the root is under the variable's value: empty when the variable names the root
    /// itself; `.gemini` for Gemini CLI, whose variable names the home its `.gemini` is in.
    pub var_below: &'static str,
    /// The sessions' layout under the root, as the picker shows it.
    pub layout: &'static str,
}

impl Home {
    /// The root for a user whose home is `home`, `var` looking up the environment; an empty
    /// value is unset.
    pub fn root(&self, home: &Path, var: &impl Fn(&str) -> Option<std::ffi::OsString>) -> PathBuf {
        let set = self.var.and_then(var).filter(|v| !v.is_empty());
        match set {
            Some(value) if self.var_below.is_empty() => PathBuf::from(value),
            Some(value) => PathBuf::from(value).join(self.var_below),
            None => home.join(self.dir),
        }
    }
}

/// How far discovery looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Directory levels walked below a recursive root (Codex `sessions/YYYY/MM/DD` needs 4).
    pub max_depth: usize,
    /// Files up to this size are read whole (title and message count); larger ones only their
    /// head (title, no count).
    pub count_bytes: u64,
    /// How much of a larger file is read for its title.
    pub head_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: 8,
            count_bytes: 64 << 20,
            head_bytes: 1 << 20,
        }
    }
}

/// One session found on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The file, or the directory for an OpenHands conversation; what `load_path` takes.
    pub path: PathBuf,
    /// The format it is in (`tool.name()` is the format name).
    pub tool: Format,
    /// File size, or the sum of a conversation directory's files.
    pub size_bytes: u64,
    /// Last activity: the file's modification time, or the newest in a conversation directory.
    pub modified: SystemTime,
    pub title: Option<String>,
    /// Message records (JSONL lines of message types: Claude `user`/`assistant`, Codex
    /// `response_item` messages, Gemini `user`/`gemini` records); `None` when not counted
    /// (a file over `Limits::count_bytes`, an OpenHands directory). An estimate: the inspector
    /// counts messages after parsing (streamed lines merged, tool results split).
    pub messages: Option<usize>,
    /// The messages the inspector shows, once the session has been parsed by its format
    /// (`live::discover::count`); `None` until then, or when it is not parsed.
    pub exact: Option<usize>,
    /// The directory the agent worked in, as the session records it (or as the tool's layout
    /// encodes it); unsanitised session text.
    pub cwd: Option<String>,
}

/// What a cheap look inside one session file learned.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Peek {
    pub title: Option<String>,
    pub messages: Option<usize>,
    pub cwd: Option<String>,
}

/// What a format's `find` is given: the walk (shared by every format, so a directory reached
/// twice is walked once) and the list the sessions found go to.
pub struct Finder<'a> {
    walker: &'a mut Walker,
    limits: &'a Limits,
    format: Format,
    found: &'a mut Vec<Found>,
}

impl<'a> Finder<'a> {
    pub(crate) fn new(
        walker: &'a mut Walker,
        limits: &'a Limits,
        format: Format,
        found: &'a mut Vec<Found>,
    ) -> Finder<'a> {
        Finder {
            walker,
            limits,
            format,
            found,
        }
    }

    /// The entries of `dir`, sorted by name (empty when missing, unreadable or walked already).
    pub fn list(&mut self, dir: &Path) -> Vec<Entry> {
        self.walker.list(dir)
    }

    /// The subdirectories of `dir`.
    pub fn dirs(&mut self, dir: &Path) -> Vec<Entry> {
        self.walker.dirs(dir)
    }

    /// Every file under `dir`, to the depth of the limits, whose name passes `keep`.
    pub fn files_under(&mut self, dir: &Path, keep: &dyn Fn(&str) -> bool) -> Vec<Entry> {
        self.walker.files_under(dir, keep)
    }

    /// A session file: read whole when under the limits' count size, else its head, and looked
    /// into by `peek` (given the file's name, its bytes, and whether they are all of it). A file
    /// that cannot be read is counted as skipped.
    pub fn file(&mut self, file: Entry, peek: impl FnOnce(&str, &[u8], bool) -> Peek) {
        let size = file.meta.len();
        let limits = self.limits;
        let (bytes, whole) =
            match peek::read_capped(&file.path, size, limits.count_bytes, limits.head_bytes) {
                Ok(read) => read,
                Err(e) => {
                    self.walker.note(e.kind());
                    return;
                }
            };
        let seen = peek(file.name(), &bytes, whole);
        self.found.push(Found {
            tool: self.format,
            size_bytes: size,
            modified: file.meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            title: seen.title,
            messages: seen.messages,
            exact: None,
            cwd: seen.cwd,
            path: file.path,
        });
    }

    /// A session looked into already (a directory of files).
    pub fn push(&mut self, found: Found) {
        self.found.push(found);
    }
}
