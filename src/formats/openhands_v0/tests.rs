use std::path::Path;

use crate::formats::load_path;
use crate::session::{Format, Part, Role, Session};

fn load(rel: &str) -> Session {
    load_path(&Path::new(env!("CARGO_MANIFEST_DIR")).join(rel), None).unwrap()
}

fn roles(s: &Session) -> Vec<&'static str> {
    s.messages.iter().map(|m| m.role.as_str()).collect()
}

fn result(s: &Session, index: usize) -> (String, Option<bool>, String) {
    match &s.messages[index].parts[..] {
        [part @ Part::ToolResult {
            call_id, is_error, ..
        }] => (call_id.clone(), *is_error, part.plain_text()),
        other => panic!("message {index} is not one tool result: {other:?}"),
    }
}

fn calls(s: &Session, index: usize) -> Vec<(String, String, String)> {
    s.messages[index]
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall {
                id,
                name,
                arguments,
                ..
            } => Some((id.clone(), name.clone(), arguments.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn real_gui_trajectory() {
    let s = load("../shared/samples/openhands/v0_trajectory/basic_gui_mode.json");
    assert_eq!(s.format, Format::OPENHANDS_V0);
    assert_eq!(s.source.records, 18);
    assert!(s.source.skipped.is_empty());
    assert!(s.marks.is_empty());
    assert_eq!(s.model.as_deref(), Some("claude-3-5-sonnet-20241022"));
    // State changes, the init action and "No observation" events are consumed.
    let sources: Vec<usize> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![4, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    assert_eq!(
        roles(&s),
        vec![
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant"
        ]
    );
    assert!(s.messages[0].parts[0]
        .plain_text()
        .starts_with("I want to create a VueJS app"));
    assert_eq!(s.messages[0].parts.len(), 1, "empty image_urls add nothing");

    let first = &s.messages[1];
    assert_eq!(first.id.as_deref(), Some("7"));
    assert!(first.parts[0]
        .plain_text()
        .starts_with("I'll help you create a Vue.js application"));
    assert_eq!(
        calls(&s, 1),
        vec![(
            "toolu_01W9Z8jBctr8X2frZV9p1RYs".to_string(),
            "execute_bash".to_string(),
            "{\"command\": \"mkdir -p /workspace/todo-app\"}".to_string()
        )]
    );
    let u = first.usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.output, u.total),
        (Some(3439), Some(104), Some(3543))
    );
    assert_eq!((u.cache_read, u.cache_write), (Some(0), Some(3435)));
    assert!(u.input_includes_cache);
    let u = s.messages[3].usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.cache_read, u.cache_write),
        (Some(3601), Some(3435), Some(160))
    );
    assert_eq!(calls(&s, 3)[0].1, "str_replace_editor");
    assert_eq!(calls(&s, 3)[0].2.len(), 4169);

    assert_eq!(result(&s, 2).0, "toolu_01W9Z8jBctr8X2frZV9p1RYs");
    assert_eq!(result(&s, 2).1, Some(false), "exit code 0");
    assert_eq!(result(&s, 4).1, None, "an edit says nothing about errors");
    assert!(result(&s, 4)
        .2
        .starts_with("--- /workspace/todo-app/index.html"));
    assert_eq!(result(&s, 8).0, "toolu_01DwihWr4ooPZS1CGTLAWrFP");
    assert_eq!(result(&s, 8).1, Some(true), "exit code -1");

    let last = &s.messages[9];
    assert_eq!(last.role, Role::Assistant);
    assert!(last.usage.is_none());
    assert!(last.parts[0]
        .plain_text()
        .starts_with("I've created a complete Vue.js todo application"));
    let raw = String::from_utf8(s.raw_record(last).unwrap().into_owned()).unwrap();
    assert!(raw.starts_with("{\n    \"id\": 15,"));
    assert!(raw.ends_with('}'));
}

#[test]
fn fixture_with_parallel_calls_and_a_condensation() {
    let s = load("fixtures/openhands-v0/condensation-trajectory.json");
    assert_eq!(s.format, Format::OPENHANDS_V0);
    assert_eq!(s.source.records, 17);
    assert_eq!(
        roles(&s),
        vec![
            "system",
            "user",
            "user",
            "assistant",
            "tool",
            "tool",
            "assistant",
            "tool",
            "user",
            "assistant",
            "tool",
            "event",
            "assistant"
        ]
    );
    let sources: Vec<usize> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![0, 1, 3, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15]);

    // The system prompt and the tool definitions sent with it.
    assert_eq!(s.messages[0].parts.len(), 2);
    assert!(s.messages[0].parts[1]
        .plain_text()
        .starts_with("[{\"type\":\"function\""));
    match &s.messages[1].parts[..] {
        [Part::Text { .. }, Part::Image(img)] => assert_eq!(img.width, Some(1)),
        other => panic!("{other:?}"),
    }
    // Recall: the microagent knowledge that V0 renders into the prompt.
    assert_eq!(s.messages[2].parts.len(), 1);
    assert!(s.messages[2].parts[0]
        .plain_text()
        .contains("bbox_inches=\"tight\""));

    // Two actions of one response: one message, usage counted once.
    let parallel = &s.messages[3];
    assert_eq!(parallel.source_indices, vec![5, 6]);
    let ids: Vec<String> = calls(&s, 3).into_iter().map(|c| c.0).collect();
    assert_eq!(ids, vec!["toolu_01Vw3kq", "toolu_02Ls8mz"]);
    assert_eq!(
        parallel.parts[0].plain_text(),
        "I'll look at the plotting script and the workspace together."
    );
    let u = parallel.usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_write),
        (Some(4210), Some(131), Some(4206))
    );
    assert_eq!(result(&s, 4).0, "toolu_01Vw3kq");
    // This observation has no tool_call_metadata: its `cause` names the action.
    let (call, is_error, text) = result(&s, 5);
    assert_eq!((call.as_str(), is_error), ("toolu_02Ls8mz", Some(false)));
    assert!(text.starts_with("total 24"));
    assert_eq!(result(&s, 7).1, Some(true), "exit code 1");

    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(
        (mark.kind.as_str(), mark.source_index, mark.before_message),
        ("condensation", 11, 8)
    );
    let summary = mark.summary.clone().unwrap();
    assert!(summary.starts_with("The user wants the legend"));
    assert_eq!(s.messages[8].parts, vec![Part::Summary { text: summary }]);

    // An empty response text is no part; the error observation answers by `cause`.
    assert_eq!(s.messages[9].parts.len(), 1);
    assert_eq!(s.messages[9].usage.as_ref().unwrap().cache_read, Some(1400));
    assert_eq!(result(&s, 10).0, "toolu_04Ed2wq");
    assert_eq!(result(&s, 10).1, Some(true));
    match &s.messages[11].parts[..] {
        [Part::Opaque { kind, .. }] => assert_eq!(kind, "browse_snapshot_restore"),
        other => panic!("{other:?}"),
    }
    // finish is plain assistant text in V0, not a tool call.
    let finish = &s.messages[12];
    assert_eq!(finish.parts, vec![Part::text("The fix is in place.")]);
    assert_eq!(finish.usage.as_ref().unwrap().input, Some(3412));
}

