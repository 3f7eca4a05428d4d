use std::path::{Path, PathBuf};

use crate::formats::load_path;
use crate::session::{Format, Part, Role, Session};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn load(rel: &str) -> Session {
    load_path(&root().join(rel), None).unwrap()
}

fn call_ids(session: &Session, index: usize) -> Vec<String> {
    session.messages[index]
        .client_calls()
        .map(|(id, _)| id.to_string())
        .collect()
}

fn result(session: &Session, index: usize) -> (String, Option<bool>, String) {
    match &session.messages[index].parts[..] {
        [part @ Part::ToolResult {
            call_id, is_error, ..
        }] => (call_id.clone(), *is_error, part.plain_text()),
        other => panic!("message {index} is not one tool result: {other:?}"),
    }
}

#[test]
fn real_goal_events_map_actions_observations_and_usage() {
    let s = load("../shared/samples/openhands/v1_sdk/goal-events.jsonl");
    assert_eq!(s.format, Format::OPENHANDS);
    assert_eq!(s.source.records, 10);
    assert!(s.source.skipped.is_empty());
    // Stats updates and execution_status are consumed: only actions and observations remain.
    let sources: Vec<usize> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![3, 4, 6, 8, 9]);
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    use Role::*;
    assert_eq!(roles, vec![Assistant, Tool, Tool, Assistant, Tool]);
    assert_eq!(s.model.as_deref(), Some("litellm_proxy/minimax-m2.7"));
    // accumulated context_window is 0 in this run: nothing reported.
    assert_eq!(s.reported_window, None);

    let first = &s.messages[0];
    assert_eq!(call_ids(&s, 0), vec!["chatcmpl-tool-9d0341c7a033ae28"]);
    assert_eq!(first.tool_names(), vec!["terminal"]);
    assert_eq!(
        first.id.as_deref(),
        Some("e54cbba2-3be2-4494-aa13-83af6044c5a7")
    );
    let kinds: Vec<&str> = first.parts.iter().map(Part::kind).collect();
    assert_eq!(kinds, vec!["reasoning", "text", "tool_call"]);
    match &first.parts[0] {
        Part::Reasoning { text, opaque_len } => {
            assert_eq!(text.len(), 305);
            assert_eq!(*opaque_len, 0);
        }
        other => panic!("{other:?}"),
    }
    match &first.parts[2] {
        Part::ToolCall { arguments, .. } => assert!(arguments.starts_with(
            "{\"security_risk\": \"LOW\", \"summary\": \"Build session URL from environment\""
        )),
        other => panic!("{other:?}"),
    }
    // Usage = difference of the cumulative counters written just before the action.
    let usage = first.usage.as_ref().unwrap();
    assert_eq!((usage.input, usage.output), (Some(35299), Some(185)));
    assert_eq!(usage.cache_read, Some(1115));
    assert!(usage.input_includes_cache);
    assert_eq!(first.model.as_deref(), Some("litellm_proxy/minimax-m2.7"));

    assert_eq!(result(&s, 1).0, "chatcmpl-tool-9d0341c7a033ae28");
    assert_eq!(result(&s, 1).1, Some(true));
    // An observation whose action is missing from this truncated log is kept as is.
    assert_eq!(result(&s, 2).0, "chatcmpl-tool-9051d3d10f914188");
    assert_eq!(result(&s, 2).1, Some(true));
    assert_eq!(result(&s, 4).1, Some(false));
    assert!(result(&s, 4)
        .2
        .starts_with("SESSION_URL=<secret-hidden>\nTraceback"));

    // The update at line 5 belongs to the missing action; line 7's to the action at line 8.
    let second = s.messages[3].usage.as_ref().unwrap();
    assert_eq!((second.input, second.output), (Some(35984), Some(192)));
    assert_eq!(second.cache_read, Some(33657));
    let raw = s.raw_record(&s.messages[3]).unwrap();
    assert!(raw.starts_with(b"{\"id\":\"1eb65bb3-22e7-473f-855c-2dcf26ae8e08\""));
    assert!(raw.ends_with(b"\"kind\":\"ActionEvent\"}"));
}

