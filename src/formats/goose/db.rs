//! Goose's SQLite store, `sessions.db` (under `~/.local/share/goose/sessions/`): recognising it
//! and reading its rows.
//!
//! Owns: the tables as `.schema` of a database Goose 1.52.0 wrote shows them: `sessions` (`id`, `name`, `working_dir`,
//! `created_at`, `updated_at`, `parent_session_id`, …) and `messages` (`id`, `message_id`,
//! `session_id`, `role`, `content_json`, `created_timestamp`, `metadata_json`). The database is
//! opened read-only, through SQLite, so a live one in WAL mode is read with its `-wal`.

use std::path::Path;

use super::super::sqlite::{self, Store};
use super::super::LoadError;

/// A SQLite file with Goose's `messages` table (its `content_json` column) beside `sessions`,
/// from the table definitions SQLite keeps in clear in its first pages.
pub fn is_goose_db(bytes: &[u8]) -> bool {
    sqlite::holds(bytes, &[b"content_json", b"sessions"])
}

/// One row of `sessions`.
#[derive(Debug, Clone)]
pub struct SessionRow {
    pub id: String,
    pub name: String,
    pub updated: String,
    pub parent: Option<String>,
}

/// One row of `messages`.
#[derive(Debug, Clone)]
pub struct MessageRow {
    pub message_id: Option<String>,
    pub role: String,
    pub content_json: String,
    pub created: i64,
    pub metadata_json: Option<String>,
}

/// An open `sessions.db`.
pub struct Db {
    store: Store,
}

impl Db {
    /// Opens the database read-only; an error names the file and SQLite's reason.
    pub fn open(path: &Path) -> Result<Db, LoadError> {
        let db = Db {
            store: Store::open(path, "a Goose session database (sessions.db)")?,
        };
        // A damaged file fails here, at the first read.
        db.sessions()?;
        Ok(db)
    }

    /// Every session, oldest first.
    pub fn sessions(&self) -> Result<Vec<SessionRow>, LoadError> {
        let sql = "SELECT id, name, CAST(updated_at AS TEXT), parent_session_id \
                   FROM sessions ORDER BY created_at, id";
        self.store.query(sql, [], |r| {
            Ok(SessionRow {
                id: r.get(0)?,
                name: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                updated: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                parent: r.get(3)?,
            })
        })
    }

    /// A session's messages in Goose's own order (`created_timestamp, id`).
    pub fn messages(&self, session: &str) -> Result<Vec<MessageRow>, LoadError> {
        let sql = "SELECT message_id, role, content_json, created_timestamp, metadata_json \
                   FROM messages WHERE session_id = ?1 ORDER BY created_timestamp, id";
        self.store.query(sql, [session], |r| {
            Ok(MessageRow {
                message_id: r.get(0)?,
                role: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                content_json: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                created: r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                metadata_json: r.get(4)?,
            })
        })
    }
}
