//! Tests of the pydantic-ai parser over the generated sample and hand-made fixtures.

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

fn results(s: &Session, i: usize) -> Vec<(String, String, Option<bool>)> {
    s.messages[i]
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolResult {
                call_id, is_error, ..
            } => Some((call_id.clone(), p.plain_text(), *is_error)),
            _ => None,
        })
        .collect()
}

#[test]
fn generated_sample_requests_and_responses() {
    let s = load("../shared/samples/frameworks/pydantic_ai_model_messages.json");
    assert_eq!(s.format, Format::PYDANTIC_AI);
    assert_eq!(s.source.records, 5);
    use Role::*;
    assert_eq!(
        roles(&s),
        [System, User, Assistant, Tool, Assistant, Assistant]
    );
    let sources: Vec<usize> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, [0, 0, 1, 2, 3, 4]);
    assert_eq!(
        s.messages[0].parts[0].plain_text(),
        "You are a helpful agent."
    );
    assert_eq!(kinds(&s, 1), ["text", "image"]);
    match &s.messages[1].parts[1] {
        Part::Image(img) => {
            assert_eq!(img.media_type.as_deref(), Some("image/png"));
            assert_eq!(img.bytes, Some(8));
        }
        other => panic!("{other:?}"),
    }
    let a = &s.messages[2];
    assert_eq!(kinds(&s, 2), ["reasoning", "text", "tool_call"]);
    assert_eq!(a.parts[0].plain_text(), "I should call ls.");
    assert!(
        matches!(&a.parts[2], Part::ToolCall { id, name, arguments, server: false }
        if id == "call_1" && name == "ls" && arguments == r#"{"path":"."}"#)
    );
    let u = a.usage.clone().unwrap_or_default();
    assert_eq!(
        (u.input, u.output, u.cache_read, u.cache_write),
        (Some(120), Some(15), Some(100), Some(0))
    );
    assert!(u.input_includes_cache);
    assert_eq!(a.model.as_deref(), Some("claude-sonnet-4"));
    assert_eq!(a.timestamp.as_deref(), Some("2026-01-01T00:00:00Z"));
}

#[test]
fn generated_sample_tool_results_and_compaction() {
    let s = load("../shared/samples/frameworks/pydantic_ai_model_messages.json");
    // The tool return and the retry prompt for `cat` are one tool message.
    assert_eq!(
        results(&s, 3),
        [
            (
                "call_1".to_string(),
                "a.txt\nb.txt".to_string(),
                Some(false)
            ),
            (
                "call_2".to_string(),
                "path must be absolute\n\nFix the errors and try again.".to_string(),
                Some(true)
            ),
        ]
    );
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(
        (mark.kind.as_str(), mark.source_index, mark.before_message),
        ("compaction", 3, 4)
    );
    assert_eq!(
        mark.summary.as_deref(),
        Some("Summary: user asked to list files; found a.txt, b.txt.")
    );
    assert_eq!((mark.pre_tokens, mark.post_tokens), (None, None));
    assert_eq!(kinds(&s, 4), ["summary"]);
    assert_eq!(
        s.messages[4].usage.as_ref().and_then(|u| u.input),
        Some(900)
    );
    assert_eq!(s.messages[5].parts[0].plain_text(), "Two files.");
    assert_eq!(s.messages[5].usage.as_ref().and_then(|u| u.output), Some(4));
    assert_eq!(s.model.as_deref(), Some("claude-sonnet-4"));
}