#[test]
fn conversation_directory_with_parallel_calls_and_condensation() {
    let s = load("fixtures/openhands/conversation");
    assert_eq!(s.format, Format::OPENHANDS);
    assert_eq!(
        s.id.as_deref(),
        Some("3f2a9c1e-5b7d-4e8f-a1b2-c3d4e5f60718")
    );
    assert_eq!(
        s.model.as_deref(),
        Some("anthropic/claude-sonnet-4-5-20250929")
    );
    assert_eq!(s.reported_window, Some(200_000));
    assert_eq!(s.source.records, 26);
    // The half-written last event file is reported by name, at its 1-based position.
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 26);
    assert!(s.source.skipped[0]
        .reason
        .starts_with("event-00025-74c9df6a-cc01-4cdd-9474-031b7f26144b.json: invalid JSON"));

    let roles: Vec<&str> = s.messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(
        roles,
        vec![
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "tool",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "event",
            "assistant"
        ]
    );
    let sources: Vec<usize> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(
        sources,
        vec![0, 1, 4, 5, 7, 9, 10, 12, 14, 15, 17, 18, 20, 21, 22, 24]
    );

    // System prompt plus the tool definitions' JSON.
    let system = &s.messages[0];
    assert_eq!(system.parts.len(), 2);
    assert!(system.parts[1]
        .plain_text()
        .starts_with("[{\"description\":\"Execute a bash command"));

    // Thinking blocks win over the identical reasoning_content.
    let first = &s.messages[2];
    let kinds: Vec<&str> = first.parts.iter().map(Part::kind).collect();
    assert_eq!(kinds, vec!["reasoning", "text", "tool_call"]);
    let u = first.usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_read, u.cache_write),
        (Some(2510), Some(88), Some(0), Some(2400))
    );

    // Two ActionEvents of one response are one assistant message with two calls.
    let parallel = &s.messages[4];
    assert_eq!(parallel.source_indices, vec![7, 8]);
    assert_eq!(call_ids(&s, 4), vec!["toolu_02GhIjKl", "toolu_03MnOpQr"]);
    assert_eq!(parallel.tool_names(), vec!["file_editor", "terminal"]);
    let u = parallel.usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_read),
        (Some(2720), Some(145), Some(2400))
    );
    assert_eq!(result(&s, 5).0, "toolu_02GhIjKl");
    // A failing command is not an error result unless the observation says so.
    let (call, is_error, text) = result(&s, 6);
    assert_eq!((call.as_str(), is_error), ("toolu_03MnOpQr", Some(false)));
    assert!(text.contains("1 failed, 1 passed"));

    // The condensation: a mark before the summary message, which sits at its own position.
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(
        (mark.kind.as_str(), mark.source_index, mark.before_message),
        ("condensation", 12, 7)
    );
    let summary = mark.summary.as_deref().unwrap();
    assert!(summary.starts_with("USER_CONTEXT: fix calc.py"));
    assert_eq!(
        s.messages[7].parts,
        vec![Part::Summary {
            text: summary.to_string()
        }]
    );
    // The summarizer's own spend (condenser usage id) is on no message.
    let u = s.messages[8].usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_write),
        (Some(3120), Some(96), Some(1200))
    );

    // An invalid call: the action is kept, the scaffold's error is its result.
    // (its thought is one empty text, which is no part)
    match &s.messages[10].parts[..] {
        [Part::ToolCall { arguments, .. }] => {
            assert_eq!(
                arguments,
                "{\"command\": \"python -m pytest -q\", \"timeout\": \"soon\"}"
            )
        }
        other => panic!("{other:?}"),
    }
    let (call, is_error, text) = result(&s, 11);
    assert_eq!((call.as_str(), is_error), ("toolu_05YzAbCd", Some(true)));
    assert!(text.starts_with("Error validating args"));
    let (call, is_error, text) = result(&s, 13);
    assert_eq!((call.as_str(), is_error), ("toolu_06EfGhIj", Some(true)));
    assert_eq!(
        text,
        "Action rejected: Do not install packages; just run the tests."
    );

    // An event kind ctxray does not know is kept, not dropped.
    match &s.messages[14].parts[..] {
        [Part::Opaque { kind, raw }] => {
            assert_eq!(kind, "WorkspaceCheckpointEvent");
            assert!(raw.contains("\"checkpoint\":\"after-fix\""));
        }
        other => panic!("{other:?}"),
    }
    let last = &s.messages[15];
    assert_eq!(last.usage.as_ref().unwrap().input, Some(3800));
    assert_eq!(last.parts.len(), 1);
    // Raw ranges point into the concatenated event files.
    let raw = String::from_utf8(s.raw_record(&s.messages[7]).unwrap().into_owned()).unwrap();
    assert!(raw.starts_with("{\n  \"id\": \"b64ce422"));
    assert!(raw.ends_with("\"kind\": \"Condensation\"\n}"));
}

