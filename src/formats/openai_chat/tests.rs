//! Tests of the Chat Completions parser over the real OpenHands sample and hand-made fixtures.

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

fn calls(session: &Session, i: usize) -> Vec<(String, String, String)> {
    session.messages[i]
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

fn result(session: &Session, i: usize) -> (String, String, Option<bool>) {
    match &session.messages[i].parts[..] {
        [p @ Part::ToolResult {
            call_id, is_error, ..
        }] => (call_id.clone(), p.plain_text(), *is_error),
        other => panic!("message {i} is not one tool result: {other:?}"),
    }
}

#[test]
fn openhands_sample_is_a_bare_chat_array() {
    let s = load("../shared/samples/api_shapes/openhands-fncall-llm-message.json");
    assert_eq!(s.format, Format::OPENAI_CHAT);
    assert_eq!(s.messages.len(), 14);
    assert_eq!(s.source.records, 14);
    assert!(s.source.skipped.is_empty());
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        &roles[..4],
        &[Role::System, Role::User, Role::Assistant, Role::Tool]
    );
    assert_eq!(roles.iter().filter(|r| **r == Role::Tool).count(), 6);
    assert_eq!(s.messages[0].parts[0].plain_text().chars().count(), 10133);
    // Message 2: text plus one call, arguments byte for byte.
    let c = calls(&s, 2);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].0, "toolu_01AaHKJphyeTw3GFp4Xgiekv");
    assert_eq!(c[0].1, "str_replace_editor");
    assert!(c[0]
        .2
        .starts_with(r#"{"command": "create", "path": "/workspace/hello.py""#));
    // Message 8 has empty content: only the call is kept.
    assert_eq!(s.messages[8].parts.len(), 1);
    assert_eq!(calls(&s, 12)[0].1, "finish");
    let (id, text, err) = result(&s, 5);
    assert_eq!(id, "toolu_01MgS75uyxLSueHHFj1DXiRZ");
    assert_eq!(text.chars().count(), 1958);
    assert_eq!(err, None);
    for (i, m) in s.messages.iter().enumerate() {
        assert_eq!(m.source_index, i);
    }
    // The raw range of a message is exactly its record.
    let raw = s
        .raw_record(&s.messages[3])
        .map(|b| b.to_vec())
        .unwrap_or_default();
    let v: serde_json::Value = serde_json::from_slice(&raw).unwrap_or_default();
    assert_eq!(v["tool_call_id"], "toolu_01AaHKJphyeTw3GFp4Xgiekv");
}

#[test]
fn completion_log_final_turn_carries_usage_and_window() {
    let s = load("fixtures/openai-chat/completion-log.json");
    assert_eq!(s.format, Format::OPENAI_CHAT);
    assert_eq!(s.messages.len(), 6);
    assert_eq!(s.source.records, 6);
    assert_eq!(s.reported_window, Some(128_000));
    assert_eq!(s.model.as_deref(), Some("gpt-4.1-2025-04-14"));
    // Tools are appended to the system message as their compact JSON.
    let sys = &s.messages[0];
    assert_eq!(sys.role, Role::System);
    assert_eq!(sys.parts.len(), 2);
    assert!(sys.parts[1]
        .plain_text()
        .starts_with(r#"[{"type":"function","function":{"name":"execute_bash""#));
    // The image keeps its detail and size, not its payload.
    match &s.messages[1].parts[1] {
        Part::Image(img) => {
            assert_eq!(img.detail.as_deref(), Some("low"));
            assert_eq!((img.width, img.height), (Some(1), Some(1)));
            assert_eq!(img.media_type.as_deref(), Some("image/png"));
        }
        other => panic!("not an image: {other:?}"),
    }
    let a = &s.messages[2];
    assert!(
        matches!(&a.parts[0], Part::Reasoning { text, .. } if text.starts_with("The image is 1x1"))
    );
    let c = calls(&s, 2);
    assert_eq!(c.len(), 2);
    assert_eq!(c[1].0, "call_Zr2cV8mK1q");
    assert_eq!(result(&s, 4).0, "call_Zr2cV8mK1q");
    let last = &s.messages[5];
    assert_eq!(last.role, Role::Assistant);
    assert_eq!(last.source_index, 5);
    assert_eq!(
        last.id.as_deref(),
        Some("chatcmpl-BfYtQ2kR7nJ3aM9cXv0wLp4sT6eZ")
    );
    assert_eq!(last.timestamp.as_deref(), Some("2025-06-04T08:00:01.250Z"));
    let u = last.usage.clone().unwrap_or_default();
    assert_eq!(
        (u.input, u.output, u.total),
        (Some(1893), Some(27), Some(1920))
    );
    assert_eq!((u.cache_read, u.reasoning), (Some(1536), Some(0)));
    assert!(u.input_includes_cache);
    assert_eq!(u.context_input(), Some(1893));
    assert!(s.marks.is_empty());
}

#[test]
fn request_body_without_system_gets_a_tools_message() {
    let s = load("fixtures/openai-chat/request-body.json");
    assert_eq!(s.format, Format::OPENAI_CHAT);
    assert_eq!(s.messages.len(), 5);
    assert_eq!(s.model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(s.messages[0].role, Role::System);
    assert_eq!(s.messages[0].raw, None);
    assert!(s.messages[0].parts[0]
        .plain_text()
        .contains(r#""name":"get_weather""#));
    let user = &s.messages[1];
    assert_eq!(user.source_index, 0);
    assert!(
        matches!(&user.parts[1], Part::Opaque { kind, raw } if kind == "input_audio" && raw.contains("<84 chars>"))
    );
    match &user.parts[2] {
        Part::Image(img) => {
            assert_eq!(img.detail.as_deref(), Some("high"));
            assert!(img
                .url
                .as_deref()
                .is_some_and(|u| u.ends_with("Paris_skyline.jpg")));
        }
        other => panic!("not an image: {other:?}"),
    }
    // Arguments are the string as sent, whitespace and all.
    assert_eq!(calls(&s, 2)[0].2, "{\"city\":\"Paris\",\n \"unit\": \"c\"}");
    assert_eq!(s.messages[3].role, Role::Tool);
    assert_eq!(result(&s, 3).0, "call_weather_1");
}

#[test]
fn jsonl_with_legacy_functions_a_bad_line_and_unknown_records() {
    let s = load("fixtures/openai-chat/legacy-functions.jsonl");
    assert_eq!(s.format, Format::OPENAI_CHAT);
    assert_eq!(s.source.records, 10);
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 5);
    assert_eq!(s.messages.len(), 9);
    assert_eq!(s.messages[0].role, Role::Developer);
    // Legacy function calls get synthesized ids that their results point to.
    assert_eq!(calls(&s, 2)[0].0, "2:function_call");
    assert_eq!(result(&s, 3).0, "2:function_call");
    assert_eq!(s.messages[3].role, Role::Tool);
    // An unknown role and an unknown record type are kept as events.
    for (i, kind) in [(4, "critic"), (5, "checkpoint")] {
        let m = &s.messages[i];
        assert_eq!(m.role, Role::Event);
        assert!(matches!(&m.parts[0], Part::Opaque { kind: k, .. } if k == kind));
    }
    assert_eq!(s.messages[5].source_index, 6);
    assert_eq!(calls(&s, 6)[0].0, "7:function_call");
    assert_eq!(result(&s, 7).0, "7:function_call");
    assert_eq!(s.messages[8].source_index, 9);
}

#[test]
fn not_a_chat_document_is_refused() {
    let loaded = crate::formats::Loaded::new(br#"{"foo": [1, 2]}"#.to_vec(), None, "x.json");
    let result = loaded.and_then(|l| crate::formats::parse(Format::OPENAI_CHAT, &l));
    assert!(result.is_err());
}

/// Wrong types everywhere, non-base64 payloads cut mid-character: every list format must
/// either parse or refuse, never panic.
#[test]
fn hostile_values_never_panic_in_any_list_format() {
    let evil = format!("A{}", "é".repeat(40_000));
    let docs = [
        serde_json::json!([1, "x", null, {"role": 5}, {"role": "assistant", "content": {"a": 1},
            "tool_calls": "x", "function_call": [], "thinking_blocks": [1, {"type": "x"}]},
            {"role": "tool", "content": [null, 3]}, {"role": "function"},
            {"role": "user", "content": [{"type": "image_url", "image_url": format!("data:image/png;base64,{evil}")}]}]),
        serde_json::json!({"system": [1, {"type": "text"}], "tools": 3, "messages": [
            {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "data": evil}},
                {"type": "tool_result", "content": {"type": "x_error"}}, {"type": "document", "source": 1}, 7]},
            {"role": "assistant", "content": [{"type": "compaction"}], "usage": {"iterations": [1, {"type": "compaction"}]}}]}),
        serde_json::json!([{"kind": "request", "parts": [1, null, {"part_kind": "user-prompt",
            "content": {"kind": "binary", "data": evil, "media_type": "image/png"}},
            {"part_kind": "retry-prompt", "content": [1, {"loc": 3}]}], "instructions": 5},
            {"kind": "response", "parts": {"a": 1}, "usage": "x"}, {"kind": "response", "parts": [{"part_kind": "file"}]}]),
        serde_json::json!([{"type": "ai", "data": {"content": [{"type": "image", "base64": evil}, {"type": "reasoning"}, 4],
            "tool_calls": [1, {"args": 2}], "additional_kwargs": {"tool_calls": "x", "function_call": {}}}},
            {"type": "function", "data": {"content": {"x": 1}}}, {"type": "tool", "data": {"content": 5}}]),
        serde_json::json!([{"type": "message", "role": {"value": 3}, "contents": []},
            {"type": "message", "role": "tool", "contents": [null, 3, {"type": "function_result", "items": 4, "result": [1]},
                {"type": "data", "uri": format!("data:image/png;base64,{evil}")}, {"type": "usage", "usage_details": 1}]}]),
    ];
    for format in [
        Format::OPENAI_CHAT,
        Format::ANTHROPIC,
        Format::PYDANTIC_AI,
        Format::LANGCHAIN,
        Format::AGENT_FRAMEWORK,
    ] {
        for doc in &docs {
            let bytes = serde_json::to_vec_pretty(doc).unwrap_or_default();
            if let Ok(loaded) = crate::formats::Loaded::new(bytes, None, "hostile.json") {
                let _ = crate::formats::parse(format, &loaded);
            }
        }
    }
}