#[test]
fn instructions_and_builtin_tools() {
    let s = load("fixtures/pydantic-ai/instructions-builtin.json");
    assert_eq!(s.format, Format::PYDANTIC_AI);
    use Role::*;
    assert_eq!(
        roles(&s),
        [System, System, User, Assistant, Tool, Assistant, Tool, Assistant, Tool]
    );
    // The latest request holds only a tool return and no instructions: the one before it
    // (record 4) gives them, and they come first.
    assert_eq!(s.messages[0].source_index, 4);
    assert_eq!(
        s.messages[0].parts[0].plain_text(),
        "Be concise. Today is 2025-06-26."
    );
    match &s.messages[2].parts[1] {
        Part::Image(img) => {
            assert_eq!(
                img.url.as_deref(),
                Some("https://example.com/upgrade-plan.png")
            );
            assert_eq!(img.media_type.as_deref(), Some("image/png"));
            assert_eq!(img.detail.as_deref(), Some("low"));
        }
        other => panic!("{other:?}"),
    }
    let a = &s.messages[3];
    assert_eq!(
        kinds(&s, 3),
        ["reasoning", "tool_call", "tool_result", "text", "tool_call"]
    );
    assert!(matches!(&a.parts[0], Part::Reasoning { text, opaque_len: 50 } if text.is_empty()));
    assert!(
        matches!(&a.parts[1], Part::ToolCall { server: true, name, .. } if name == "web_search")
    );
    assert_eq!(results(&s, 3)[0].0, "ws_68a1b2c3e5");
    assert_eq!(results(&s, 3)[0].1, r#"{"status":"completed"}"#);
    assert_eq!(
        a.client_calls().collect::<Vec<_>>(),
        [("call_fp1", "fetch_page")]
    );
    assert!(matches!(&a.parts[4], Part::ToolCall { arguments, .. }
        if arguments == r#"{"url":"https://blog.rust-lang.org/2025/06/26/Rust-1.88.0/"}"#));
    let u = a.usage.clone().unwrap_or_default();
    assert_eq!(
        (u.input, u.cache_read, u.reasoning),
        (Some(1450), Some(1024), Some(64))
    );
    assert_eq!(a.id.as_deref(), Some("resp_68a1b2c3a0"));
}

#[test]
fn instructions_fixture_tool_returns_and_retries() {
    let s = load("fixtures/pydantic-ai/instructions-builtin.json");
    assert_eq!(
        results(&s, 4),
        [(
            "call_fp1".to_string(),
            r#"{"title":"Announcing Rust 1.88.0","words":812}"#.to_string(),
            None
        )]
    );
    let retry = &results(&s, 6)[0];
    assert_eq!(retry.2, Some(true));
    assert_eq!(
        retry.1,
        "1 validation error:\n```json\n[\n  {\n    \"type\": \"string_type\",\n    \"loc\": [\n      \"summary\"\n    ],\n    \"msg\": \"Input should be a valid string\",\n    \"input\": 5\n  }\n]\n```\n\nFix the errors and try again."
    );
    assert_eq!(s.model.as_deref(), Some("gpt-5-2025-08-07"));
    assert!(s.marks.is_empty());
}

#[test]
fn jsonl_with_encrypted_compaction_bad_line_and_unknown_record() {
    let s = load("fixtures/pydantic-ai/compaction.jsonl");
    assert_eq!(s.format, Format::PYDANTIC_AI);
    assert_eq!(s.source.records, 8);
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 4);
    use Role::*;
    assert_eq!(
        roles(&s),
        [System, User, Assistant, Tool, Event, Assistant, User, Assistant]
    );
    // Pre-1.0 usage names.
    let u = s.messages[2].usage.clone().unwrap_or_default();
    assert_eq!(
        (u.input, u.output, u.total),
        (Some(310), Some(22), Some(332))
    );
    assert_eq!(s.messages[2].id.as_deref(), Some("chatcmpl-B6mXq1"));
    assert_eq!(results(&s, 3)[0].1, r#"["src","tests","Cargo.toml"]"#);
    assert_eq!(results(&s, 3)[0].2, None);
    assert!(matches!(&s.messages[4].parts[0], Part::Opaque { kind, .. } if kind == "checkpoint"));
    assert_eq!(s.messages[4].source_index, 4);
    // Encrypted compaction: an opaque part without the payload, and a mark before it.
    assert_eq!(kinds(&s, 5), ["opaque", "text"]);
    assert!(matches!(&s.messages[5].parts[0], Part::Opaque { kind, raw }
        if kind == "compaction" && raw.contains("<248 chars>") && !raw.contains("Zk1xZk1x")));
    assert_eq!(s.marks.len(), 1);
    assert_eq!((s.marks[0].source_index, s.marks[0].before_message), (5, 5));
    assert_eq!(s.marks[0].summary, None);
    assert_eq!(
        s.messages[6].parts[0].plain_text(),
        "Validation feedback:\nPlease answer in one sentence.\n\nFix the errors and try again."
    );
    assert_eq!(s.model.as_deref(), Some("gpt-5-mini-2025-08-07"));
}

#[test]
fn a_harness_summary_in_a_request_is_a_summary_part() {
    let s = load("fixtures/oracle/pydantic-ai-harness/previous_summary.input.json");
    // Instructions first, then record 0: its system prompt, and its user turn with the summary.
    assert_eq!(kinds(&s, 1), ["text"]);
    assert_eq!(kinds(&s, 2), ["text", "summary"]);
    assert_eq!(s.messages[2].role, Role::User);
    assert!(s.messages[2].parts[1]
        .plain_text()
        .starts_with("## Intent\nMigrate settings loader"));
}
