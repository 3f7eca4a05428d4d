//! Tests over the real Qwen Code chats in `fixtures/qwen-code/` (written by Qwen Code 0.15.10
//! against a scripted model, see `fixtures/qwen-code/NOTICE.md`), and hand-written records in
//! the shapes `chatRecordingService.ts` writes for what those runs do not hold (a rewind, a
//! uuid written twice, records that lack their content).

use crate::formats::test_support::{all_paired, calls, fixture, read_as, results};
use crate::session::{Abandoned, Format, Part, Role, Session};

fn load(name: &str) -> Session {
    fixture("qwen-code", name, Format::QWEN_CODE)
}

fn read(text: &str) -> Session {
    read_as(text, "s.jsonl", Format::QWEN_CODE)
}

fn roles(s: &Session) -> Vec<Role> {
    s.messages.iter().map(|m| m.role).collect()
}

/// Counted over the raw files, independently of the parser:
///
/// ```text
/// python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; \
///   p=[q for x in r if x['type']!='system' for q in x['message']['parts']]; \
///   c=[q['functionCall']['id'] for q in p if 'functionCall' in q]; \
///   s=[q['functionResponse']['id'] for q in p if 'functionResponse' in q]; \
///   print(sum(x['type']!='system' for x in r)+sum(x.get('subtype')=='chat_compression' for x in r), \
///   len(c), len(s), sorted(c)==sorted(s))" fixtures/qwen-code/FILE.jsonl
/// ```
///
/// (messages: the user, assistant and tool_result records plus one summary per compression;
/// every file is one linear chain: each `parentUuid` is the line before's `uuid`.)
#[test]
fn real_chats_have_the_counted_messages_calls_and_results() {
    // short.jsonl → 4 1 1 True
    // tools.jsonl → 11 5 5 True
    // compress.jsonl → 13 5 5 True
    for (name, messages, n_calls, n_results) in [
        ("short.jsonl", 4, 1, 1),
        ("tools.jsonl", 11, 5, 5),
        ("compress.jsonl", 13, 5, 5),
    ] {
        let s = load(name);
        assert_eq!(s.messages.len(), messages, "{name} messages");
        assert_eq!(calls(&s).len(), n_calls, "{name} calls");
        assert_eq!(results(&s).len(), n_results, "{name} results");
        assert!(all_paired(&s), "{name}: every result answers its call");
        assert!(
            s.source.skipped.is_empty(),
            "{name}: {:?}",
            s.source.skipped
        );
        assert!(s.source.abandoned.is_empty(), "{name}");
        assert_eq!(s.model.as_deref(), Some("scripted"), "{name}");
    }
}

#[test]
fn a_short_chat_reads_its_turns_usage_and_ids() {
    let s = load("short.jsonl");
    assert_eq!(
        s.id.as_deref(),
        Some("556891b0-ce2a-4cbb-95dd-62fe65b771ae")
    );
    // python3 -c "import json; [print(i, json.loads(l)['type']) for i, l in enumerate(open('short.jsonl'))]"
    use Role::*;
    assert_eq!(roles(&s), vec![User, Assistant, Tool, Assistant]);
    let sources: Vec<usize> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![0, 3, 5, 7]);
    assert!(
        matches!(&s.messages[0].parts[..], [Part::Text { text }] if text == "What does this project do?")
    );
    let m = &s.messages[1];
    assert!(
        matches!(&m.parts[..], [Part::Text { .. }, Part::ToolCall { id, name, arguments, .. }]
        if id == "call_0001" && name == "read_file"
            && arguments == r#"{"file_path":"/tmp/project/README.md"}"#)
    );
    assert_eq!(
        m.id.as_deref(),
        Some("2036cf06-dbbc-419c-bd24-1232b5206c8d")
    );
    // usageMetadata: promptTokenCount includes cachedContentTokenCount (Gemini's way).
    let u = m.usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_read, u.reasoning, u.total),
        (Some(9731), Some(33), Some(0), Some(0), Some(9764))
    );
    assert!(u.input_includes_cache);
    assert_eq!(results(&s), vec![("call_0001", Some(false))]);
    assert!(
        matches!(&s.messages[2].parts[..], [Part::ToolResult { content, .. }]
        if content[0].plain_text() == r##"{"output":"# hello\n\nA tiny greeting script.\n"}"##)
    );
}

#[test]
fn parallel_calls_and_a_failing_call() {
    let s = load("tools.jsonl");
    // Two calls in one turn; Qwen Code records each result as its own tool_result record.
    assert_eq!(calls(&s)[..2], ["call_0001", "call_0002"]);
    assert_eq!(
        s.messages[1]
            .client_calls()
            .map(|(_, name)| name)
            .collect::<Vec<_>>(),
        vec!["list_directory", "read_file"]
    );
    assert_eq!(s.messages[2].role, Role::Tool);
    assert_eq!(s.messages[3].role, Role::Tool);
    // The missing file: `{error}` in the response and `toolCallResult.status: "error"`.
    let r = results(&s);
    assert_eq!(r[3], ("call_0004", Some(true)));
    assert_eq!(r.iter().filter(|(_, e)| *e == Some(true)).count(), 1);
}

