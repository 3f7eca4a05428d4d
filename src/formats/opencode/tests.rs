//! The opencode reader over the two sessions the real opencode 1.1.65 wrote against the
//! scripted model (`fixtures/opencode/`, made by `tools/oracle/opencode/run.sh`), and over
//! hand-written records for what those runs do not hold (a compacted tool output, a failed
//! message, unreadable files).

use std::fs;
use std::path::{Path, PathBuf};

use crate::formats::{load_path, registry};
use crate::session::{Format, Message, Part, Role, Session};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/opencode")
        .join(rel)
}

const SHORT: &str = "short/session/global/ses_dc32f1290ffeE889hpt5P4sidQ.json";
const LONG: &str = "long/session/global/ses_dc32eefd5ffe4735QPW4Qe9PTZ.json";

fn load(rel: &str) -> Session {
    load_path(&fixture(rel), None).expect(rel)
}

pub(super) fn calls(s: &Session) -> Vec<(&str, &str)> {
    s.messages.iter().flat_map(Message::client_calls).collect()
}

pub(super) fn results(s: &Session) -> Vec<&str> {
    s.messages.iter().flat_map(Message::result_ids).collect()
}

/// Every result answers a call of the assistant message right before it.
pub(super) fn assert_paired(s: &Session) {
    for (i, m) in s.messages.iter().enumerate() {
        for id in m.result_ids() {
            assert_eq!(m.role, Role::Tool);
            let prev = &s.messages[i.saturating_sub(1)];
            assert!(prev.client_calls().any(|(c, _)| c == id), "{id} unpaired");
        }
    }
}

/// The independent counts below come from this one-liner, run in `fixtures/opencode/<run>/`
/// with the session id as its argument: a user message is one message, an assistant message
/// one per step-start-separated block holding text, reasoning or a tool, plus a tool message
/// for each block holding a tool; every tool part is one call and one result.
///
/// python3 -c "import json,glob,sys;S=sys.argv[1];t=lambda f:json.load(open(f));M=[t(f) for f in sorted(glob.glob(f'message/{S}/*'))];P={m['id']:[t(f)['type'] for f in sorted(glob.glob('part/'+m['id']+'/*'))] for m in M};print('msgs',len(M),'sent',sum(1 if m['role']=='user' else sum(1+('tool' in b) for b in ' '.join(P[m['id']]).split('step-start') if set(b.split())&{'text','reasoning','tool'}) for m in M),'tools',sum(p.count('tool') for p in P.values()))" ses_…
#[test]
fn short_session_counts() {
    let s = load(SHORT);
    assert_eq!(s.format, Format::OPENCODE);
    // one-liner above: msgs 3 sent 4 tools 1
    assert_eq!(s.messages.len(), 4);
    assert_eq!(calls(&s).len(), 1);
    assert_eq!(results(&s).len(), 1);
    assert_paired(&s);
    // `find fixtures/opencode/short -type f | wc -l`: the info, 3 messages, 8 parts.
    assert_eq!(s.source.records, 12);
    assert!(s.source.skipped.is_empty(), "{:?}", s.source.skipped);
    assert!(s.children.is_empty() && s.marks.is_empty());
}

#[test]
fn long_session_counts() {
    let s = load(LONG);
    // one-liner above: msgs 10 sent 15 tools 6
    assert_eq!(s.messages.len(), 15);
    assert_eq!(calls(&s).len(), 6);
    assert_eq!(results(&s).len(), 6);
    assert_paired(&s);
    assert!(s.source.skipped.is_empty(), "{:?}", s.source.skipped);
    // The subagent's session (`parentID`): one-liner with its id: msgs 3 sent 4 tools 1.
    assert_eq!(s.children.len(), 1);
    let child = &s.children[0];
    assert_eq!(child.id.as_deref(), Some("ses_dc32edfb9ffesFXDIeOWVZ720P"));
    assert_eq!(child.messages.len(), 4);
    assert_eq!(calls(child).len(), 1);
    assert_eq!(results(child).len(), 1);
    assert_paired(child);
}