#[test]
fn jsonl_with_a_malformed_line_keeps_the_rest() {
    let s = load("fixtures/openhands/events-malformed-line.jsonl");
    assert_eq!(s.format, Format::OPENHANDS);
    assert_eq!(s.source.records, 10);
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 5);
    assert_eq!(s.model.as_deref(), Some("openai/gpt-5-mini"));
    assert_eq!(s.reported_window, Some(272_000));
    let sources: Vec<usize> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![0, 1, 3, 5, 9]);

    // Static prompt, dynamic context, tools.
    assert_eq!(s.messages[0].parts.len(), 3);
    assert!(s.messages[0].parts[1]
        .plain_text()
        .starts_with("<RUNTIME_INFO>"));
    match &s.messages[1].parts[..] {
        [Part::Text { .. }, Part::Image(img)] => {
            assert_eq!((img.width, img.height), (Some(1), Some(1)));
            assert_eq!(img.media_type.as_deref(), Some("image/png"));
        }
        other => panic!("{other:?}"),
    }
    match &s.messages[2].parts[..] {
        [Part::Reasoning {
            text,
            opaque_len: 0,
        }, Part::Reasoning {
            text: redacted,
            opaque_len,
        }, Part::Text { .. }, Part::ToolCall {
            id,
            name,
            arguments,
            server,
        }] => {
            assert_eq!(text, "Need the site's logo to compare.");
            assert!(redacted.is_empty());
            assert_eq!(*opaque_len, "EmwKAhgBEgy3vA9Zr0Pq1m2k".len());
            assert_eq!(
                (id.as_str(), name.as_str()),
                ("call_Xk3v9", "fetch_screenshot")
            );
            assert_eq!(arguments, "{\"url\":\"https://example.com\"}");
            assert!(!server);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.messages[2].usage.as_ref().unwrap().input, Some(1800));
    match &s.messages[3].parts[..] {
        [Part::ToolResult {
            call_id,
            content,
            is_error,
        }] => {
            assert_eq!(call_id, "call_Xk3v9");
            assert_eq!(*is_error, Some(false));
            let kinds: Vec<&str> = content.iter().map(Part::kind).collect();
            assert_eq!(kinds, vec!["text", "image"]);
        }
        other => panic!("{other:?}"),
    }
    let last = &s.messages[4];
    match &last.parts[0] {
        Part::Reasoning { text, opaque_len } => {
            assert_eq!(text, "Compared the two images; same wordmark.");
            assert_eq!(
                *opaque_len,
                "gAAAAABpC0ZQ3t9yQ1n5VxR4k2mJw8sT0bE6aL7cD9fH".len()
            );
        }
        other => panic!("{other:?}"),
    }
    let u = last.usage.as_ref().unwrap();
    assert_eq!((u.input, u.output), (Some(2100), Some(45)));
}

#[test]
fn a_directory_without_events_is_not_a_conversation() {
    // The sample directory holds base_state.json but no events/.
    let dir = root().join("../shared/samples/openhands/v1_sdk");
    assert!(super::load_dir(&dir).unwrap().is_none());
}

/// What a reading of a directory of events holds, its path aside.
fn read_as(s: &Session) -> String {
    format!(
        "{:?} {:?} {:?} {} {:?} {:?} {:?}",
        s.messages, s.marks, s.source.skipped, s.source.records, s.id, s.model, s.buffer
    )
}

/// The CLI leaves its runs as event files at the top level of a directory, without `events/`
/// or `base_state.json`: they read exactly as the same files under `events/`, and the
/// `events/` directory given itself reads as its conversation (whose state is beside it).
#[test]
fn every_directory_layout_of_the_same_events_reads_the_same() {
    let conversation = root().join("fixtures/openhands/conversation");
    let top = tempfile::tempdir().unwrap();
    let nested = tempfile::tempdir().unwrap();
    std::fs::create_dir(nested.path().join("events")).unwrap();
    for entry in std::fs::read_dir(conversation.join("events")).unwrap() {
        let from = entry.unwrap().path();
        let name = from.file_name().unwrap();
        std::fs::copy(&from, top.path().join(name)).unwrap();
        std::fs::copy(&from, nested.path().join("events").join(name)).unwrap();
    }
    let at_top = load_path(top.path(), None).unwrap();
    let under_events = load_path(nested.path(), None).unwrap();
    assert_eq!(at_top.format, Format::OPENHANDS);
    assert_eq!(at_top.source.records, 26);
    assert!(!at_top.messages.is_empty());
    assert_eq!(read_as(&at_top), read_as(&under_events));
    let forced = load_path(top.path(), Some(Format::OPENHANDS)).unwrap();
    assert_eq!(read_as(&forced), read_as(&at_top));

    let whole = load_path(&conversation, None).unwrap();
    let events_only = load_path(&conversation.join("events"), None).unwrap();
    assert_eq!(read_as(&events_only), read_as(&whole));
    assert_eq!(whole.model, events_only.model);
    assert!(whole.model.is_some());
}