#[test]
fn a_compression_is_a_mark_and_its_summary() {
    let s = load("compress.jsonl");
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(mark.kind, "chat_compression");
    // Line 23: systemPayload.info {originalTokenCount: 12097, newTokenCount: 10955}.
    assert_eq!(mark.source_index, 23);
    assert_eq!(
        (mark.pre_tokens, mark.post_tokens),
        (Some(12097), Some(10955))
    );
    let summary = mark.summary.as_deref().unwrap();
    assert!(summary.starts_with("<state_snapshot>"), "{summary}");
    // The mark stands before the summary, after the last tool result.
    let at = mark.before_message;
    assert_eq!(s.messages[at - 1].role, Role::Tool);
    let m = &s.messages[at];
    assert_eq!((m.role, m.source_index), (Role::User, 23));
    assert!(matches!(&m.parts[..], [Part::Summary { text }] if text == summary));
    assert_eq!(s.messages[at + 1].role, Role::Assistant);
}

const HEAD: &str =
    r#""sessionId":"s","timestamp":"2025-10-01T00:00:00Z","cwd":"/p","version":"0.15.10""#;

fn rec(uuid: &str, parent: Option<&str>, rest: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!("{{\"uuid\":\"{uuid}\",\"parentUuid\":{parent},{HEAD},{rest}}}\n")
}

fn user(text: &str) -> String {
    format!(r#""type":"user","message":{{"role":"user","parts":[{{"text":"{text}"}}]}}"#)
}

fn model(text: &str) -> String {
    format!(
        r#""type":"assistant","model":"m","message":{{"role":"model","parts":[{{"text":"{text}"}}]}}"#
    )
}

#[test]
fn a_rewind_leaves_the_turns_after_it_abandoned() {
    // rewindRecording: the rewind record hangs from the record before the rewound turn.
    let text = [
        rec("u1", None, &user("one")),
        rec("a1", Some("u1"), &model("first")),
        rec("u2", Some("a1"), &user("two")),
        rec("a2", Some("u2"), &model("second")),
        rec(
            "r",
            Some("a1"),
            r#""type":"system","subtype":"rewind","systemPayload":{}"#,
        ),
        rec("u3", Some("r"), &user("three")),
        rec("a3", Some("u3"), &model("third")),
    ]
    .concat();
    let s = read(&text);
    let texts: Vec<String> = s.messages.iter().map(|m| m.parts[0].plain_text()).collect();
    assert_eq!(texts, vec!["one", "first", "three", "third"]);
    assert_eq!(
        s.source.abandoned,
        vec![Abandoned {
            fork: 1,
            records: vec![2, 3]
        }]
    );
}

#[test]
fn records_of_one_uuid_are_one_message() {
    // aggregateRecords: the parts follow one another, the later usage wins.
    let text = [
        rec("u1", None, &user("hi")),
        rec("a1", Some("u1"), &model("part one")),
        rec(
            "a1",
            Some("u1"),
            r#""type":"assistant","message":{"role":"model","parts":[{"text":"part two"}]},"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":2,"totalTokenCount":12}"#,
        ),
    ]
    .concat();
    let s = read(&text);
    assert_eq!(s.messages.len(), 2);
    let m = &s.messages[1];
    assert_eq!(m.source_indices, vec![1, 2]);
    assert_eq!(m.parts.len(), 2);
    assert_eq!(m.usage.as_ref().and_then(|u| u.total), Some(12));
}

#[test]
fn records_lacking_their_content_are_reported_not_dropped() {
    let text = [
        rec("u1", None, &user("hi")),
        rec("a1", Some("u1"), r#""type":"assistant","model":"m""#),
        "{not json\n".to_string(),
        rec(
            "a2",
            Some("a1"),
            r#""type":"assistant","message":{"role":"model","parts":[]}"#,
        ),
        rec(
            "t1",
            Some("a2"),
            r#""type":"tool_result","message":{"role":"user"}"#,
        ),
        rec("a3", Some("t1"), &model("still read")),
    ]
    .concat();
    let s = read(&text);
    assert_eq!(s.messages.len(), 2);
    let mut lines: Vec<usize> = s.source.skipped.iter().map(|k| k.line).collect();
    lines.sort_unstable();
    assert_eq!(lines, vec![2, 3, 4, 5]);
    let line2 = s.source.skipped.iter().find(|k| k.line == 2);
    assert!(line2.is_some_and(|k| k.reason.contains("without its message")));
}
