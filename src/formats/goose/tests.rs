//! The Goose reader over the two `sessions.db` files the real Goose 1.52.0 wrote against the
//! scripted model (`fixtures/goose/`, made by `tools/oracle/goose/run.sh`), over a live copy in
//! WAL mode, and over damaged databases.

use std::path::{Path, PathBuf};

use crate::formats::load_path;
use crate::formats::test_support::{all_paired, calls, results};
use crate::formats::test_support_db::{damaged_copies_fail, live_copy, wal_holds_changes};
use crate::session::{Format, Part, Role, Session};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/goose")
        .join(rel)
}

fn load(rel: &str) -> Session {
    load_path(&fixture(rel), None).expect(rel)
}

/// The independent counts below come from this one-liner over the database: the newest
/// top-level session's rows, those sent to the model (`agentVisible` not false), and their
/// `toolRequest` and `toolResponse` items (and the responses with `isError`).
///
/// python3 -c "import sqlite3,json,sys;d=sqlite3.connect(sys.argv[1]);S=d.execute('select id from sessions where parent_session_id is null order by updated_at desc,id desc').fetchone()[0];R=[(r,json.loads(c),json.loads(m or '{}')) for r,c,m in d.execute('select role,content_json,metadata_json from messages where session_id=? order by created_timestamp,id',(S,))];V=[(r,c) for r,c,m in R if m.get('agentVisible',True)];T=[x['type'] for r,c in V for x in c];print(S,'rows',len(R),'msgs',len(V),'calls',T.count('toolRequest'),'results',T.count('toolResponse'),'errors',sum(x.get('toolResult',{}).get('value',{}).get('isError',False) for r,c in V for x in c if x['type']=='toolResponse'))" sessions.db
#[test]
fn short_counts() {
    let s = load("short/sessions.db");
    assert_eq!(s.format, Format::GOOSE);
    assert_eq!(s.id.as_deref(), Some("20261203_1"));
    assert_eq!(s.title.as_deref(), Some("Scripted summary"));
    assert_eq!(s.model.as_deref(), Some("scripted"));
    // one-liner above: 20261203_1 rows 5 msgs 5 calls 1 results 1 errors 0
    assert_eq!(s.source.records, 5);
    assert_eq!(s.messages.len(), 5);
    assert_eq!(calls(&s).len(), 1);
    assert_eq!(results(&s).len(), 1);
    assert!(all_paired(&s));
    assert!(s.source.skipped.is_empty(), "{:?}", s.source.skipped);
    let u = s.messages[2].usage.as_ref().expect("usage");
    assert!(u.input.is_some_and(|n| n > 0) && u.input_includes_cache);
    assert_eq!(s.messages[3].role, Role::Tool);
    let raw = String::from_utf8(s.raw_record(&s.messages[2]).unwrap().into_owned()).unwrap();
    assert!(raw.starts_with("[{\"type\":\"text\""), "{raw}");
}

#[test]
fn long_counts() {
    let s = load("long/sessions.db");
    // one-liner above: 20261203_1 rows 11 msgs 11 calls 4 results 4 errors 1
    assert_eq!(s.source.records, 11);
    assert_eq!(s.messages.len(), 11);
    assert_eq!(calls(&s).len(), 4);
    assert_eq!(results(&s).len(), 4);
    assert!(all_paired(&s));
    let errors = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter(|p| {
            matches!(
                p,
                Part::ToolResult {
                    is_error: Some(true),
                    ..
                }
            )
        })
        .count();
    assert_eq!(errors, 1);
    assert!(s.source.skipped.is_empty(), "{:?}", s.source.skipped);
}

#[test]
fn the_directory_holding_it_is_read_too() {
    let s = load_path(&fixture("long"), None).expect("directory");
    assert_eq!(s.format, Format::GOOSE);
    assert_eq!(s.messages.len(), 11);
}

/// A live database in WAL mode: a row only in the `-wal` is read; a row not sent to the
/// model and a row whose content is not a list are reported, not made messages.
#[test]
fn a_live_database_is_read_with_its_wal() {
    let (_dir, db, conn) = live_copy(&fixture("short/sessions.db"), "sessions.db");
    conn.execute_batch(
        "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES \
         ('m1', '20261203_1', 'user', '[{\"type\":\"text\",\"text\":\"more\"}]', 1796400000, '{\"agentVisible\":true}'), \
         ('m2', '20261203_1', 'user', '[{\"type\":\"text\",\"text\":\"hidden\"}]', 1796400001, '{\"agentVisible\":false}'), \
         ('m3', '20261203_1', 'assistant', '{\"not\":\"a list\"}', 1796400002, NULL);",
    )
    .expect("insert");
    assert!(wal_holds_changes(&db), "the rows are in the WAL");
    let s = load_path(&db, None).expect("live db");
    assert_eq!(s.messages.len(), 6);
    assert_eq!(s.source.skipped.len(), 2, "{:?}", s.source.skipped);
    drop(conn);
}

/// A damaged database is a load error naming the file, never a panic or an empty session.
/// A copy cut to a third still holds the schema, and is named a Goose database SQLite cannot
/// read; a header alone, or a scrambled schema, is binary data.
#[test]
fn a_damaged_database_is_a_clear_error() {
    let errors = damaged_copies_fail(&fixture("short/sessions.db"));
    assert!(errors[0].contains("Goose"), "{}", errors[0]);
}
