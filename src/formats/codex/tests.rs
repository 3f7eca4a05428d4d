//! Codex parser tests over the real rollouts in `shared/samples/codex` and the hand-made ones in
//! `fixtures/codex`. The expected figures were read off the files with a separate script.

use std::path::Path;

use crate::formats::load_path;
use crate::session::{Format, Message, Part, Role, Session};

fn load(rel: &str) -> Session {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    match load_path(&path, None) {
        Ok(s) => s,
        Err(e) => panic!("{rel}: {e}"),
    }
}

fn sample(name: &str) -> Session {
    load(&format!("../shared/samples/codex/{name}"))
}

const BIG: &str = "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl";
const SMALL: &str = "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl";

fn roles(s: &Session) -> Vec<Role> {
    s.messages.iter().map(|m| m.role).collect()
}

fn count(s: &Session, role: Role) -> usize {
    s.messages.iter().filter(|m| m.role == role).count()
}

fn calls(m: &Message) -> Vec<(&str, &str, &str, bool)> {
    m.parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall {
                id,
                name,
                arguments,
                server,
            } => Some((id.as_str(), name.as_str(), arguments.as_str(), *server)),
            _ => None,
        })
        .collect()
}

fn result(m: &Message) -> (&str, Option<bool>, String) {
    match m.parts.first() {
        Some(
            p @ Part::ToolResult {
                call_id, is_error, ..
            },
        ) => (call_id.as_str(), *is_error, p.plain_text()),
        other => panic!("message {} is not a tool result: {other:?}", m.index),
    }
}

/// input, cache_read, output, reasoning, total
type Figures = (
    Option<u64>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
);

fn usage(m: &Message) -> Figures {
    let u = m.usage.as_ref().expect("usage");
    assert!(u.input_includes_cache);
    (u.input, u.cache_read, u.output, u.reasoning, u.total)
}

fn by_source(s: &Session, line: usize) -> &Message {
    s.messages
        .iter()
        .find(|m| m.source_indices.contains(&line))
        .expect("a message from that line")
}

#[test]
fn small_rollout_merges_each_response_into_one_assistant_message() {
    let s = sample(SMALL);
    assert_eq!(s.format, Format::CODEX);
    assert_eq!(
        s.id.as_deref(),
        Some("019c8bfe-ec25-79e0-97d7-bda6a9c575ff")
    );
    assert_eq!(s.model.as_deref(), Some("gpt-5.3-codex"));
    assert_eq!(s.reported_window, Some(258400));
    assert_eq!(s.source.records, 63);
    assert!(s.source.skipped.is_empty());
    assert_eq!(s.messages.len(), 19);
    use Role::*;
    let expected = [
        System, Developer, Developer, User, User, Developer, Developer, User,
    ];
    assert_eq!(&roles(&s)[..8], &expected);
    // base_instructions of session_meta become the system message.
    assert_eq!(s.messages[0].source_index, 0);
    assert_eq!(
        s.messages[0].parts[0].plain_text(),
        "[REDACTED_TEXT len=13131 sha=036b7e47]"
    );
    // Lines 13 (reasoning), 15 (message) and 16 (function_call) are one response.
    let first = &s.messages[8];
    assert_eq!(first.role, Assistant);
    assert_eq!(first.source_indices, vec![13, 15, 16]);
    assert_eq!(first.timestamp.as_deref(), Some("2026-02-23T19:34:38.549Z"));
    assert_eq!(first.model.as_deref(), Some("gpt-5.3-codex"));
    assert_eq!(
        first.parts[0],
        Part::Reasoning {
            text: "[REDACTED_TEXT len=32 sha=beedaecc]".into(),
            opaque_len: "[REDACTED_ENCRYPTED_CONTENT len=1764 sha=e23f6ec6]".len(),
        }
    );
    assert_eq!(
        calls(first),
        vec![(
            "call_OIMY41RetdVChp5U51mMLGOD",
            "mcp__cloud-associates__search_workflows",
            "[REDACTED_ARGUMENTS len=46 sha=4cb9a2fc]",
            false
        )]
    );
    assert_eq!(
        usage(first),
        (Some(42772), Some(3456), Some(204), Some(124), Some(42976))
    );
    let out = &s.messages[9];
    assert_eq!((out.role, out.source_index), (Tool, 18));
    assert_eq!(
        result(out),
        (
            "call_OIMY41RetdVChp5U51mMLGOD",
            None,
            "[REDACTED_OUTPUT len=4215 sha=9a9d94de]".into()
        )
    );
    // Six requests, six assistant messages, each with its own last_token_usage.
    assert_eq!(count(&s, Assistant), 6);
    assert!(s
        .messages
        .iter()
        .filter(|m| m.role == Assistant)
        .all(|m| m.usage.is_some()));
    let last = &s.messages[18];
    assert_eq!(last.source_indices, vec![58, 60]);
    assert_eq!(
        usage(last),
        (Some(63441), Some(49664), Some(286), Some(96), Some(63727))
    );
    assert!(s.marks.is_empty());
}

