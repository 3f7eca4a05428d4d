//! Where opencode keeps its sessions, and the cheap look inside one.
//!
//! Owns: under the root (`${XDG_DATA_HOME:-~/.local/share}/opencode`), `opencode.db` — listed
//! as one entry, the session it opens as (its newest top-level session: title, working
//! directory, number of messages), since a path names the database, not one of its sessions —
//! or, without one, `storage/session/*/*.json`, listing the sessions that are no subagent's
//! (those are read as their parent's children), with their title, working directory and
//! number of message files. The storage beside a database is what opencode migrated into it,
//! not listed. Must not build a `Session` or fail.

use std::path::Path;
use std::time::SystemTime;

use serde_json::Value;

use crate::formats::common::str_at;
use crate::formats::home::peek::clean;
use crate::formats::home::{Finder, Found};
use crate::session::Format;

/// Every top-level session in the storage under `root`.
pub(super) fn find(root: &Path, finder: &mut Finder) {
    let db = root.join("opencode.db");
    if db.is_file() {
        if let Some(found) = database(&db) {
            finder.push(found);
        }
        return;
    }
    let storage = root.join("storage");
    for project in finder.dirs(&storage.join("session")) {
        for file in finder.list(&project.path) {
            if !file.is_file() || !file.name().ends_with(".json") || file.meta.len() > 1 << 20 {
                continue;
            }
            let Ok(bytes) = crate::limits::read_regular(&file.path) else {
                continue;
            };
            let Ok(info) = serde_json::from_slice::<Value>(&bytes) else {
                continue;
            };
            if !super::is_session_info(&info) || info.get("parentID").is_some_and(|p| !p.is_null())
            {
                continue;
            }
            let id = str_at(&info, "id").unwrap_or_default();
            let messages = finder
                .list(&storage.join("message").join(id))
                .iter()
                .filter(|m| m.name().ends_with(".json"))
                .count();
            finder.push(Found {
                tool: Format::OPENCODE,
                size_bytes: file.meta.len(),
                modified: file.meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                title: str_at(&info, "title").and_then(clean),
                messages: Some(messages),
                exact: None,
                cwd: str_at(&info, "directory").map(str::to_string),
                path: file.path,
            });
        }
    }
}

/// The database as the session it opens as; `None` when it cannot be read or holds none.
fn database(path: &Path) -> Option<Found> {
    let meta = std::fs::metadata(path).ok()?;
    let db = super::db::Db::open(path).ok()?;
    let newest = db
        .sessions()
        .ok()?
        .into_iter()
        .filter(|s| s.parent_id.is_none())
        .max_by_key(|s| (s.updated.max(s.created), s.id.clone()))?;
    let wal = path.with_file_name("opencode.db-wal");
    let modified = [path, wal.as_path()]
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok()?.modified().ok())
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH);
    Some(Found {
        tool: Format::OPENCODE,
        size_bytes: meta.len(),
        modified,
        title: newest.title.as_deref().and_then(clean),
        messages: db.message_count(&newest.id).ok(),
        exact: None,
        cwd: newest.directory.clone(),
        path: path.to_path_buf(),
    })
}
