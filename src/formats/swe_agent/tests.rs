use std::path::{Path, PathBuf};

use crate::formats::{load_bytes, load_path};
use crate::session::{Format, Part, Role, Session};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn load(rel: &str) -> Session {
    load_path(&root().join(rel), None).unwrap()
}

/// (messages, client tool calls, tool results, results whose call is in the session).
fn counts(s: &Session) -> (usize, usize, usize, usize) {
    let calls: Vec<&str> = s
        .messages
        .iter()
        .flat_map(|m| m.client_calls().map(|(id, _)| id))
        .collect();
    let results: Vec<&str> = s.messages.iter().flat_map(|m| m.result_ids()).collect();
    let paired = results.iter().filter(|id| calls.contains(id)).count();
    (s.messages.len(), calls.len(), results.len(), paired)
}

fn roles(s: &Session) -> Vec<&'static str> {
    s.messages.iter().map(|m| m.role.as_str()).collect()
}

/// SWE-agent 1.x with function calling: tool calls on assistant items, results on `tool`
/// items answering `tool_call_ids[0]`.
#[test]
fn function_calling_trajectory_pairs_every_result() {
    let s = load("fixtures/swe-agent/6e44b9__sweagenttestrepo-1c2844.traj");
    assert_eq!(s.format, Format::SWE_AGENT);
    assert!(s.source.skipped.is_empty());
    // python3 -c "import json,sys; h=json.load(open(sys.argv[1]))['history']; print(len(h),
    //   sum(len(m.get('tool_calls') or []) for m in h), sum(m['role']=='tool' for m in h))"
    //   fixtures/swe-agent/6e44b9__sweagenttestrepo-1c2844.traj   → 10 4 4
    assert_eq!(counts(&s), (10, 4, 4, 4));
    assert_eq!(s.source.records, 10);
    assert_eq!(
        roles(&s),
        vec![
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool"
        ]
    );
    assert_eq!(s.model.as_deref(), Some("gpt-4o"));
    let first = &s.messages[2];
    assert_eq!(first.tool_names(), vec!["find_file"]);
    match &first.parts[..] {
        [Part::Text { text }, Part::ToolCall { id, arguments, .. }] => {
            assert!(text.starts_with("To start addressing this issue"));
            assert_eq!(id, "call_fJuazlMUN5fQDQ73G6XSpYpx");
            assert_eq!(arguments, "{\"file_name\":\"missing_colon.py\"}");
        }
        other => panic!("{other:?}"),
    }
    // Each message's raw record is its history item.
    let raw = s.raw_record(&s.messages[3]).unwrap();
    assert!(raw.starts_with(b"{"));
    assert!(std::str::from_utf8(&raw)
        .unwrap()
        .contains("call_fJuazlMUN5fQDQ73G6XSpYpx"));
}

/// SWE-agent 0.x without function calling: observations are user messages, the
/// demonstration (`is_demo`) is part of what the model is sent.
#[test]
fn pre_function_calling_trajectory_reads_its_history() {
    let s = load("fixtures/swe-agent/swe-agent__test-repo-i1.traj");
    assert_eq!(s.format, Format::SWE_AGENT);
    assert!(s.source.skipped.is_empty());
    // python3 -c "import json,sys; h=json.load(open(sys.argv[1]))['history']; print(len(h),
    //   sum(len(m.get('tool_calls') or []) for m in h), sum(m['role']=='tool' for m in h),
    //   sum(m['role']=='user' for m in h))" fixtures/swe-agent/swe-agent__test-repo-i1.traj
    //   → 12 0 0 6
    assert_eq!(counts(&s), (12, 0, 0, 0));
    let users = s.messages.iter().filter(|m| m.role == Role::User).count();
    assert_eq!(users, 6);
    assert_eq!(s.model, None);
    assert!(s.messages[1].parts[0]
        .plain_text()
        .starts_with("Here is a demonstration"));
}