#[test]
fn raw_ranges_point_at_the_lines() {
    let s = sample(SMALL);
    let raw = s.raw_record(&s.messages[9]).expect("raw");
    let text = std::str::from_utf8(&raw).expect("utf8");
    assert!(text.starts_with(r#"{"timestamp":"2026-02-23T19:34:39.532Z","type":"response_item""#));
    assert!(text.ends_with("}}"));
}

#[test]
fn big_rollout_counts_roles_calls_and_usage() {
    let s = sample(BIG);
    assert_eq!(s.source.records, 2722);
    assert_eq!(s.messages.len(), 743);
    assert_eq!(count(&s, Role::System), 1);
    assert_eq!(count(&s, Role::Developer), 45);
    assert_eq!(count(&s, Role::User), 46);
    assert_eq!(count(&s, Role::Assistant), 286);
    // 316 function_call_output + 49 custom_tool_call_output lines.
    assert_eq!(count(&s, Role::Tool), 365);
    assert_eq!(count(&s, Role::Event), 0);
    // 286 token counts report a new request; each lands on its own response.
    let with_usage = s.messages.iter().filter(|m| m.usage.is_some()).count();
    assert_eq!(with_usage, 286);
    let all_calls: Vec<_> = s.messages.iter().flat_map(calls).collect();
    assert_eq!(
        all_calls.iter().filter(|c| c.1 == "apply_patch").count(),
        49
    );
    let searches: Vec<_> = all_calls.iter().filter(|c| c.1 == "web_search").collect();
    assert_eq!(searches.len(), 7);
    assert!(searches.iter().all(|c| c.3));
    // web_search_call has no call_id: the id is made from its line.
    assert_eq!(searches[0].0, "40:0");
    assert_eq!(
        searches[0].2,
        r#"{"type":"search","query":"[REDACTED_QUERY len=34 sha=3bfc6233]","queries":["[REDACTED_QUERIES len=34 sha=3bfc6233]"]}"#
    );
    // The response of lines 39..45 holds reasoning, a web search, reasoning, text and a call.
    let mixed = by_source(&s, 40);
    assert_eq!(mixed.source_indices, vec![39, 40, 42, 44, 45]);
    let images = s
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter(|p| matches!(p, Part::Image(img) if img.url.as_deref().is_some_and(|u| u.starts_with("[REDACTED_IMAGE_URL"))))
        .count();
    assert_eq!(images, 13);
}

#[test]
fn big_rollout_apply_patch_and_parallel_calls() {
    let s = sample(BIG);
    let patch = by_source(&s, 1771);
    assert_eq!(
        calls(patch),
        vec![(
            "call_zH7lrUf1HdOrBU9IaRMxp3gj",
            "apply_patch",
            "[REDACTED_INPUT len=1737 sha=31f32e6d]",
            false
        )]
    );
    assert_eq!(
        usage(patch),
        (Some(208486), Some(207104), Some(473), Some(0), Some(208959))
    );
    // Three exec_command calls in one response (lines 1794..1797), then their three results.
    let parallel = by_source(&s, 1795);
    assert_eq!(parallel.source_indices, vec![1792, 1794, 1795, 1796, 1797]);
    let ids: Vec<&str> = calls(parallel).iter().map(|c| c.0).collect();
    assert_eq!(
        ids,
        vec![
            "call_iZF0g0tuO8y8coPZhTZ88hVJ",
            "call_w1kWcbwO5WLgKPIfzAyOEy6j",
            "call_WOzOhiVCly0LQhsiZcQxBfXY"
        ]
    );
    assert_eq!(
        usage(parallel),
        (Some(48297), Some(22912), Some(390), Some(95), Some(48687))
    );
    let next = &s.messages[parallel.index + 1];
    assert_eq!(result(next).0, "call_iZF0g0tuO8y8coPZhTZ88hVJ");
}

#[test]
fn big_rollout_developer_note_between_call_and_output() {
    // A real quirk: a developer message (line 56) sits between a call (54) and its output (57).
    let s = sample(BIG);
    let call = by_source(&s, 54);
    let note = &s.messages[call.index + 1];
    let out = &s.messages[call.index + 2];
    assert_eq!((note.role, note.source_index), (Role::Developer, 56));
    assert_eq!((out.role, out.source_index), (Role::Tool, 57));
    assert_eq!(result(out).0, "call_dKAdhPUVlI0iFwMS166bWwj8");
}

#[test]
fn big_rollout_remote_compaction_is_one_mark() {
    let s = sample(BIG);
    // `compacted` (line 1787) then `event_msg context_compacted` (1788): one mark.
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(mark.kind, "compacted");
    assert_eq!(mark.source_index, 1787);
    // Last context before it (line 1784) and the first request after it (line 1798).
    assert_eq!(mark.pre_tokens, Some(209950));
    assert_eq!(mark.post_tokens, Some(48297));
    // The sanitizer replaced the empty remote summary with a placeholder; it is kept as is.
    assert_eq!(
        mark.summary.as_deref(),
        Some("[REDACTED_MESSAGE len=0 sha=e3b0c442]")
    );
    assert_eq!(mark.before_message, 508);
    assert_eq!(s.messages[508].source_index, 1792);
    assert_eq!(s.messages[507].source_index, 1785);
    // replacement_history items are not messages of this session.
    assert!(s.messages.iter().all(|m| m.source_index != 1787));
}

#[test]
fn hand_written_session_uses_event_messages() {
    let s = sample("timvw-sample_session.jsonl");
    assert_eq!(s.id.as_deref(), Some("session-123"));
    assert_eq!(s.model, None);
    use Role::*;
    assert_eq!(
        roles(&s),
        vec![User, Assistant, Tool, Assistant, Tool, Assistant, User, Assistant]
    );
    let sources: Vec<usize> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(
        s.messages[0].parts[0].plain_text(),
        "Create a hello world function"
    );
    assert_eq!(
        calls(&s.messages[1]),
        vec![(
            "call-1",
            "shell_command",
            r#"{"command":"rg hello src"}"#,
            false
        )]
    );
    assert_eq!(
        calls(&s.messages[3]),
        vec![(
            "call-2",
            "local_shell",
            r#"{"type":"exec","command":["git","commit","-m","Add hello function"],"timeout_ms":null,"working_directory":"/project","env":null,"user":null}"#,
            false
        )]
    );
    assert_eq!(
        result(&s.messages[2]),
        ("call-1", None, "No matches".into())
    );
    assert_eq!(result(&s.messages[4]).0, "call-2");
    assert_eq!(s.messages[7].parts[0].plain_text(), "All set.");
}