#[test]
fn short_session_content_and_usage() {
    let s = load(SHORT);
    assert_eq!(s.id.as_deref(), Some("ses_dc32f1290ffeE889hpt5P4sidQ"));
    assert_eq!(s.title.as_deref(), Some("Scripted summary"));
    assert_eq!(s.model.as_deref(), Some("scripted"));
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    // `opencode run` stores the prompt as it got it, quoted.
    assert_eq!(
        s.messages[0].parts,
        [Part::text("\"What does calc.py do?\"\n")]
    );
    assert_eq!(
        s.messages[1].parts[1],
        Part::ToolCall {
            id: "call_0001".into(),
            name: "read".into(),
            arguments: r#"{"filePath":"/tmp/project/calc.py"}"#.into(),
            server: false,
        }
    );
    match &s.messages[2].parts[..] {
        [Part::ToolResult {
            call_id,
            content,
            is_error: Some(false),
        }] => {
            assert_eq!(call_id, "call_0001");
            assert!(content[0]
                .plain_text()
                .starts_with("<path>/tmp/project/calc.py</path>"));
        }
        other => panic!("{other:?}"),
    }
    // The message's tokens, input without the cache.
    let u = s.messages[1].usage.as_ref().expect("usage");
    assert_eq!(
        (u.input, u.output, u.total),
        (Some(2561), Some(31), Some(2592))
    );
    assert!(!u.input_includes_cache);
    assert!(s.messages[2].usage.is_none());
    // Each message points at its own file: the message record, its parts after it.
    let raw = String::from_utf8(s.raw_record(&s.messages[1]).unwrap().into_owned()).unwrap();
    assert!(raw.starts_with("{\n  \"id\": \"msg_") && raw.contains("\"role\": \"assistant\""));
    assert_eq!(s.messages[0].source_indices, [1, 2]);
}

#[test]
fn long_session_failure_reasoning_and_compaction() {
    let s = load(LONG);
    // The parallel reads are one assistant message and one tool message.
    assert_eq!(s.messages[1].client_calls().count(), 2);
    assert_eq!(s.messages[2].parts.len(), 2);
    // The read of a missing file failed: its error is the result.
    let failed = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .find_map(|p| match p {
            Part::ToolResult {
                is_error: Some(true),
                content,
                ..
            } => Some(content[0].plain_text()),
            _ => None,
        });
    assert_eq!(
        failed.as_deref(),
        Some("Error: File not found: /tmp/project/missing.txt")
    );
    assert!(s.messages.iter().any(|m| m.parts.iter().any(
        |p| matches!(p, Part::Reasoning { text, .. } if text.starts_with("The file does not exist"))
    )));
    // The automatic compaction: a mark before its user message, the summary after it.
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(mark.kind, "compaction");
    assert_eq!(mark.trigger.as_deref(), Some("auto"));
    assert_eq!(mark.summary.as_deref(), Some("Scripted summary"));
    // The task step's tokens before it: input 3905 + output 43 (its message file).
    assert_eq!(mark.pre_tokens, Some(3948));
    let at = mark.before_message;
    assert_eq!(s.messages[at].parts, [Part::text("What did we do so far?")]);
    assert!(
        matches!(&s.messages[at + 1].parts[..], [Part::Summary { text }] if text == "Scripted summary")
    );
    assert!(s.messages[at + 2].parts[0]
        .plain_text()
        .starts_with("Continue if you have next steps"));
    assert_eq!(s.messages.len(), at + 4);
}

#[test]
fn a_storage_directory_is_its_newest_top_level_session() {
    for dir in ["long", "long/"] {
        let s = load_path(&fixture(dir), None).expect("a storage directory");
        assert_eq!(s.id.as_deref(), Some("ses_dc32eefd5ffe4735QPW4Qe9PTZ"));
        assert_eq!(s.children.len(), 1);
    }
    assert!(crate::formats::is_session_dir(&fixture("short")));
}

