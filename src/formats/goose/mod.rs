//! Goose sessions, in its SQLite `sessions.db` (under `~/.local/share/goose/sessions/`), as
//! Goose 1.52.0 writes it; the shapes come from databases that version wrote.
//!
//! Owns: the format's entry points — `sessions.db` (recognised from its tables) or the directory
//! holding it, read as its most recently updated top-level session, with the sessions it started
//! (`parent_session_id`) as children. The database's rows are `db`'s, what a row means
//! `build`'s. Each message row's `content_json` is one source record; the session's buffer holds
//! them one a line, so a message's raw record is its row's content.

mod build;
pub(crate) mod db;

#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::common::Loaded;
use super::LoadError;
use crate::session::{Format, Session};
use db::{Db, SessionRow};

/// Sessions started by a session are read this deep, no deeper.
const MAX_DEPTH: usize = 8;

/// Goose in the format registry.
pub struct Goose;

impl super::session_format::SessionFormat for Goose {
    fn format(&self) -> Format {
        Format::GOOSE
    }

    fn description(&self) -> &'static str {
        "Goose: its SQLite sessions.db or the directory holding it; the newest session"
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        match &loaded.path {
            Some(path) => load_db(path, &loaded.shown),
            None => Err(LoadError::not_session(
                &loaded.shown,
                "a Goose session database (sessions.db) is read from its file",
            )),
        }
    }

    fn load_dir(&self, path: &Path) -> Result<Option<Session>, LoadError> {
        match db_of_dir(path) {
            Some(db) => load_db(&db, &path.display().to_string()).map(Some),
            None => Ok(None),
        }
    }

    fn claims_dir(&self, path: &Path) -> bool {
        db_of_dir(path).is_some()
    }
}

/// The `sessions.db` inside a directory, when it is Goose's.
fn db_of_dir(path: &Path) -> Option<PathBuf> {
    let db = path.join("sessions.db");
    let head = super::sqlite::head(&db)?;
    db::is_goose_db(&head).then_some(db)
}

/// The newest top-level session of a `sessions.db`, as loaded from `path` (or from a
/// directory holding it, `shown`). Its bytes are read by SQLite: the database may have a
/// `-wal` beside it.
pub(crate) fn load_db(path: &Path, shown: &str) -> Result<Session, LoadError> {
    let db = Db::open(path)?;
    let all = db.sessions()?;
    let newest = all
        .iter()
        .filter(|s| s.parent.is_none())
        .max_by_key(|s| (s.updated.clone(), s.id.clone()));
    let Some(newest) = newest else {
        return Err(LoadError::not_session(
            shown,
            "a Goose session database (sessions.db) with no session",
        ));
    };
    let mut children: HashMap<&str, Vec<&SessionRow>> = HashMap::new();
    for s in &all {
        if let Some(parent) = s.parent.as_deref() {
            children.entry(parent).or_default().push(s);
        }
    }
    let mut seen = HashSet::new();
    let mut session = read(&db, &children, newest, shown, 0, &mut seen)?;
    session.renumber();
    Ok(session)
}

/// One session with the sessions it started as children.
fn read(
    db: &Db,
    children: &HashMap<&str, Vec<&SessionRow>>,
    row: &SessionRow,
    shown: &str,
    depth: usize,
    seen: &mut HashSet<String>,
) -> Result<Session, LoadError> {
    seen.insert(row.id.clone());
    let rows = db.messages(&row.id)?;
    let mut buffer = Vec::new();
    let mut ranges = Vec::new();
    for r in &rows {
        let start = buffer.len();
        buffer.extend_from_slice(r.content_json.as_bytes());
        ranges.push((start, buffer.len()));
        buffer.push(b'\n');
    }
    let mut session = Session::new(Format::GOOSE, shown, Arc::new(buffer));
    session.source.records = rows.len();
    session.source.record_indices = (0..rows.len()).collect();
    session.id = Some(row.id.clone());
    session.title = (!row.name.is_empty()).then(|| row.name.clone());
    for (i, (r, range)) in rows.iter().zip(ranges).enumerate() {
        build::message(&mut session, r, i, range);
    }
    session.model = session.messages.iter().find_map(|m| m.model.clone());
    if depth < MAX_DEPTH {
        let started = children.get(row.id.as_str()).map_or(&[][..], Vec::as_slice);
        for &child in started {
            if seen.contains(&child.id) {
                continue;
            }
            let shown = format!("{shown} (session {})", child.id);
            let mut child = read(db, children, child, &shown, depth + 1, seen)?;
            child.renumber();
            session.children.push(child);
        }
    }
    Ok(session)
}
