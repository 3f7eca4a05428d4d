//! opencode's legacy JSON storage on disk: where a session's files are, and reading them.
//!
//! Owns: the layout `storage/session/<projectID>/<sessionID>.json` (the session's info),
//! `storage/message/<sessionID>/<messageID>.json` and `storage/part/<messageID>/<partID>.json`
//! (opencode `packages/opencode/src/storage/storage.ts`, keys joined into paths, and
//! `session/index.ts`, which lists a session's messages and a message's parts in key order —
//! ids are time-ordered, so that is the order they were written in); finding a session's
//! storage root from its info file, the newest session of a storage and a session's children
//! (sessions whose `parentID` is its id); and reading one session's files into one buffer of
//! records. What the records mean is `build`'s.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::common::str_at;

/// A `storage/` directory of opencode.
#[derive(Debug, Clone)]
pub struct Storage {
    pub root: PathBuf,
}

/// One file read: its place in the session's list of records, its bytes' range in the buffer,
/// and its value.
pub struct Record {
    pub index: usize,
    pub range: (usize, usize),
    pub value: Value,
}

/// A session's files (or `opencode.db` rows), read: the info first, then each message followed
/// by its parts.
#[derive(Default)]
pub struct Files {
    pub buffer: Vec<u8>,
    pub info: Option<Record>,
    pub messages: Vec<(Record, Vec<Record>)>,
    /// Files that could not be read as a JSON object: record number (1-based) and why.
    pub skipped: Vec<(usize, String)>,
    pub count: usize,
}

impl Storage {
    /// The storage a directory is or holds: `storage/` itself (with `session/` and
    /// `message/`), or opencode's data directory holding `storage/`. A data directory that also
    /// holds `opencode.db` is not one: current opencode moved its sessions into the database.
    pub fn of_dir(path: &Path) -> Option<Storage> {
        let is_storage = |p: &Path| p.join("session").is_dir() && p.join("message").is_dir();
        if is_storage(path)
            && !path
                .parent()
                .is_some_and(|p| p.join("opencode.db").is_file())
        {
            return Some(Storage {
                root: path.to_path_buf(),
            });
        }
        let inner = path.join("storage");
        (is_storage(&inner) && !path.join("opencode.db").is_file())
            .then_some(Storage { root: inner })
    }

    /// The storage a session info file lies in (`<root>/session/<projectID>/<id>.json`).
    pub fn of_info_file(file: &Path) -> Option<Storage> {
        let project = file.parent()?;
        let sessions = project.parent()?;
        if sessions.file_name()? != "session" {
            return None;
        }
        Some(Storage {
            root: sessions.parent()?.to_path_buf(),
        })
    }

    /// Every session info file, with its value (files that are not JSON objects are left out).
    pub fn sessions(&self) -> Vec<(PathBuf, Value)> {
        let mut found = Vec::new();
        for project in sorted_entries(&self.root.join("session")) {
            for file in sorted_entries(&project) {
                if file.extension().is_none_or(|e| e != "json") {
                    continue;
                }
                let Ok(bytes) = crate::limits::read_regular(&file) else {
                    continue;
                };
                if let Ok(value @ Value::Object(_)) = serde_json::from_slice::<Value>(&bytes) {
                    found.push((file, value));
                }
            }
        }
        found
    }

    /// The session a user most likely means: the most recently updated one that is no
    /// subagent's.
    pub fn newest(&self) -> Option<PathBuf> {
        self.sessions()
            .into_iter()
            .filter(|(_, v)| v.get("parentID").is_none_or(Value::is_null))
            .max_by_key(|(_, v)| updated(v))
            .map(|(path, _)| path)
    }

    /// A session's files: `info` (its bytes as read) and, under this storage, its messages and
    /// their parts in id order.
    pub fn read(&self, info: Vec<u8>, id: &str) -> Files {
        let mut files = Files::default();
        files.info = files.take(Ok(info), "session info");
        for message in sorted_entries(&self.root.join("message").join(id)) {
            let name = file_name(&message);
            let Some(record) = files.take(crate::limits::read_regular(&message), &name) else {
                continue;
            };
            let msg_id = str_at(&record.value, "id")
                .map(str::to_string)
                .unwrap_or_else(|| name.trim_end_matches(".json").to_string());
            let mut parts = Vec::new();
            for part in sorted_entries(&self.root.join("part").join(&msg_id)) {
                let name = file_name(&part);
                if let Some(record) = files.take(crate::limits::read_regular(&part), &name) {
                    parts.push(record);
                }
            }
            files.messages.push((record, parts));
        }
        files
    }
}

impl Files {
    /// Appends one file's bytes as the next record; `None` (and the record reported) when it
    /// cannot be read or is not a JSON object.
    pub fn take(&mut self, bytes: std::io::Result<Vec<u8>>, name: &str) -> Option<Record> {
        let index = self.count;
        self.count += 1;
        let mut bytes = match bytes {
            Ok(bytes) => bytes,
            Err(e) => {
                self.skipped
                    .push((index + 1, format!("{name}: cannot read: {e}")));
                return None;
            }
        };
        crate::formats::surrogates::repair(&mut bytes);
        let start = self.buffer.len();
        self.buffer.extend_from_slice(&bytes);
        let end = start + bytes.trim_ascii_end().len();
        self.buffer.push(b'\n');
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(value) if value.is_object() => Some(Record {
                index,
                range: (start, end),
                value,
            }),
            Ok(_) => {
                self.skipped
                    .push((index + 1, format!("{name}: expected a JSON object")));
                None
            }
            Err(e) => {
                self.skipped
                    .push((index + 1, format!("{name}: invalid JSON: {e}")));
                None
            }
        }
    }
}

/// The `.json` files (or the directories) in `dir`, by name; empty when it is missing.
fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    paths.retain(|p| p.is_dir() || p.extension().is_some_and(|e| e == "json"));
    paths.sort();
    paths
}

/// The info files of the sessions of `all` whose `parentID` is `id`, oldest first.
pub fn children(all: &[(PathBuf, Value)], id: &str) -> Vec<PathBuf> {
    let mut found: Vec<(u64, &PathBuf)> = all
        .iter()
        .filter(|(_, v)| str_at(v, "parentID") == Some(id))
        .map(|(path, v)| (created(v), path))
        .collect();
    found.sort();
    found.into_iter().map(|(_, path)| path.clone()).collect()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn time(v: &Value, key: &str) -> u64 {
    v.get("time")
        .and_then(|t| t.get(key))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

fn updated(v: &Value) -> u64 {
    time(v, "updated").max(time(v, "created"))
}

fn created(v: &Value) -> u64 {
    time(v, "created")
}