/// The session picker finds a CLI run (event files at the top of its directory) as it finds a
/// conversation directory, titled by its first user message.
#[test]
fn the_picker_finds_a_directory_of_top_level_event_files() {
    let home = tempfile::tempdir().unwrap();
    let run = home.path().join(".openhands/conversations/5d1e");
    std::fs::create_dir_all(&run).unwrap();
    let events = root().join("fixtures/openhands/conversation/events");
    for entry in std::fs::read_dir(&events).unwrap() {
        let from = entry.unwrap().path();
        std::fs::copy(&from, run.join(from.file_name().unwrap())).unwrap();
    }
    std::fs::create_dir_all(home.path().join(".openhands/conversations/empty/misc")).unwrap();
    let loc = crate::live::discover::Locations::under_home(home.path());
    let found = crate::live::discover::discover(&loc).found;
    let paths: Vec<&Path> = found.iter().map(|f| f.path.as_path()).collect();
    assert_eq!(paths, vec![run.as_path()]);
    assert_eq!(found[0].tool, Format::OPENHANDS);
    assert!(found[0].title.is_some());
}

#[test]
fn event_file_names_follow_the_sdk_pattern() {
    use super::event_file_index as idx;
    assert_eq!(
        idx("event-00012-b64ce422-8c38-4b29-98f1-35d25f557203.json"),
        Some(12)
    );
    assert_eq!(idx("event-100000-b64ce422.json"), Some(100_000));
    assert_eq!(idx("event-0012-b64ce422.json"), None);
    assert_eq!(idx(".eventlog-count-26.marker"), None);
    assert_eq!(idx("event-00001-zz.json"), None);
}

#[test]
fn one_event_object_and_an_array_parse() {
    let one = br#"{"id":"9b1c0f3e-1111-4222-8333-944455556666","timestamp":"2025-11-05T10:00:00","source":"user","llm_message":{"role":"user","content":[{"type":"text","text":"hi"}]},"kind":"MessageEvent"}"#;
    let s = crate::formats::load_bytes(one.to_vec(), None, "one.json", None).unwrap();
    assert_eq!(s.format, Format::OPENHANDS);
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.raw_record(&s.messages[0]).unwrap(), &one[..]);

    let mut array = b"[\n".to_vec();
    array.extend_from_slice(one);
    array.extend_from_slice(b",\n{\"id\":\"x\",\"source\":\"agent\",\"kind\":\"PauseEvent\"}\n]\n");
    let s = crate::formats::load_bytes(array, None, "a.json", None).unwrap();
    assert_eq!(s.source.records, 2);
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.raw_record(&s.messages[0]).unwrap(), &one[..]);
}

#[test]
fn hostile_values_never_panic() {
    let lines = [
        r#"{"kind":"ActionEvent","source":"agent","id":"a","thought":5,"tool_call":"x","thinking_blocks":{"a":1},"llm_response_id":7}"#,
        r#"{"kind":"ObservationEvent","source":"environment","id":"b","observation":[1,2],"tool_call_id":3}"#,
        r#"{"kind":"ConversationStateUpdateEvent","source":"environment","id":"c","key":"stats","value":{"usage_to_metrics":{"default":5,"x":{"accumulated_token_usage":{"prompt_tokens":-3,"completion_tokens":"a"}}}}}"#,
        r#"{"kind":"ConversationStateUpdateEvent","source":"environment","id":"c2","key":"stats","value":{"usage_to_metrics":{"x":{"accumulated_token_usage":{"prompt_tokens":0}}}}}"#,
        r#"{"kind":"Condensation","id":"d","source":"environment","summary":7,"forgotten_event_ids":"all"}"#,
        r#"{"kind":"MessageEvent","id":"e","source":"user","llm_message":{"role":"wizard","content":[{"type":"image","image_urls":"x"},3,{"type":"text","text":null}]}}"#,
        r#"{"kind":5,"id":"f","source":"agent"}"#,
        r#"{"kind":"SystemPromptEvent","id":"g","source":"agent","tools":"none","system_prompt":[]}"#,
        r#"{"kind":"ConversationStateUpdateEvent","id":"h","source":"environment","key":"full_state","value":[]}"#,
    ];
    let s = crate::formats::load_bytes(
        lines.join("\n").into_bytes(),
        None,
        "h.jsonl",
        Some(Format::OPENHANDS),
    )
    .unwrap();
    assert_eq!(s.source.records, 9);
    let roles: Vec<&str> = s.messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, vec!["assistant", "tool", "user", "event", "system"]);
    assert_eq!(s.marks.len(), 1);
    assert!(s.messages.iter().all(|m| m.usage.is_none()));
}
