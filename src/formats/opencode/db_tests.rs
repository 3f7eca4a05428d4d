//! The opencode reader over the two `opencode.db` files the real opencode 1.18.33 wrote against
//! the scripted model (`fixtures/opencode/db/`, made by `tools/oracle/opencode/run.sh db`), over
//! a live copy in WAL mode, and over damaged databases.

use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::tests::{assert_paired, calls, results};
use crate::formats::load_path;
use crate::formats::test_support_db::{damaged_copies_fail, live_copy, wal_holds_changes};
use crate::session::{Format, Session};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/opencode/db")
        .join(rel)
}

fn load(rel: &str) -> Session {
    load_path(&fixture(rel), None).expect(rel)
}

/// The independent counts below come from this one-liner over the database, with the session
/// id as its second argument: a user message is one message, an assistant message one per
/// step-start-separated block holding text, reasoning or a tool, plus a tool message for each
/// block holding a tool; every tool part is one call and one result.
///
/// python3 -c "import sqlite3,json,sys;d=sqlite3.connect(sys.argv[1]);S=sys.argv[2];M=d.execute('select id,data from message where session_id=? order by time_created,id',(S,)).fetchall();P={m:[json.loads(x)['type'] for (x,) in d.execute('select data from part where message_id=? order by id',(m,))] for m,_ in M};print('msgs',len(M),'sent',sum(1 if json.loads(j)['role']=='user' else sum(1+('tool' in b) for b in ' '.join(P[m]).split('step-start') if set(b.split())&{'text','reasoning','tool'}) for m,j in M),'tools',sum(p.count('tool') for p in P.values()),'parts',sum(map(len,P.values())))" opencode.db ses_…
#[test]
fn short_db_counts() {
    let s = load("short/opencode.db");
    assert_eq!(s.format, Format::OPENCODE);
    assert_eq!(s.id.as_deref(), Some("ses_dc2efa5dbffeLfRQCHksuk5al2"));
    assert_eq!(s.title.as_deref(), Some("Scripted summary"));
    assert_eq!(s.model.as_deref(), Some("scripted"));
    // one-liner above: msgs 3 sent 4 tools 1 parts 8
    assert_eq!(s.messages.len(), 4);
    assert_eq!(calls(&s).len(), 1);
    assert_eq!(results(&s).len(), 1);
    assert_paired(&s);
    // The session row, 3 messages, 8 parts.
    assert_eq!(s.source.records, 12);
    assert!(s.source.skipped.is_empty(), "{:?}", s.source.skipped);
    assert!(s.children.is_empty() && s.marks.is_empty());
    // The message's tokens (its `data`), input without the cache.
    let u = s.messages[1].usage.as_ref().expect("usage");
    assert!(u.input.is_some_and(|n| n > 0) && !u.input_includes_cache);
    // A message's raw record is its row's `data` with the id columns put back.
    let raw = String::from_utf8(s.raw_record(&s.messages[1]).unwrap().into_owned()).unwrap();
    assert!(raw.starts_with("{\"id\":\"msg_"), "{raw}");
    assert!(raw.contains("\"sessionID\":\"ses_dc2efa5dbffeLfRQCHksuk5al2\""));
}

#[test]
fn long_db_counts() {
    let s = load("long/opencode.db");
    assert_eq!(s.id.as_deref(), Some("ses_dc2ef2253ffeOvJG2cGHCHFC2I"));
    // one-liner above: msgs 10 sent 15 tools 6 parts 27
    assert_eq!(s.messages.len(), 15);
    assert_eq!(calls(&s).len(), 6);
    assert_eq!(results(&s).len(), 6);
    assert_paired(&s);
    assert_eq!(s.source.records, 1 + 10 + 27);
    assert!(s.source.skipped.is_empty(), "{:?}", s.source.skipped);
    // The parallel reads: one assistant message with two calls.
    assert_eq!(s.messages[1].client_calls().count(), 2);
    // The read of a missing file failed: one result is an error.
    let errors = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter(|p| {
            matches!(
                p,
                crate::session::Part::ToolResult {
                    is_error: Some(true),
                    ..
                }
            )
        })
        .count();
    assert_eq!(errors, 1);
    // The automatic compaction: one mark, with the summary.
    assert_eq!(s.marks.len(), 1);
    assert_eq!(s.marks[0].trigger.as_deref(), Some("auto"));
    assert_eq!(s.marks[0].summary.as_deref(), Some("Scripted summary"));
    // The subagent's session (`parent_id`): one-liner with its id: msgs 3 sent 4 tools 1.
    assert_eq!(s.children.len(), 1);
    let child = &s.children[0];
    assert_eq!(child.id.as_deref(), Some("ses_dc2eeceeeffeaxtcr4O5ilJMhD"));
    assert_eq!(child.messages.len(), 4);
    assert_eq!(calls(child).len(), 1);
    assert_eq!(results(child).len(), 1);
    assert_paired(child);
}

