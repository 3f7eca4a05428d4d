//! Directory listing for discovery: bounded, loop-proof, and quiet about what it cannot read.
//!
//! Owns: listing a directory's entries with their (symlink-followed) metadata, recursing to a
//! bounded depth, remembering every directory entered (by canonical path) so a symlink loop or
//! two links to one directory are walked once, and counting what could not be read. Must not
//! read file contents or know any session layout.

use std::collections::HashSet;
use std::fs::{self, Metadata};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// One directory entry, symlinks followed.
pub struct Entry {
    pub path: PathBuf,
    pub meta: Metadata,
}

impl Entry {
    pub fn name(&self) -> &str {
        self.path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    }

    pub fn is_dir(&self) -> bool {
        self.meta.is_dir()
    }

    pub fn is_file(&self) -> bool {
        self.meta.is_file()
    }
}

/// Walks the session roots, counting what it had to skip.
pub struct Walker {
    visited: HashSet<PathBuf>,
    max_depth: usize,
    /// Directories and entries that exist but could not be read.
    pub skipped: usize,
}

impl Walker {
    pub fn new(max_depth: usize) -> Walker {
        Walker {
            visited: HashSet::new(),
            max_depth,
            skipped: 0,
        }
    }

    /// Records an error: a missing path is normal (no such tool installed), anything else is
    /// counted as skipped.
    pub fn note(&mut self, kind: ErrorKind) {
        if kind != ErrorKind::NotFound {
            self.skipped += 1;
        }
    }

    /// The entries of `dir`, sorted by name; empty if it is missing, unreadable or was already
    /// listed (through another link).
    pub fn list(&mut self, dir: &Path) -> Vec<Entry> {
        let canonical = match fs::canonicalize(dir) {
            Ok(c) => c,
            Err(e) => {
                self.note(e.kind());
                return Vec::new();
            }
        };
        if !self.visited.insert(canonical) {
            return Vec::new();
        }
        let reader = match fs::read_dir(dir) {
            Ok(r) => r,
            Err(e) => {
                self.note(e.kind());
                return Vec::new();
            }
        };
        let mut entries = Vec::new();
        for entry in reader {
            let path = match entry {
                Ok(e) => e.path(),
                Err(e) => {
                    self.note(e.kind());
                    continue;
                }
            };
            match fs::metadata(&path) {
                Ok(meta) => entries.push(Entry { path, meta }),
                Err(e) => self.note(e.kind()),
            }
        }
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        entries
    }

    /// The subdirectories of `dir`.
    pub fn dirs(&mut self, dir: &Path) -> Vec<Entry> {
        let mut entries = self.list(dir);
        entries.retain(Entry::is_dir);
        entries
    }

    /// Every file under `dir` (at most `max_depth` levels down) whose name passes `keep`.
    pub fn files_under(&mut self, dir: &Path, keep: &dyn Fn(&str) -> bool) -> Vec<Entry> {
        let mut out = Vec::new();
        self.collect(dir, 0, keep, &mut out);
        out
    }

    fn collect(
        &mut self,
        dir: &Path,
        depth: usize,
        keep: &dyn Fn(&str) -> bool,
        out: &mut Vec<Entry>,
    ) {
        for entry in self.list(dir) {
            if entry.is_dir() {
                if depth + 1 < self.max_depth {
                    self.collect(&entry.path, depth + 1, keep, out);
                }
            } else if entry.is_file() && keep(entry.name()) {
                out.push(entry);
            }
        }
    }
}
