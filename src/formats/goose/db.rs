//! Goose's SQLite store, `sessions.db` (under `~/.local/share/goose/sessions/`): recognising it
//! and reading its rows.
//!
//! Owns: the tables as `.schema` of a database Goose 1.52.0 wrote shows them: `sessions` (`id`, `name`, `working_dir`,
//! `created_at`, `updated_at`, `parent_session_id`, …) and `messages` (`id`, `message_id`,
//! `session_id`, `role`, `content_json`, `created_timestamp`, `metadata_json`). The database is
//! opened read-only, through SQLite, so a live one in WAL mode is read with its `-wal`.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::super::LoadError;

/// How long a read waits for Goose's writer to let go of the database.
const BUSY_MS: u64 = 2000;
/// How far into the file Goose's table definitions are looked for.
const HEAD: usize = 256 * 1024;

/// A SQLite file with Goose's `messages` table (its `content_json` column) beside `sessions`,
/// from the table definitions SQLite keeps in clear in its first pages.
pub fn is_goose_db(bytes: &[u8]) -> bool {
    if !bytes.starts_with(b"SQLite format 3\0") {
        return false;
    }
    let head = &bytes[..bytes.len().min(HEAD)];
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    has(b"content_json") && has(b"sessions")
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
    conn: Connection,
    shown: String,
}

impl Db {
    /// Opens the database read-only; an error names the file and SQLite's reason.
    pub fn open(path: &Path) -> Result<Db, LoadError> {
        let shown = path.display().to_string();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| fail(&shown, &e))?;
        conn.busy_timeout(std::time::Duration::from_millis(BUSY_MS))
            .map_err(|e| fail(&shown, &e))?;
        let db = Db { conn, shown };
        // A damaged file fails here, at the first read.
        db.sessions()?;
        Ok(db)
    }

    /// Every session, oldest first.
    pub fn sessions(&self) -> Result<Vec<SessionRow>, LoadError> {
        let sql = "SELECT id, name, CAST(updated_at AS TEXT), parent_session_id \
                   FROM sessions ORDER BY created_at, id";
        self.query(sql, [], |r| {
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
        self.query(sql, [session], |r| {
            Ok(MessageRow {
                message_id: r.get(0)?,
                role: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                content_json: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                created: r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                metadata_json: r.get(4)?,
            })
        })
    }

    fn query<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, LoadError> {
        let fail = |e: rusqlite::Error| fail(&self.shown, &e);
        let mut statement = self.conn.prepare(sql).map_err(fail)?;
        let rows = statement.query_map(params, row).map_err(fail)?;
        rows.collect::<Result<Vec<T>, _>>().map_err(fail)
    }
}

fn fail(shown: &str, e: &rusqlite::Error) -> LoadError {
    LoadError::not_session(
        shown,
        format!("a Goose session database (sessions.db) SQLite cannot read: {e}"),
    )
}