/// Writes a storage of one session from (file path under storage, JSON text) pairs.
fn storage(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let path = dir.path().join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

const INFO: &str = r#"{"id":"ses_a","projectID":"p","directory":"/w","title":"t","time":{"created":1,"updated":2}}"#;

#[test]
fn compacted_outputs_failed_messages_and_bad_files() {
    let dir = storage(&[
        ("session/p/ses_a.json", INFO),
        (
            "message/ses_a/msg_1.json",
            r#"{"id":"msg_1","sessionID":"ses_a","role":"user","time":{"created":3}}"#,
        ),
        (
            "part/msg_1/prt_1.json",
            r#"{"id":"prt_1","sessionID":"ses_a","messageID":"msg_1","type":"text","text":"go"}"#,
        ),
        (
            "message/ses_a/msg_2.json",
            r#"{"id":"msg_2","sessionID":"ses_a","role":"assistant","modelID":"m","tokens":{"input":5,"output":1,"reasoning":0,"cache":{"read":7,"write":2}},"time":{"created":4}}"#,
        ),
        (
            "part/msg_2/prt_1.json",
            r#"{"id":"prt_1","type":"tool","callID":"c1","tool":"read","state":{"status":"completed","input":{"filePath":"a"},"output":"long text","title":"a","metadata":{},"time":{"start":1,"end":2,"compacted":3}}}"#,
        ),
        (
            "part/msg_2/prt_2.json",
            r#"{"id":"prt_2","type":"tool","callID":"c2","tool":"bash","state":{"status":"running","input":{"command":"x"},"time":{"start":1}}}"#,
        ),
        ("part/msg_2/prt_3.json", "{not json"),
        (
            "message/ses_a/msg_3.json",
            r#"{"id":"msg_3","sessionID":"ses_a","role":"assistant","error":{"name":"APIError","data":{}},"time":{"created":5}}"#,
        ),
        (
            "message/ses_a/msg_4.json",
            r#"{"id":"msg_4","role":"user"}"#,
        ),
    ]);
    let s = load_path(&dir.path().join("session/p/ses_a.json"), None).unwrap();
    assert_eq!(s.messages.len(), 3);
    match &s.messages[2].parts[..] {
        [Part::ToolResult { content: a, .. }, Part::ToolResult {
            content: b,
            is_error: Some(true),
            ..
        }] => {
            assert_eq!(a[0].plain_text(), "[Old tool result content cleared]");
            assert_eq!(b[0].plain_text(), "[Tool execution was interrupted]");
        }
        other => panic!("{other:?}"),
    }
    let u = s.messages[1].usage.as_ref().unwrap();
    assert_eq!(u.context_input(), Some(14));
    let skipped: Vec<(usize, &str)> = s
        .source
        .skipped
        .iter()
        .map(|k| (k.line, k.reason.as_str()))
        .collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert!(skipped[0].1.starts_with("prt_3.json: invalid JSON"));
    assert!(skipped[1].1.contains("failed (APIError)"));
    assert!(skipped[2].1.contains("no part opencode sends"));
    // The same storage as a directory; registered and named.
    let d = load_path(dir.path(), None).unwrap();
    assert_eq!(d.messages.len(), 3);
    assert_eq!(registry::by_name("opencode"), Ok(Format::OPENCODE));
}

#[test]
fn an_info_file_alone_or_a_broken_database_beside_is_an_error_with_the_reason() {
    let err = crate::formats::load_bytes(INFO.as_bytes().to_vec(), None, "x.json", None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("outside opencode's storage"), "{err}");
    let dir = storage(&[
        ("storage/session/p/ses_a.json", INFO),
        ("storage/message/ses_a/.keep", ""),
    ]);
    fs::write(dir.path().join("opencode.db"), b"SQLite format 3\0").unwrap();
    let err = load_path(dir.path(), None).unwrap_err().to_string();
    assert!(err.contains("opencode.db"), "{err}");
    let err = load_path(&dir.path().join("storage"), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("opencode.db"), "{err}");
}

/// A session that names itself, or each other, as parent is read once.
#[test]
fn parent_loops_end() {
    let dir = storage(&[
        (
            "session/p/ses_a.json",
            r#"{"id":"ses_a","projectID":"p","parentID":"ses_b","time":{"created":1}}"#,
        ),
        (
            "session/p/ses_b.json",
            r#"{"id":"ses_b","projectID":"p","parentID":"ses_a","time":{"created":1}}"#,
        ),
        (
            "message/ses_a/msg_1.json",
            r#"{"id":"msg_1","role":"user"}"#,
        ),
    ]);
    let s = load_path(&dir.path().join("session/p/ses_a.json"), None).unwrap();
    assert_eq!(s.children.len(), 1);
    assert!(s.children[0].children.is_empty());
}

/// The picker finds the top-level session of a storage under the default root, not its
/// subagent's, and loads it from what it found.
#[test]
fn the_picker_finds_top_level_sessions() {
    use crate::live::discover::{count, discover, Locations};
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join(".local/share/opencode/storage");
    copy_dir(&fixture("long"), &root);
    let found: Vec<_> = discover(&Locations::under_home(home.path()))
        .found
        .into_iter()
        .filter(|f| f.tool == Format::OPENCODE)
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    assert!(f.path.ends_with("ses_dc32eefd5ffe4735QPW4Qe9PTZ.json"));
    assert_eq!(f.title.as_deref(), Some("Scripted summary"));
    assert_eq!(f.cwd.as_deref(), Some("/tmp/project"));
    // `ls message/ses_dc32eefd5ffe4735QPW4Qe9PTZ | wc -l`
    assert_eq!(f.messages, Some(10));
    assert_eq!(count(f), Some(15));
    // Beside an opencode.db the storage is what was migrated: not listed.
    fs::write(home.path().join(".local/share/opencode/opencode.db"), b"").unwrap();
    let found = discover(&Locations::under_home(home.path())).found;
    assert!(found.iter().all(|f| f.tool != Format::OPENCODE));
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}
