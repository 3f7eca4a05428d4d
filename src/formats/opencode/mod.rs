//! opencode sessions, in its JSON storage (opencode before 1.2, `storage/` under
//! `${XDG_DATA_HOME:-~/.local/share}/opencode/`) or its SQLite `opencode.db` beside it (opencode
//! 1.2 and later).
//!
//! Owns: the format's entry points — a session's info file
//! (`storage/session/<projectID>/<sessionID>.json`: `{id: "ses_…", projectID, directory,
//! title, parentID?, time}`, `Session.Info` in `packages/opencode/src/session/index.ts`),
//! recognised from its content and read with the message and part files of the storage it
//! lies in; a storage directory or opencode's data directory, read as its most recently
//! updated session; `opencode.db` (recognised from its tables) or a data directory holding it,
//! read as its most recently updated top-level session; and subagent sessions (`parentID`) as
//! children. Where the files are is `storage`'s, the database's rows `db`'s, what both mean
//! `build`'s, the session picker's look `home`'s.

mod build;
pub(crate) mod db;
mod home;
mod storage;

#[cfg(test)]
mod db_tests;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::common::{str_at, Loaded};
use super::LoadError;
use crate::session::{Format, Session};
use build::Builder;
use db::{Db, SessionRow};
use storage::{Files, Storage};

/// Subagent sessions are read this deep, no deeper.
const MAX_DEPTH: usize = 8;

/// opencode in the format registry.
pub struct OpenCode;

impl super::session_format::SessionFormat for OpenCode {
    fn format(&self) -> Format {
        Format::OPENCODE
    }

    fn description(&self) -> &'static str {
        "opencode: its SQLite opencode.db or the data directory holding it, or its JSON storage (a session file storage/session/<project>/<id>.json, or the storage directory); the newest session"
    }

    fn sniff_document(&self, v: &Value) -> bool {
        is_session_info(v)
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }

    fn load_dir(&self, path: &Path) -> Result<Option<Session>, LoadError> {
        if let Some(db) = db_of_dir(path) {
            return load_db(&db, &path.display().to_string()).map(Some);
        }
        let Some(storage) = Storage::of_dir(path) else {
            return Ok(None);
        };
        let shown = path.display().to_string();
        let Some(file) = storage.newest() else {
            return Err(LoadError::not_session(
                &shown,
                "opencode storage with no session in storage/session/",
            ));
        };
        let bytes = read(&file)?;
        Ok(Some(Reader::new(storage).session(bytes, &shown, 0)))
    }

    fn claims_dir(&self, path: &Path) -> bool {
        db_of_dir(path).is_some() || Storage::of_dir(path).is_some()
    }

    fn home(&self) -> Option<super::home::Home> {
        Some(super::home::Home {
            tool: "opencode",
            dir: ".local/share/opencode",
            var: Some("XDG_DATA_HOME"),
            var_below: "opencode",
            layout: "opencode.db, or storage/session/*/*.json",
        })
    }

    fn find(&self, root: &Path, finder: &mut super::home::Finder) {
        home::find(root, finder)
    }

    /// The project's directory is shown from the session; the picker's place is its project.
    fn picker_place(&self, names: &[String]) -> Option<String> {
        let n = names.len();
        (n >= 2).then(|| names[n - 2].clone())
    }
}

/// A session's info: a `ses_…` id with the project it belongs to.
pub(crate) fn is_session_info(v: &Value) -> bool {
    str_at(v, "id").is_some_and(|id| id.starts_with("ses_"))
        && v.get("projectID").is_some_and(Value::is_string)
        && v.get("time").is_some_and(Value::is_object)
}

fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let storage = loaded.path.as_deref().and_then(Storage::of_info_file);
    let Some(storage) = storage else {
        return Err(LoadError::not_session(
            &loaded.shown,
            "an opencode session's info file outside opencode's storage: its messages are read \
             from the storage it lies in (give storage/session/<project>/<id>.json, or the \
             storage directory)",
        ));
    };
    let bytes = loaded
        .buffer
        .get(loaded.start..)
        .unwrap_or_default()
        .to_vec();
    Ok(Reader::new(storage).session(bytes, &loaded.shown, 0))
}

/// The `opencode.db` a directory is about: opencode's data directory holding it, or the
/// `storage/` beside it (what opencode migrated into the database, which now holds the sessions).
fn db_of_dir(path: &Path) -> Option<PathBuf> {
    let inside = path.join("opencode.db");
    if inside.is_file() {
        return Some(inside);
    }
    let storage = path.join("session").is_dir() && path.join("message").is_dir();
    let beside = path.parent()?.join("opencode.db");
    (storage && beside.is_file()).then_some(beside)
}

