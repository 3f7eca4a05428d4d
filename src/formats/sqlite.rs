//! Reading an agent tool's SQLite store (opencode's `opencode.db`, Goose's `sessions.db`):
//! opening it read-only so a live database in WAL mode is read with its `-wal`, the first bytes
//! its detection looks at, and queries whose errors name the file and the store.
//!
//! Owns: the connection and its errors; which tables mean what is each format's.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::LoadError;

/// How long a read waits for a writer holding the database.
const BUSY_MS: u64 = 2000;
/// How much of a file detection reads: the header and the schema's first pages.
const HEAD: usize = 256 * 1024;

/// A SQLite file whose first [`HEAD`] bytes (where SQLite keeps the table definitions in
/// clear) hold every one of `needles`.
pub fn holds(bytes: &[u8], needles: &[&[u8]]) -> bool {
    if !bytes.starts_with(b"SQLite format 3\0") {
        return false;
    }
    let head = &bytes[..bytes.len().min(HEAD)];
    needles
        .iter()
        .all(|n| memchr::memmem::find(head, n).is_some())
}

/// The first bytes of the file at `path` (at most [`HEAD`]), for detection.
pub fn head(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(HEAD as u64)
        .read_to_end(&mut head)
        .ok()?;
    Some(head)
}

/// An open store; `what` names it in errors ("an opencode database (opencode.db)").
pub struct Store {
    conn: Connection,
    shown: String,
    what: &'static str,
}

impl Store {
    /// Opens the database read-only; an error names the file and SQLite's reason.
    pub fn open(path: &Path, what: &'static str) -> Result<Store, LoadError> {
        let shown = path.display().to_string();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let fail = |e: rusqlite::Error| fail(&shown, what, &e);
        let conn = Connection::open_with_flags(path, flags).map_err(fail)?;
        conn.busy_timeout(std::time::Duration::from_millis(BUSY_MS))
            .map_err(fail)?;
        Ok(Store { conn, shown, what })
    }

    /// The rows of `sql`, each mapped by `row`.
    pub fn query<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, LoadError> {
        let fail = |e: rusqlite::Error| fail(&self.shown, self.what, &e);
        let mut statement = self.conn.prepare(sql).map_err(fail)?;
        let rows = statement.query_map(params, row).map_err(fail)?;
        rows.collect::<Result<Vec<T>, _>>().map_err(fail)
    }

    /// The file as shown in messages.
    pub fn shown(&self) -> &str {
        &self.shown
    }
}

fn fail(shown: &str, what: &str, e: &rusqlite::Error) -> LoadError {
    LoadError::not_session(shown, format!("{what} SQLite cannot read: {e}"))
}
