//! Tests over the real pi sessions in `fixtures/pi/` (version 1 files from pi-mono, see
//! `fixtures/pi/NOTICE.md`) and hand-written version 3 entries in the shapes
//! `session-manager.ts` writes (branches, compaction, custom messages), since no real
//! version 3 session was found.

use crate::formats::test_support::{all_paired, calls, fixture, read_as, results};
use crate::session::{Abandoned, Format, Part, Role, Session};

fn load(name: &str) -> Session {
    fixture("pi", name, Format::PI)
}

fn read(text: &str) -> Session {
    read_as(text, "s.jsonl", Format::PI)
}

#[test]
fn large_session_counts() {
    let s = load("large-session.jsonl");
    assert_eq!(
        s.id.as_deref(),
        Some("d703a1a9-1b7b-4fb1-b512-c9738b1fe617")
    );
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/pi/large-session.jsonl')];print(sum(r['type'] in('message','compaction') for r in R))"
    assert_eq!(s.messages.len(), 914);
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/pi/large-session.jsonl')];print(sum(b['type']=='toolCall' for r in R if r['type']=='message' and r['message']['role']=='assistant' for b in r['message']['content']))"
    assert_eq!(calls(&s).len(), 391);
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/pi/large-session.jsonl')];print(sum(r['type']=='message' and r['message']['role']=='toolResult' for r in R))"
    assert_eq!(results(&s).len(), 373);
    assert!(all_paired(&s));
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/pi/large-session.jsonl')];print(sum(r['type']=='compaction' for r in R))"
    assert!(s.marks.is_empty());
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/pi/large-session.jsonl')];print(sum(r['type']=='message' and r['message']['role']=='assistant' and not r['message']['content'] for r in R))"
    let events = s.messages.iter().filter(|m| m.role == Role::Event).count();
    assert_eq!(events, 14, "aborted requests (no content, an errorMessage)");
    assert!(s.source.skipped.is_empty());
    assert!(
        s.source.abandoned.is_empty(),
        "a version 1 file has no branches"
    );
}

#[test]
fn session_with_a_compaction_counts() {
    let s = load("session.jsonl");
    assert_eq!(s.model.as_deref(), Some("claude-opus-4-5"));
    // Line 440 holds two records with no newline between them: skipped and reported.
    // python3 -c "print([i for i,l in enumerate(open('fixtures/pi/session.jsonl'),1) if '}{\"type\"' in l])"
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 440);
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/pi/session.jsonl') if '}{\"type\"' not in l];print(sum(r['type'] in('message','compaction') for r in R))"
    assert_eq!(s.messages.len(), 453);
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/pi/session.jsonl') if '}{\"type\"' not in l];print(sum(b['type']=='toolCall' for r in R if r['type']=='message' and r['message']['role']=='assistant' for b in r['message']['content']))"
    assert_eq!(calls(&s).len(), 189);
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/pi/session.jsonl') if '}{\"type\"' not in l];print(sum(r['type']=='message' and r['message']['role']=='toolResult' for r in R))"
    assert_eq!(results(&s).len(), 189);
    assert!(all_paired(&s));
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/pi/session.jsonl') if '}{\"type\"' not in l];print([(i,r['tokensBefore']) for i,r in enumerate(R) if r['type']=='compaction'])"
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(mark.pre_tokens, Some(186_045));
    let summary = &s.messages[mark.before_message];
    assert_eq!(summary.source_index, mark.source_index);
    assert!(
        matches!(&summary.parts[..], [Part::Summary { text }] if text.starts_with("# Context Checkpoint"))
    );
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/pi/session.jsonl') if '}{\"type\"' not in l];print([r['message']['command'] for r in R if r['type']=='message' and r['message']['role']=='bashExecution'])"
    let bash = s.messages.iter().filter(|m| {
        m.role == Role::User
            && m.parts
                .iter()
                .any(|p| p.plain_text().starts_with("Ran `npm run check`\n```\n"))
    });
    assert_eq!(bash.count(), 1);
    // Usage is Anthropic's: input without the cache.
    let usage = s.messages.iter().find_map(|m| m.usage.clone()).unwrap();
    assert!(!usage.input_includes_cache);
    assert!(usage.cache_read.is_some() && usage.cache_write.is_some());
}

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s3","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

fn entry(id: &str, parent: Option<&str>, body: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(r#"{{"id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z",{body}}}"#)
}

fn user(text: &str) -> String {
    format!(r#""type":"message","message":{{"role":"user","content":"{text}","timestamp":1}}"#)
}

#[test]
fn the_active_branch_is_read_and_the_other_reported() {
    let lines = [
        HEADER.to_string(),
        entry("a", None, &user("first")),
        entry("b", Some("a"), &user("abandoned try")),
        entry(
            "c",
            Some("b"),
            r#""type":"model_change","provider":"p","modelId":"m2""#,
        ),
        entry("d", Some("a"), &user("second try")),
        entry(
            "e",
            Some("d"),
            r#""type":"compaction","summary":"S","firstKeptEntryId":"d","tokensBefore":50"#,
        ),
        entry(
            "f",
            Some("e"),
            r#""type":"custom_message","customType":"x","content":[{"type":"text","text":"injected"}],"display":true"#,
        ),
    ];
    let s = read(&lines.join("\n"));
    let sources: Vec<usize> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![1, 4, 5, 6]);
    assert_eq!(
        s.source.abandoned,
        vec![Abandoned {
            fork: 1,
            records: vec![2, 3]
        }]
    );
    assert_eq!(s.marks.len(), 1);
    assert_eq!(s.marks[0].before_message, 2);
    assert_eq!(s.marks[0].pre_tokens, Some(50));
    assert_eq!(
        s.messages[2].parts,
        vec![Part::Summary { text: "S".into() }]
    );
    assert_eq!(s.messages[3].parts[0].plain_text(), "injected");
}

#[test]
fn records_lacking_what_they_need_are_skipped_and_bad_lines_reported() {
    let lines = [
        HEADER.to_string(),
        entry(
            "a",
            None,
            r#""type":"message","message":{"role":"user","timestamp":1}"#,
        ),
        "{not json".to_string(),
        entry(
            "b",
            Some("a"),
            r#""type":"message","message":{"role":"toolResult","content":[],"timestamp":1}"#,
        ),
        entry(
            "c",
            Some("b"),
            r#""type":"message","message":{"role":"assistant","content":[],"timestamp":1}"#,
        ),
        entry(
            "d",
            Some("c"),
            r#""type":"compaction","firstKeptEntryId":"a""#,
        ),
        entry("e", Some("d"), r#""type":"message""#),
        entry(
            "f",
            Some("e"),
            r#""type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"é"},{"type":"toolCall","id":"t","name":"n","arguments":{"k":1}}],"usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4},"timestamp":1}"#,
        ),
    ];
    let s = read(&lines.join("\n"));
    let skipped: Vec<usize> = s.source.skipped.iter().map(|k| k.line).collect();
    assert_eq!(skipped, vec![3, 2, 4, 5, 6, 7]);
    assert_eq!(s.messages.len(), 1);
    let usage = s.messages[0].usage.clone().unwrap();
    assert_eq!(usage.context_input(), Some(8));
}
