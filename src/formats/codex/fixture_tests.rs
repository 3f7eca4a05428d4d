//! Codex parser tests over hand-made rollouts (`fixtures/codex`) and small inline files: what
//! the real samples lack (local compaction, exit codes, malformed lines, unknown records,
//! totals-only usage).

use std::path::Path;

use crate::formats::{load_bytes, load_path};
use crate::session::{Format, ImageRef, Message, Part, Role, Session};

fn fixture(name: &str) -> Session {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/codex")
        .join(name);
    match load_path(&path, None) {
        Ok(s) => s,
        Err(e) => panic!("{name}: {e}"),
    }
}

fn inline(lines: &[&str]) -> Session {
    let text = lines.join("\n");
    match load_bytes(text.into_bytes(), None, "inline.jsonl", None) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

fn summary(s: &Session) -> Vec<(Role, Vec<usize>)> {
    s.messages
        .iter()
        .map(|m| (m.role, m.source_indices.clone()))
        .collect()
}

fn error_flag(m: &Message) -> Option<bool> {
    match m.parts.first() {
        Some(Part::ToolResult { is_error, .. }) => *is_error,
        other => panic!("not a tool result: {other:?}"),
    }
}

fn input_and_output(m: &Message) -> (Option<u64>, Option<u64>) {
    let u = m.usage.as_ref().expect("usage");
    (u.input, u.output)
}

#[test]
fn local_compaction_fixture() {
    let s = fixture("local-compaction.jsonl");
    assert_eq!(s.format, Format::CODEX);
    assert_eq!(
        s.id.as_deref(),
        Some("0199f1c2-7a3e-7d41-9b1e-5c2f8e0a4d11")
    );
    assert_eq!(s.model.as_deref(), Some("gpt-5-codex"));
    assert_eq!(s.reported_window, Some(272000));
    assert_eq!(s.source.records, 44);
    // Line 21 was cut off mid-write; the rest still loads.
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 21);
    use Role::*;
    let expected = vec![
        (System, vec![0]),
        (Developer, vec![1]),
        (User, vec![2]),
        (User, vec![5]),
        (Assistant, vec![9, 10]),
        (Tool, vec![12]),
        (Assistant, vec![15, 16]),
        (Tool, vec![18]),
        (Assistant, vec![21]),
        (Tool, vec![23]),
        (Assistant, vec![27]),
        (Event, vec![34]),
        (User, vec![37]),
        (Assistant, vec![39, 40]),
        (Tool, vec![42]),
        (Event, vec![43]),
    ];
    assert_eq!(summary(&s), expected);
    // Exit codes: `Exit code: 101`, JSON metadata 0, `Process exited with code 0`, JSON 0.
    assert_eq!(error_flag(&s.messages[5]), Some(true));
    assert_eq!(error_flag(&s.messages[7]), Some(false));
    assert_eq!(error_flag(&s.messages[9]), Some(false));
    assert_eq!(error_flag(&s.messages[14]), Some(false));
    // Duplicate token counts (same totals) do not move usage.
    assert_eq!(input_and_output(&s.messages[4]), (Some(6211), Some(143)));
    assert_eq!(input_and_output(&s.messages[6]), (Some(6520), Some(211)));
    assert_eq!(input_and_output(&s.messages[10]), (Some(7133), Some(40)));
    assert_eq!(input_and_output(&s.messages[13]), (Some(2950), Some(87)));
    // The apply_patch input is kept byte for byte.
    match &s.messages[6].parts[1] {
        Part::ToolCall {
            name, arguments, ..
        } => {
            assert_eq!(name, "apply_patch");
            assert!(arguments.starts_with("*** Begin Patch\n*** Update File: src/parser.rs\n"));
        }
        other => panic!("{other:?}"),
    }
    // Reasoning with an empty summary: only the encrypted blob's length.
    assert!(matches!(
        &s.messages[13].parts[0],
        Part::Reasoning { text, opaque_len: 66 } if text.is_empty()
    ));
    match &s.messages[11].parts[0] {
        Part::Opaque { kind, raw } => {
            assert_eq!(kind, "inter_agent_communication");
            assert!(raw.contains("Reviewed the patch to parse_header"));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(&s.messages[15].parts[0], Part::Opaque { kind, .. } if kind == "turn_aborted")
    );
}

#[test]
fn local_compaction_mark() {
    let s = fixture("local-compaction.jsonl");
    // `compacted` (line 31) and its `context_compacted` event (32) are one mark.
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(mark.kind, "compacted");
    assert_eq!(mark.source_index, 31);
    assert_eq!(mark.before_message, 11);
    assert_eq!(mark.pre_tokens, Some(7133));
    assert_eq!(mark.post_tokens, Some(2950));
    assert_eq!(mark.trigger, None);
    let text = mark.summary.as_deref().unwrap_or_default();
    assert!(text.starts_with("The user asked to fix the failing header test"));
}

#[test]
fn older_cli_fixture() {
    let s = fixture("older-cli.jsonl");
    assert_eq!(
        s.id.as_deref(),
        Some("5973b6c0-94b8-487b-a530-2aeb6098ae0e")
    );
    assert_eq!(s.model.as_deref(), Some("gpt-5"));
    assert_eq!(s.reported_window, Some(200000));
    use Role::*;
    // The old `instructions` field is not repeated: the file has it as a user message.
    // ghost_snapshot (line 12) is not sent to the model.
    let expected = vec![
        (User, vec![1]),
        (User, vec![2]),
        (User, vec![4]),
        (Assistant, vec![6, 7, 8]),
        (Tool, vec![10]),
        (Tool, vec![11]),
        (Assistant, vec![13, 14]),
        (Tool, vec![16]),
        (Assistant, vec![17]),
        (User, vec![20]),
        (Assistant, vec![21]),
    ];
    assert_eq!(summary(&s), expected);
    let png = ImageRef {
        media_type: Some("image/png".into()),
        bytes: Some(70),
        width: Some(1),
        height: Some(1),
        ..ImageRef::default()
    };
    assert_eq!(s.messages[2].parts[1], Part::Image(png.clone()));
    let kinds: Vec<&str> = s.messages[3].parts.iter().map(Part::kind).collect();
    assert_eq!(kinds, vec!["reasoning", "tool_call", "tool_call"]);
    assert_eq!(error_flag(&s.messages[4]), None);
    // Old `{content, success: false}` output.
    assert_eq!(error_flag(&s.messages[5]), Some(true));
    assert!(s.messages[5].parts[0]
        .plain_text()
        .contains("cannot find -lssl"));
    match &s.messages[6].parts[0] {
        Part::ToolCall {
            id,
            name,
            arguments,
            server,
        } => {
            assert_eq!(
                (id.as_str(), name.as_str(), *server),
                ("13:0", "web_search", true)
            );
            assert!(arguments.starts_with(r#"{"type":"open_page","url":"#));
        }
        other => panic!("{other:?}"),
    }
    // An output given as content items: text and an image.
    match &s.messages[7].parts[0] {
        Part::ToolResult { content, .. } => {
            assert_eq!(content[0], Part::text("Image at /srv/app/ci.png:"));
            assert_eq!(content[1], Part::Image(png));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(input_and_output(&s.messages[6]), (Some(5902), Some(96)));
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(
        (mark.kind.as_str(), mark.source_index, mark.before_message),
        ("compacted", 19, 9)
    );
    assert_eq!(
        (mark.pre_tokens, mark.post_tokens),
        (Some(6260), Some(1840))
    );
}

const META: &str = r#"{"timestamp":"2025-09-02T10:00:00.000Z","type":"session_meta","payload":{"id":"s-1","timestamp":"2025-09-02T10:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.30.0"}}"#;

fn user(text: &str) -> String {
    format!(
        r#"{{"timestamp":"2025-09-02T10:00:01.000Z","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{text}"}}]}}}}"#
    )
}

fn answer(text: &str) -> String {
    format!(
        r#"{{"timestamp":"2025-09-02T10:00:02.000Z","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{text}"}}]}}}}"#
    )
}

fn totals(input: u64, output: u64) -> String {
    format!(
        r#"{{"timestamp":"2025-09-02T10:00:03.000Z","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{input},"cached_input_tokens":0,"output_tokens":{output},"reasoning_output_tokens":0,"total_tokens":{}}},"model_context_window":null}}}}}}"#,
        input + output
    )
}

#[test]
fn totals_only_are_differenced() {
    let lines = [
        META.to_string(),
        user("a"),
        answer("b"),
        totals(1000, 50),
        user("c"),
        answer("d"),
        totals(2100, 80),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let s = inline(&refs);
    assert_eq!(input_and_output(&s.messages[1]), (Some(1000), Some(50)));
    assert_eq!(input_and_output(&s.messages[3]), (Some(1100), Some(30)));
    assert_eq!(
        s.messages[3].usage.as_ref().and_then(|u| u.total),
        Some(1130)
    );
}

#[test]
fn context_compacted_alone_is_a_mark_and_unknown_events_are_kept() {
    let lines = [
        META.to_string(),
        user("a"),
        answer("b"),
        r#"{"timestamp":"2025-09-02T10:00:04.000Z","type":"event_msg","payload":{"type":"context_compacted"}}"#.to_string(),
        r#"{"timestamp":"2025-09-02T10:00:05.000Z","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}"#.to_string(),
        user("c"),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let s = inline(&refs);
    assert_eq!(s.marks.len(), 1);
    assert_eq!(s.marks[0].kind, "context_compacted");
    assert_eq!((s.marks[0].source_index, s.marks[0].before_message), (3, 2));
    assert_eq!(s.messages[2].role, Role::Event);
    assert!(
        matches!(&s.messages[2].parts[0], Part::Opaque { kind, .. } if kind == "thread_rolled_back")
    );
    assert_eq!(s.messages[3].source_index, 5);
}

#[test]
fn a_json_document_is_not_a_rollout() {
    let text = b"[{\"type\":\"message\",\"role\":\"user\",\"content\":\"hi\"}]".to_vec();
    let err = load_bytes(text, None, "x.json", Some(Format::CODEX));
    assert!(err.is_err());
}

#[test]
fn event_fallback_merges_reasoning_and_answer() {
    let lines = [
        META,
        r#"{"timestamp":"2025-09-02T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"hi","images":null}}"#,
        r#"{"timestamp":"2025-09-02T10:00:02.000Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"**Greeting**"}}"#,
        r#"{"timestamp":"2025-09-02T10:00:03.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Hello!"}}"#,
    ];
    let s = inline(&lines);
    assert_eq!(
        summary(&s),
        vec![(Role::User, vec![1]), (Role::Assistant, vec![2, 3])]
    );
    let kinds: Vec<&str> = s.messages[1].parts.iter().map(Part::kind).collect();
    assert_eq!(kinds, vec!["reasoning", "text"]);
}