#[test]
fn a_data_directory_holding_the_db_is_its_newest_top_level_session() {
    for dir in ["long", "long/"] {
        let s = load_path(&fixture(dir), None).expect("a data directory");
        assert_eq!(s.id.as_deref(), Some("ses_dc2ef2253ffeOvJG2cGHCHFC2I"));
        assert_eq!(s.children.len(), 1);
    }
    assert!(crate::formats::is_session_dir(&fixture("short")));
    // The legacy storage/ left beside a database stands for the database.
    let dir = tempfile::tempdir().unwrap();
    fs::copy(fixture("short/opencode.db"), dir.path().join("opencode.db")).unwrap();
    for sub in ["storage/session", "storage/message"] {
        fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    let s = load_path(&dir.path().join("storage"), None).expect("storage beside a db");
    assert_eq!(s.id.as_deref(), Some("ses_dc2efa5dbffeLfRQCHksuk5al2"));
}

/// A database opencode is still writing: WAL mode, the latest rows only in `-wal`.
#[test]
fn a_live_db_in_wal_mode_is_read_with_its_wal() {
    let (_dir, path, writer) = live_copy(&fixture("short/opencode.db"), "opencode.db");
    writer
        .execute("UPDATE session SET title = 'Live title'", [])
        .unwrap();
    assert!(wal_holds_changes(&path), "the change is in the WAL");
    let s = load_path(&path, None).expect("a live database");
    assert_eq!(s.title.as_deref(), Some("Live title"));
    assert_eq!(s.messages.len(), 4);
    drop(writer);
}

/// A damaged database is a load error naming it, never a panic or an empty session.
#[test]
fn a_truncated_or_corrupt_db_is_a_clear_error() {
    damaged_copies_fail(&fixture("long/opencode.db"));
}

/// A row whose `data` is not a JSON object is reported, the rest read.
#[test]
fn a_bad_row_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    fs::copy(fixture("short/opencode.db"), &path).unwrap();
    let writer = Connection::open(&path).unwrap();
    writer
        .execute(
            "UPDATE part SET data = '{not json' WHERE data LIKE '%\"step-finish\"%'",
            [],
        )
        .unwrap();
    drop(writer);
    let s = load_path(&path, None).expect("read");
    assert_eq!(s.messages.len(), 4);
    assert_eq!(s.source.skipped.len(), 2, "{:?}", s.source.skipped);
    assert!(s.source.skipped[0].reason.contains("invalid JSON"));
}

/// The picker lists a database under the default root as the session it opens as, not the
/// storage beside it, and loads it from what it found.
#[test]
fn the_picker_lists_the_db_as_its_newest_session() {
    use crate::live::discover::{count, discover, Locations};
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join(".local/share/opencode");
    fs::create_dir_all(root.join("storage/session/global")).unwrap();
    fs::create_dir_all(root.join("storage/message")).unwrap();
    fs::copy(fixture("long/opencode.db"), root.join("opencode.db")).unwrap();
    let found: Vec<_> = discover(&Locations::under_home(home.path()))
        .found
        .into_iter()
        .filter(|f| f.tool == Format::OPENCODE)
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    assert!(f.path.ends_with("opencode.db"));
    assert_eq!(f.title.as_deref(), Some("Scripted summary"));
    assert_eq!(f.cwd.as_deref(), Some("/tmp/project"));
    // python3 -c "import sqlite3;print(sqlite3.connect('long/opencode.db').execute(\"select count(*) from message where session_id='ses_dc2ef2253ffeOvJG2cGHCHFC2I'\").fetchone())"
    assert_eq!(f.messages, Some(10));
    assert_eq!(count(f), Some(15));
}