#[test]
fn a_lone_object_is_one_record_and_kept() {
    // One stored event (`sessions/<sid>/events/<n>.json`, given with --from) is a one-record
    // trajectory.
    let one = br#"{"id": 4, "source": "user", "message": "hi", "action": "message", "args": {"content": "hi", "image_urls": null}}"#;
    let s = crate::formats::load_bytes(one.to_vec(), None, "4.json", Some(Format::OPENHANDS_V0))
        .unwrap();
    assert_eq!(s.format, Format::OPENHANDS_V0);
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.messages[0].role, Role::User);
    assert_eq!(s.raw_record(&s.messages[0]).unwrap(), &one[..]);
    // Forced onto something else, an object that is no event is kept as an Event.
    let other = b"{\"messages\": []}".to_vec();
    let s = crate::formats::load_bytes(other, None, "x.json", Some(Format::OPENHANDS_V0)).unwrap();
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.messages[0].role, Role::Event);
}

#[test]
fn hostile_values_never_panic() {
    let doc = br#"[
        {"id": 1, "source": "agent", "action": "run", "args": 3, "tool_call_metadata": {"model_response": {"choices": "x", "usage": {"prompt_tokens": "many"}}}},
        {"id": 2, "source": "agent", "observation": "run", "cause": "1", "content": 5, "extras": {"metadata": {"exit_code": "x"}}},
        {"id": "x", "source": "user", "action": "message", "args": 5},
        {"id": 3, "source": "agent", "action": "condensation", "args": {"summary": null}},
        {"id": 4, "source": "agent", "action": "finish", "args": {"thought": {"text": 9}}},
        {"id": 5, "source": "environment", "observation": "recall", "extras": {"microagent_knowledge": "none"}},
        7, null, {"source": "agent"}
    ]"#;
    let s = crate::formats::load_bytes(doc.to_vec(), None, "h.json", Some(Format::OPENHANDS_V0))
        .unwrap();
    assert_eq!(s.source.records, 9);
    let roles: Vec<&str> = s.messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(
        roles,
        vec![
            "assistant",
            "user",
            "user",
            "assistant",
            "event",
            "event",
            "event"
        ]
    );
    assert_eq!(s.marks.len(), 1);
}

#[test]
fn a_response_usage_counts_once_even_across_finish() {
    // One response made a `think` call and a `finish` call: V0 stores two actions.
    let response = r#"{"id": "chatcmpl-r1", "model": "gpt-4.1", "choices": [{"message": {"content": "Done.", "role": "assistant", "tool_calls": [
        {"id": "call_t", "type": "function", "function": {"name": "think", "arguments": "{\"thought\": \"ok\"}"}},
        {"id": "call_f", "type": "function", "function": {"name": "finish", "arguments": "{\"message\": \"Done.\"}"}}]}}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 30, "total_tokens": 930}}"#;
    let doc = format!(
        r#"[{{"id": 1, "source": "agent", "action": "think", "args": {{"thought": "ok"}}, "tool_call_metadata": {{"function_name": "think", "tool_call_id": "call_t", "model_response": {response}, "total_calls_in_response": 2}}}},
           {{"id": 2, "source": "agent", "observation": "think", "cause": 1, "content": "Your thought has been logged.", "extras": {{}}}},
           {{"id": 3, "source": "agent", "action": "finish", "args": {{"final_thought": "Done.", "thought": ""}}, "tool_call_metadata": {{"function_name": "finish", "tool_call_id": "call_f", "model_response": {response}, "total_calls_in_response": 2}}}}]"#
    );
    let s = crate::formats::load_bytes(doc.into_bytes(), None, "t.json", None).unwrap();
    assert_eq!(roles(&s), vec!["assistant", "tool", "assistant"]);
    assert_eq!(
        calls(&s, 0),
        vec![(
            "call_t".to_string(),
            "think".to_string(),
            "{\"thought\": \"ok\"}".to_string()
        )]
    );
    assert_eq!(result(&s, 1).0, "call_t");
    assert_eq!(s.messages[0].usage.as_ref().unwrap().input, Some(900));
    assert!(s.messages[2].usage.is_none());
    assert_eq!(s.messages[2].parts, vec![Part::text("Done.")]);
}
