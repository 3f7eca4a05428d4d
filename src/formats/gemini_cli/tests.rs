//! Tests over the hand-made fixtures in `fixtures/gemini-cli/` (there is no public real Gemini
//! CLI recording among the samples). The fixtures follow `chatRecordingService.ts` (record and
//! tool-call shapes, `$set`, `$rewindTo`, the legacy `.json`) and `chatCompressionService.ts`
//! (the `<state_snapshot>` summary followed by "Got it. Thanks for the additional context!").

use std::path::Path;

use crate::formats::{load_bytes, load_path};
use crate::session::{Format, Message, Part, Role, Session};

fn load(rel: &str) -> Session {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/gemini-cli")
        .join(rel);
    let session = load_path(&path, None).unwrap();
    assert_eq!(
        session.format,
        Format::GEMINI_CLI,
        "{rel} detected as gemini-cli"
    );
    session
}

fn roles(s: &Session) -> Vec<Role> {
    s.messages.iter().map(|m| m.role).collect()
}

fn kinds(m: &Message) -> Vec<&'static str> {
    m.parts.iter().map(Part::kind).collect()
}

fn raw_text(s: &Session, m: &Message) -> String {
    String::from_utf8_lossy(&s.raw_record(m).unwrap_or_default()).into_owned()
}

