//! Tests of the LangChain parser over the generated sample and hand-made fixtures.

use std::path::Path;

use crate::formats::load_path;
use crate::session::{Format, Part, Role, Session};

fn load(rel: &str) -> Session {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    match load_path(&path, None) {
        Ok(s) => s,
        Err(e) => panic!("{rel}: {e}"),
    }
}

fn roles(s: &Session) -> Vec<Role> {
    s.messages.iter().map(|m| m.role).collect()
}

fn kinds(s: &Session, i: usize) -> Vec<&'static str> {
    s.messages[i].parts.iter().map(Part::kind).collect()
}

fn call(s: &Session, i: usize, n: usize) -> (String, String, String, bool) {
    match s.messages[i]
        .parts
        .iter()
        .filter(|p| p.kind() == "tool_call")
        .nth(n)
    {
        Some(Part::ToolCall {
            id,
            name,
            arguments,
            server,
        }) => (id.clone(), name.clone(), arguments.clone(), *server),
        other => panic!("message {i} call {n}: {other:?}"),
    }
}

fn result(s: &Session, i: usize) -> (String, String, Option<bool>) {
    match s.messages[i]
        .parts
        .iter()
        .find(|p| p.kind() == "tool_result")
    {
        Some(
            p @ Part::ToolResult {
                call_id, is_error, ..
            },
        ) => (call_id.clone(), p.plain_text(), *is_error),
        other => panic!("message {i}: {other:?}"),
    }
}

#[test]
fn generated_sample_maps_messages_calls_and_usage() {
    let s = load("../shared/samples/frameworks/langchain_messages_to_dict.json");
    assert_eq!(s.format, Format::LANGCHAIN);
    assert_eq!(s.source.records, 6);
    use Role::*;
    assert_eq!(roles(&s), [System, User, Assistant, Tool, Tool, Assistant]);
    assert_eq!(kinds(&s, 1), ["text", "image"]);
    match &s.messages[1].parts[1] {
        Part::Image(img) => assert_eq!(
            (img.media_type.as_deref(), img.bytes),
            (Some("image/png"), Some(8))
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(kinds(&s, 2), ["reasoning", "text", "tool_call"]);
    assert_eq!(s.messages[2].parts[0].plain_text(), "I should call ls.");
    assert_eq!(
        call(&s, 2, 0),
        (
            "call_1".into(),
            "ls".into(),
            r#"{"path":"."}"#.into(),
            false
        )
    );
    let u = s.messages[2].usage.clone().unwrap_or_default();
    assert_eq!(
        (u.input, u.output, u.total),
        (Some(120), Some(15), Some(135))
    );
    assert_eq!((u.cache_read, u.cache_write), (Some(100), Some(0)));
    assert!(u.input_includes_cache);
    assert_eq!(s.messages[2].model.as_deref(), Some("claude-sonnet-4"));
    assert_eq!(s.messages[2].id.as_deref(), Some("msg_1"));
    assert_eq!(
        result(&s, 3),
        ("call_1".into(), "a.txt\nb.txt".into(), Some(false))
    );
    assert_eq!(
        result(&s, 4),
        ("call_2".into(), "permission denied".into(), Some(true))
    );
    let last = s.messages[5].usage.clone().unwrap_or_default();
    assert_eq!(
        (last.input, last.output, last.cache_read),
        (Some(150), Some(4), None)
    );
    assert!(s.marks.is_empty());
    assert_eq!(s.model.as_deref(), Some("claude-sonnet-4"));
}

#[test]
fn provider_blocks_invalid_calls_and_legacy_functions() {
    let s = load("fixtures/langchain/anthropic-openai-mix.json");
    assert_eq!(s.format, Format::LANGCHAIN);
    use Role::*;
    assert_eq!(
        roles(&s),
        [System, User, Assistant, Tool, Assistant, Tool, Event, Assistant, Tool, Assistant]
    );
    match &s.messages[1].parts[1] {
        Part::Image(img) => assert_eq!((img.width, img.bytes), (Some(1), Some(70))),
        other => panic!("{other:?}"),
    }
    // The Anthropic tool_use block and tool_calls hold the same call: kept once.
    assert_eq!(kinds(&s, 2), ["reasoning", "text", "tool_call"]);
    assert_eq!(call(&s, 2, 0).0, "toolu_01QXbL4mA6dC7eF8gH9iJ0kL");
    assert_eq!(
        s.messages[2].usage.as_ref().and_then(|u| u.cache_read),
        Some(1792)
    );
    assert_eq!(kinds(&s, 3), ["tool_result"]);
    match &s.messages[3].parts[0] {
        Part::ToolResult { content, .. } => {
            assert_eq!(
                content.iter().map(Part::kind).collect::<Vec<_>>(),
                ["text", "image"]
            )
        }
        other => panic!("{other:?}"),
    }
    // An invalid call keeps its raw argument string.
    assert_eq!(
        call(&s, 4, 0),
        (
            "call_calc1".into(),
            "calc".into(),
            "{\"expr\": 2+".into(),
            false
        )
    );
    assert_eq!(result(&s, 5).2, Some(true));
    // A chat message in a role no provider takes is kept as an event named after the role.
    assert!(matches!(&s.messages[6].parts[0], Part::Opaque { kind, .. } if kind == "critic"));
    // Legacy function_call and its function result share a synthesized id.
    assert_eq!(call(&s, 7, 0).0, "7:function_call");
    assert_eq!(s.messages[7].usage, None);
    assert_eq!(
        result(&s, 8),
        ("7:function_call".into(), "12:00".into(), None)
    );
    // Anthropic server tool: a server call and its result in the assistant message.
    assert_eq!(kinds(&s, 9), ["tool_call", "tool_result", "text"]);
    assert!(call(&s, 9, 0).3);
    assert_eq!(result(&s, 9).0, "srvtoolu_01Ab2Cd3Ef4Gh5Ij6Kl7Mn8O");
    assert_eq!(s.messages[9].client_calls().count(), 0);
    assert_eq!(
        s.messages[9].usage.as_ref().and_then(|u| u.cache_write),
        Some(512)
    );
    assert_eq!(s.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
}

#[test]
fn jsonl_v1_blocks_bad_line_and_unknown_records() {
    let s = load("fixtures/langchain/v1-blocks.jsonl");
    assert_eq!(s.format, Format::LANGCHAIN);
    assert_eq!(s.source.records, 7);
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 3);
    use Role::*;
    assert_eq!(roles(&s), [User, Assistant, Event, Event, Tool, Assistant]);
    assert_eq!(kinds(&s, 1), ["reasoning", "text", "tool_call"]);
    assert_eq!(
        call(&s, 1, 0),
        (
            "call_v1book".into(),
            "book_hotel".into(),
            r#"{"city":"Oslo","day":"Friday"}"#.into(),
            false
        )
    );
    assert_eq!(
        s.messages[1].usage.as_ref().and_then(|u| u.reasoning),
        Some(128)
    );
    for (i, kind, source) in [(2, "remove", 3), (3, "audit_log", 4)] {
        assert!(matches!(&s.messages[i].parts[0], Part::Opaque { kind: k, .. } if k == kind));
        assert_eq!(s.messages[i].source_index, source);
    }
    assert_eq!(
        result(&s, 4),
        (
            "call_v1book".into(),
            "Booked: Hotel Continental, Friday.".into(),
            Some(false)
        )
    );
    assert_eq!(s.messages[5].source_index, 6);
    assert_eq!(
        s.messages[5].usage.as_ref().and_then(|u| u.total),
        Some(1141)
    );
}