/// A session from `opencode.db` (its newest top-level session), as loaded from `path` (or
/// from a directory holding it, `shown`). Its bytes are read by SQLite, not from `loaded`: the
/// database may have a `-wal` beside it.
pub(crate) fn load_db(path: &Path, shown: &str) -> Result<Session, LoadError> {
    let db = Db::open(path)?;
    let all = db.sessions()?;
    let newest = all
        .iter()
        .filter(|s| s.parent_id.is_none())
        .max_by_key(|s| (s.updated.max(s.created), s.id.clone()));
    let Some(newest) = newest else {
        return Err(LoadError::not_session(
            shown,
            "an opencode database (opencode.db) with no session",
        ));
    };
    let mut children: HashMap<&str, Vec<&SessionRow>> = HashMap::new();
    for s in &all {
        if let Some(parent) = s.parent_id.as_deref() {
            children.entry(parent).or_default().push(s);
        }
    }
    let mut seen = HashSet::new();
    let mut session = db_session(&db, &children, newest, shown, 0, &mut seen)?;
    session.renumber();
    Ok(session)
}

/// One session of the database with its subagents' sessions as children.
fn db_session(
    db: &Db,
    children: &HashMap<&str, Vec<&SessionRow>>,
    row: &SessionRow,
    shown: &str,
    depth: usize,
    seen: &mut HashSet<String>,
) -> Result<Session, LoadError> {
    seen.insert(row.id.clone());
    let mut session = build(db.read(row)?, shown);
    if depth < MAX_DEPTH {
        let mut started: Vec<&SessionRow> =
            children.get(row.id.as_str()).cloned().unwrap_or_default();
        started.sort_by_key(|s| (s.created, s.id.clone()));
        for child in started {
            if seen.contains(&child.id) {
                continue;
            }
            let shown = format!("{shown} (session {})", child.id);
            let mut child = db_session(db, children, child, &shown, depth + 1, seen)?;
            child.renumber();
            session.children.push(child);
        }
    }
    Ok(session)
}

/// A session's records as the common model.
fn build(files: Files, shown: &str) -> Session {
    let mut session = Session::new(Format::OPENCODE, shown, Arc::new(files.buffer));
    session.source.records = files.count;
    session.source.record_indices = (0..files.count).collect();
    for (line, reason) in &files.skipped {
        session.skip(*line, reason.clone());
    }
    if let Some(info) = &files.info {
        session.id = str_at(&info.value, "id").map(str::to_string);
        session.title = str_at(&info.value, "title").map(str::to_string);
    }
    let mut builder = Builder::new(session);
    for (message, parts) in &files.messages {
        builder.message(message, parts);
    }
    let mut session = builder.session;
    session.model = session.messages.iter().find_map(|m| m.model.clone());
    session
}

/// Reads sessions of one storage, each once.
struct Reader {
    storage: Storage,
    /// Every session's info file and value, listed once for finding children.
    all: Vec<(std::path::PathBuf, Value)>,
    seen: HashSet<String>,
}

impl Reader {
    fn new(storage: Storage) -> Reader {
        let all = storage.sessions();
        Reader {
            storage,
            all,
            seen: HashSet::new(),
        }
    }

    /// One session, from its info file's bytes, with its subagents' sessions as children
    /// (`depth` levels down already; a session already read is not read again).
    fn session(&mut self, info: Vec<u8>, shown: &str, depth: usize) -> Session {
        let id = serde_json::from_slice::<Value>(&info)
            .ok()
            .and_then(|v| str_at(&v, "id").map(str::to_string))
            .unwrap_or_default();
        self.seen.insert(id.clone());
        let files = self.storage.read(info, &id);
        let mut session = build(files, shown);
        if depth < MAX_DEPTH {
            for child in storage::children(&self.all, &id) {
                let Ok(bytes) = read(&child) else { continue };
                let child_id = serde_json::from_slice::<Value>(&bytes)
                    .ok()
                    .and_then(|v| str_at(&v, "id").map(str::to_string));
                if child_id.is_none_or(|c| self.seen.contains(&c)) {
                    continue;
                }
                let shown = child.display().to_string();
                let mut child = self.session(bytes, &shown, depth + 1);
                child.renumber();
                session.children.push(child);
            }
        }
        session
    }
}

fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    crate::limits::read_regular(path).map_err(|source| LoadError::Io {
        path: path.display().to_string(),
        source,
    })
}