/// Without `history`, the steps are read: a response and its observation per step.
#[test]
fn trajectory_steps_are_read_when_history_is_absent() {
    let doc = r#"{"trajectory": [
        {"action": "ls", "observation": "a.py", "response": "Let me look.\n```\nls\n```", "thought": "Let me look.", "state": {}},
        {"action": "submit", "observation": "", "response": "Done.", "thought": "Done.", "state": {}},
        {"action": "noop", "state": {}}
    ], "info": {"exit_status": "submitted", "model_stats": {"tokens_sent": 10}}}"#;
    let s = load_bytes(doc.as_bytes().to_vec(), None, "t.traj", None).unwrap();
    assert_eq!(s.format, Format::SWE_AGENT);
    assert_eq!(roles(&s), vec!["assistant", "user", "assistant", "user"]);
    assert_eq!(s.source.records, 3);
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 3);
}

/// History items that are not messages are reported with their position, never made empty
/// messages; odd values never panic.
#[test]
fn items_that_are_not_messages_are_reported() {
    let doc = r#"{"history": [
        {"role": "system", "content": "sys", "agent": "main", "message_type": "system_prompt"},
        {"role": "assistant", "agent": "main", "message_type": "action"},
        {"role": "tool", "content": "out", "agent": "main", "message_type": "observation"},
        {"role": "wizard", "content": "x", "agent": "main"},
        {"role": "assistant", "content": [{"type": "text", "text": "hi"}, {"type": "image_url"}], "agent": "main",
         "tool_calls": [{"id": 7, "function": {"name": "bash", "arguments": {"command": "ls"}}}]},
        {"role": "tool", "content": "ok", "tool_call_ids": ["0"], "agent": "main"},
        {"role": "user", "content": 5, "agent": "main"}
    ]}"#;
    let s = load_bytes(doc.as_bytes().to_vec(), None, "h.traj", None).unwrap();
    assert_eq!(s.format, Format::SWE_AGENT);
    let lines: Vec<usize> = s.source.skipped.iter().map(|k| k.line).collect();
    assert_eq!(lines, vec![2, 3, 4]);
    assert_eq!(roles(&s), vec!["system", "assistant", "tool", "user"]);
    assert_eq!(s.messages[1].parts.len(), 3);
}

/// A chat log that merely holds a `history` of plain messages is not taken for SWE-agent.
#[test]
fn plain_histories_are_not_swe_agent() {
    let doc = r#"{"history": [{"role": "user", "content": "hi"}]}"#;
    let s = load_bytes(doc.as_bytes().to_vec(), None, "c.json", None);
    assert_ne!(s.ok().map(|s| s.format), Some(Format::SWE_AGENT));
}

/// A retry loop's trajectory: every attempt a child, the chosen one also the document's own.
#[test]
fn retry_loop_attempts_are_children() {
    let run = |text: &str| {
        format!(
            r#"{{"history": [{{"role": "system", "content": "sys", "agent": "main", "message_type": "system_prompt"}},
            {{"role": "assistant", "content": "{text}", "agent": "main", "message_type": "action"}}],
            "trajectory": [], "info": {{}}}}"#
        )
    };
    let chosen = format!(
        r#"{{"attempts": [{}, {}, {{"info": {{}}}}], "history": [{{"role": "user", "content": "u", "agent": "main"}}], "info": {{"best_attempt_idx": 1}}}}"#,
        run("first"),
        run("second")
    );
    let s = load_bytes(chosen.into_bytes(), None, "r.traj", None).unwrap();
    assert_eq!(s.format, Format::SWE_AGENT);
    assert_eq!(roles(&s), vec!["user"]);
    let titles: Vec<&str> = s
        .children
        .iter()
        .filter_map(|c| c.title.as_deref())
        .collect();
    assert_eq!(titles, vec!["attempt 1", "attempt 2", "attempt 3"]);
    assert_eq!(roles(&s.children[1]), vec!["system", "assistant"]);
    assert_eq!(s.children[1].messages[1].parts[0].plain_text(), "second");
    let raw = s.children[1]
        .raw_record(&s.children[1].messages[1])
        .unwrap();
    assert!(std::str::from_utf8(&raw).unwrap().contains("second"));
    assert_eq!(s.source.skipped.len(), 1);
    assert!(s.source.skipped[0].reason.starts_with("attempt 3"));

    let unchosen = format!(r#"{{"attempts": [{}]}}"#, run("only"));
    let s = load_bytes(unchosen.into_bytes(), None, "u.traj", None).unwrap();
    assert_eq!(s.format, Format::SWE_AGENT);
    assert!(s.messages.is_empty());
    assert_eq!(s.children.len(), 1);
}