#[test]
fn recording_replays_replacements_rewind_and_events() {
    let s = load("chats/session-2025-09-18T10-15-3f2a9c1e.jsonl");
    assert_eq!(
        s.id.as_deref(),
        Some("3f2a9c1e-6b7d-4e21-9a0c-58d4f1e2b3a7")
    );
    assert_eq!(s.title.as_deref(), Some("Fix failing npm build"));
    assert_eq!(s.model.as_deref(), Some("gemini-2.5-flash"));
    assert_eq!(s.source.records, 22);
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 12);
    use Role::*;
    assert_eq!(
        roles(&s),
        vec![
            User, Assistant, Tool, Event, Event, User, Assistant, Event, User, Assistant, Tool,
            Assistant
        ]
    );
    // The gemini record was written three times (text, + tokens, + tool calls): one message,
    // where it first stood, holding the last version.
    let m = &s.messages[1];
    assert_eq!(m.source_indices, vec![3, 5, 6]);
    assert!(raw_text(&s, m).contains("\"toolCalls\""));
    assert_eq!(
        kinds(m),
        vec!["reasoning", "text", "tool_call", "tool_call"]
    );
    assert!(matches!(&m.parts[0], Part::Reasoning { text, .. }
        if text.starts_with("**Inspecting build script** The user wants")));
    assert!(
        matches!(&m.parts[2], Part::ToolCall { id, name, arguments, .. }
        if id == "read_file-1758190512345-7f3a2c9e1b4d" && name == "read_file"
            && arguments == r#"{"absolute_path":"/home/dev/app/package.json"}"#)
    );
    let u = m.usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_read, u.reasoning, u.total),
        (Some(8120), Some(24), Some(0), Some(112), Some(8256))
    );
    assert!(u.input_includes_cache);
    // Its results follow as one tool message, errors from the recorded status.
    let results: Vec<_> = s.messages[2]
        .parts
        .iter()
        .map(|p| match p {
            Part::ToolResult {
                call_id,
                is_error,
                content,
            } => (call_id.as_str(), *is_error, content[0].plain_text()),
            _ => panic!("tool results only"),
        })
        .collect();
    assert_eq!(results[0].0, "read_file-1758190512345-7f3a2c9e1b4d");
    assert_eq!(results[0].1, Some(false));
    assert!(results[0].2.starts_with(r#"{"output":"{\n  \"scripts\""#));
    assert_eq!(results[1].1, Some(true));
    assert!(results[1].2.starts_with(r#"{"error":"Command failed"#));
}

#[test]
fn recording_rewind_events_and_current_records() {
    let s = load("chats/session-2025-09-18T10-15-3f2a9c1e.jsonl");
    // `$rewindTo` removed the rewound user turn and the answer after it; `info` is UI-only.
    assert!(!s
        .messages
        .iter()
        .any(|m| m.source_index == 8 || m.source_index == 9));
    // A slash command and an error are shown but never sent.
    assert!(matches!(&s.messages[3].parts[..], [Part::Opaque { kind, .. }] if kind == "command"));
    assert!(
        matches!(&s.messages[4].parts[..], [Part::Opaque { kind, raw }]
        if kind == "error" && raw.contains("429 Too Many Requests"))
    );
    // A record type this parser does not know is kept as an event.
    assert!(matches!(&s.messages[7].parts[..], [Part::Opaque { kind, .. }] if kind == "notice"));
    assert_eq!(s.messages[6].usage.as_ref().unwrap().cache_read, Some(6144));
    // The current recorder keeps thoughts and calls in `content`: no doubled thoughts.
    let m = &s.messages[9];
    assert_eq!(kinds(m), vec!["reasoning", "tool_call"]);
    assert_eq!(m.model.as_deref(), Some("gemini-2.5-flash"));
    assert!(
        matches!(&s.messages[10].parts[..], [Part::ToolResult { call_id, is_error: Some(false), .. }]
        if call_id == "run_shell_command-1758190733210-3e2d1c0b9a8f")
    );
}

#[test]
fn compression_rewrite_gives_a_state_snapshot_mark_and_a_child() {
    let s = load("chats/session-2025-09-19T08-02-8c41d0b2.jsonl");
    assert_eq!(s.messages.len(), 8);
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(mark.kind, "state_snapshot");
    assert_eq!((mark.source_index, mark.before_message), (6, 0));
    assert!(mark
        .summary
        .as_deref()
        .is_some_and(|t| t.contains("<overall_goal>")));
    let summary = &s.messages[0];
    assert_eq!((summary.role, summary.source_index), (Role::User, 6));
    assert_eq!(kinds(summary), vec!["summary"]);
    assert!(raw_text(&s, summary).starts_with(r#"{"id":"66666666-7777-4888-8999-aaaabbbbcccc""#));
    assert_eq!(
        s.messages[1].parts,
        vec![Part::text("Got it. Thanks for the additional context!")]
    );
    // Records kept through the rewrite keep the lines that wrote them.
    assert_eq!(s.messages[2].source_indices, vec![3, 6]);
    assert_eq!(s.messages[3].source_indices, vec![4, 6]);
    // The kept call is answered once: by the function-response turn of the rewritten list,
    // not a second time from the record's `toolCalls`.
    use Role::*;
    assert_eq!(
        roles(&s),
        vec![User, Assistant, User, Assistant, Tool, Assistant, User, Assistant]
    );
    let call = "search_file_content-1758270011223-9f8e7d6c5b4a";
    assert_eq!(
        s.messages[3].client_calls().collect::<Vec<_>>(),
        vec![(call, "search_file_content")]
    );
    assert_eq!(s.messages[4].result_ids().collect::<Vec<_>>(), vec![call]);
    assert_eq!(s.messages[6].source_index, 7);
    // The subagent recording under chats/<sessionId>/.
    assert_eq!(s.children.len(), 1);
    let child = &s.children[0];
    assert_eq!(
        child.id.as_deref(),
        Some("0d9c8b7a-6f5e-4d3c-8b2a-1f0e9d8c7b6a")
    );
    assert_eq!(child.messages.len(), 2);
    assert_eq!(child.model.as_deref(), Some("gemini-2.5-flash"));
}

#[test]
fn legacy_json_record() {
    let s = load("session-2025-07-02T14-30-a1b2c3d4.json");
    assert_eq!(
        s.id.as_deref(),
        Some("a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d")
    );
    assert_eq!(s.source.records, 4);
    use Role::*;
    // The `warning` record (index 3) is UI-only.
    assert_eq!(roles(&s), vec![User, Assistant, Tool, Assistant]);
    let sources: Vec<_> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![0, 1, 1, 2]);
    // Empty content: the turn is its thought and its call.
    assert_eq!(kinds(&s.messages[1]), vec!["reasoning", "tool_call"]);
    assert!(raw_text(&s, &s.messages[1]).starts_with("{\n      \"id\": \"e1d2c3b4"));
    assert_eq!(s.messages[3].usage.as_ref().unwrap().total, Some(6544));
    assert!(
        matches!(&s.messages[2].parts[..], [Part::ToolResult { call_id, is_error: Some(false), .. }]
        if call_id == "read_file-1751466614001-a1b2c3")
    );
}

#[test]
fn checkpoints_pair_calls_without_ids() {
    let s = load("checkpoint-rename.json");
    assert_eq!(s.messages.len(), 8);
    assert_eq!(s.source.records, 8);
    use Role::*;
    assert_eq!(
        roles(&s),
        vec![User, Assistant, User, Assistant, Tool, Assistant, User, Assistant]
    );
    let m = &s.messages[3];
    assert_eq!(kinds(m), vec!["reasoning", "tool_call"]);
    let calls: Vec<_> = m.client_calls().collect();
    assert_eq!(calls, vec![("3:1", "replace")]);
    assert_eq!(s.messages[4].result_ids().collect::<Vec<_>>(), vec!["3:1"]);
    let Part::Image(img) = &s.messages[6].parts[1] else {
        panic!("an image");
    };
    assert_eq!(
        (img.media_type.as_deref(), img.width, img.height),
        (Some("image/png"), Some(1), Some(1))
    );

    let bare = load("checkpoint-bare.json");
    assert_eq!(bare.messages.len(), 4);
    assert_eq!(
        bare.messages[2].result_ids().collect::<Vec<_>>(),
        vec!["1:1"]
    );
}

#[test]
fn rewind_to_an_unknown_id_clears_and_bad_values_never_panic() {
    let lines = [
        r#"{"sessionId":"s1","projectHash":"h","startTime":"t","lastUpdated":"t"}"#,
        r#"{"id":"a","timestamp":"t","type":"user","content":"hello"}"#,
        r#"{"$rewindTo":"nope"}"#,
        r#"{"id":"b","timestamp":"t","type":"gemini","content":7,"toolCalls":[{"result":"ok"},3],"tokens":"x"}"#,
        r#"{"$set":{"messages":"not a list","summary":"T"}}"#,
        r#"{"id":"c","timestamp":"t","type":"user","content":[{"functionResponse":{"name":"x"}},{"weird":true},null]}"#,
    ];
    let s = load_bytes(lines.join("\n").into_bytes(), None, "-", None).unwrap();
    assert_eq!(s.format, Format::GEMINI_CLI);
    assert_eq!(s.title.as_deref(), Some("T"));
    assert!(!s.messages.iter().any(|m| m.source_index == 1));
    use Role::*;
    assert_eq!(roles(&s), vec![Assistant, Tool, User]);
    assert!(
        matches!(&s.messages[0].parts[..], [Part::ToolCall { id, .. }, Part::ToolCall { .. }] if id == "3:t0")
    );
    assert!(
        matches!(&s.messages[1].parts[..], [Part::ToolResult { call_id, .. }] if call_id == "3:t0")
    );
}
