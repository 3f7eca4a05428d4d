//! opencode's SQLite store, `opencode.db` (opencode 1.2 and later, under
//! `${XDG_DATA_HOME:-~/.local/share}/opencode/`): recognising it and reading one session's rows.
//!
//! Owns: the tables as opencode 1.18.33 creates them (its drizzle migrations, as `.schema` of a
//! database it wrote shows them): `session` (`id`, `parent_id`, `project_id`, `directory`,
//! `title`, `version`, `time_created`, `time_updated`, …), `message` (`id`, `session_id`,
//! `time_created`, `data`) and `part` (`id`, `message_id`, `session_id`, `data`), where `data` is
//! the JSON opencode kept in its storage files without the columns' keys. The rows are made
//! back into those records as opencode's own readers do (`packages/opencode/src/session/
//! message-v2.ts`: a message is `{...data, id, sessionID: session_id}`, a part
//! `{...data, id, sessionID, messageID}`; messages in `time_created, id` order, parts in
//! `message_id, id` order), so `build` maps them as it maps the JSON storage. The database is
//! opened read-only, through SQLite, so a live one in WAL mode is read with its `-wal`.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::super::sqlite::{self, Store};
use super::super::LoadError;
use super::storage::Files;

/// A SQLite file with opencode's `part` table (keyed by `message_id`), from the table
/// definitions SQLite keeps in clear in its first pages.
pub fn is_opencode_db(bytes: &[u8]) -> bool {
    sqlite::holds(bytes, &[b"CREATE TABLE `part`", b"`message_id`"])
}

/// One row of `session`: what the picker and the reader need.
#[derive(Debug, Clone)]
pub struct SessionRow {
    pub id: String,
    pub parent_id: Option<String>,
    pub title: Option<String>,
    pub directory: Option<String>,
    pub created: i64,
    pub updated: i64,
    /// The row as opencode's `Session.Info` keys it, the session's first record.
    pub info: Value,
}

/// An open `opencode.db`.
pub struct Db {
    store: Store,
}

impl Db {
    /// Opens the database read-only; an error names the file and SQLite's reason.
    pub fn open(path: &Path) -> Result<Db, LoadError> {
        let db = Db {
            store: Store::open(path, "an opencode database (opencode.db)")?,
        };
        // A file that is not a database at all, or a damaged one, fails here, at the first read.
        db.sessions()?;
        Ok(db)
    }

    /// Every session, oldest first.
    pub fn sessions(&self) -> Result<Vec<SessionRow>, LoadError> {
        let sql = "SELECT id, parent_id, project_id, slug, directory, title, version, \
                   time_created, time_updated FROM session ORDER BY time_created, id";
        let rows = self.store.query(sql, [], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, Option<String>>(6)?,
                r.get::<_, Option<i64>>(7)?,
                r.get::<_, Option<i64>>(8)?,
            ))
        })?;
        Ok(rows
            .into_iter()
            .map(
                |(id, parent, project, slug, directory, title, version, created, updated)| {
                    let created = created.unwrap_or(0);
                    let updated = updated.unwrap_or(created);
                    let mut info = Map::new();
                    info.insert("id".into(), json!(id));
                    info.insert("slug".into(), json!(slug));
                    info.insert("projectID".into(), json!(project));
                    info.insert("directory".into(), json!(directory));
                    if let Some(parent) = &parent {
                        info.insert("parentID".into(), json!(parent));
                    }
                    info.insert("title".into(), json!(title));
                    info.insert("version".into(), json!(version));
                    info.insert(
                        "time".into(),
                        json!({"created": created, "updated": updated}),
                    );
                    SessionRow {
                        id,
                        parent_id: parent,
                        title,
                        directory,
                        created,
                        updated,
                        info: Value::Object(info),
                    }
                },
            )
            .collect())
    }

    /// The number of messages of a session.
    pub fn message_count(&self, session: &str) -> Result<usize, LoadError> {
        let n = self.store.query(
            "SELECT count(*) FROM message WHERE session_id = ?1",
            [session],
            |r| r.get::<_, i64>(0),
        )?;
        Ok(n.first()
            .copied()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0))
    }

    /// A session's records: its info, then each message followed by its parts.
    pub fn read(&self, session: &SessionRow) -> Result<Files, LoadError> {
        let mut files = Files::default();
        let info = serde_json::to_vec(&session.info).unwrap_or_default();
        files.info = files.take(Ok(info), "session row");
        let messages = self.store.query(
            "SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id",
            [&session.id],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
        )?;
        let parts = self.store.query(
            "SELECT id, message_id, data FROM part WHERE session_id = ?1 ORDER BY message_id, id",
            [&session.id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            },
        )?;
        for (id, data) in messages {
            let keys = [("id", id.as_str()), ("sessionID", session.id.as_str())];
            let name = format!("message {id}");
            let Some(record) = files.take(Ok(with_keys(&data, &keys)), &name) else {
                continue;
            };
            let mut kept = Vec::new();
            for (part_id, _, data) in parts.iter().filter(|(_, m, _)| *m == id) {
                let keys = [
                    ("id", part_id.as_str()),
                    ("sessionID", session.id.as_str()),
                    ("messageID", id.as_str()),
                ];
                let name = format!("part {part_id}");
                if let Some(part) = files.take(Ok(with_keys(data, &keys)), &name) {
                    kept.push(part);
                }
            }
            files.messages.push((record, kept));
        }
        Ok(files)
    }
}

/// A row's `data` with the columns' keys put back (the bytes as stored when `data` is not a
/// JSON object, so the record is reported as such).
fn with_keys(data: &str, keys: &[(&str, &str)]) -> Vec<u8> {
    match serde_json::from_str::<Value>(data) {
        Ok(Value::Object(fields)) => {
            let mut v = Map::new();
            for (k, val) in keys {
                v.insert((*k).to_string(), json!(val));
            }
            for (k, val) in fields {
                v.entry(k).or_insert(val);
            }
            serde_json::to_vec(&Value::Object(v)).unwrap_or_default()
        }
        _ => data.as_bytes().to_vec(),
    }
}
