//! Tests of the Anthropic Messages parser over hand-made fixtures shaped like the API
//! reference (there is no real Anthropic sample).

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

fn kinds(session: &Session, i: usize) -> Vec<&'static str> {
    session.messages[i].parts.iter().map(Part::kind).collect()
}

#[test]
fn request_body_system_images_and_client_calls() {
    let s = load("fixtures/anthropic/request-body.json");
    assert_eq!(s.format, Format::ANTHROPIC);
    assert_eq!(s.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    assert_eq!(s.source.records, 8);
    assert_eq!(s.messages.len(), 9);
    // System: tool definitions first (Anthropic renders them ahead of the prompt), then text.
    let sys = &s.messages[0];
    assert_eq!(sys.role, Role::System);
    assert_eq!(kinds(&s, 0), ["text", "text"]);
    assert!(sys.parts[0]
        .plain_text()
        .starts_with(r#"[{"name":"get_weather""#));
    assert_eq!(
        sys.parts[1].plain_text(),
        "You are a travel assistant. Use tools for live data."
    );
    let raw = s
        .raw_record(sys)
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    assert!(raw.is_some_and(|r| r.starts_with(r#"{"type": "text""#) && r.ends_with('}')));
    // The image is decoded for its size, the payload dropped.
    assert_eq!(kinds(&s, 1), ["text", "image"]);
    match &s.messages[1].parts[1] {
        Part::Image(img) => assert_eq!((img.width, img.bytes), (Some(1), Some(70))),
        other => panic!("{other:?}"),
    }
    assert_eq!(s.messages[1].source_index, 0);
    assert_eq!(kinds(&s, 2), ["reasoning", "text", "tool_call"]);
    match &s.messages[2].parts[2] {
        Part::ToolCall {
            id,
            name,
            arguments,
            server,
        } => {
            assert_eq!(id, "toolu_01A09q90qw90lq917835lq9");
            assert_eq!(name, "get_weather");
            assert_eq!(arguments, r#"{"location":"San Francisco, CA"}"#);
            assert!(!server);
        }
        other => panic!("{other:?}"),
    }
    // A user message holding only tool results is a tool message.
    assert_eq!(s.messages[3].role, Role::Tool);
    assert!(matches!(&s.messages[3].parts[0],
        Part::ToolResult { call_id, is_error: Some(false), .. } if call_id == "toolu_01A09q90qw90lq917835lq9"));
}

#[test]
fn request_body_server_tools_redacted_thinking_and_errors() {
    let s = load("fixtures/anthropic/request-body.json");
    // Server tool use: a server call and its result in the same assistant message.
    assert_eq!(kinds(&s, 4), ["tool_call", "tool_result", "text"]);
    assert!(
        matches!(&s.messages[4].parts[0], Part::ToolCall { server: true, name, .. } if name == "web_search")
    );
    assert!(matches!(&s.messages[4].parts[1],
        Part::ToolResult { call_id, is_error: None, .. } if call_id == "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE"));
    assert_eq!(s.messages[4].client_calls().count(), 0);
    assert_eq!(s.messages[5].role, Role::User);
    match &s.messages[6].parts[0] {
        Part::Reasoning { text, opaque_len } => assert_eq!((text.len(), *opaque_len), (0, 105)),
        other => panic!("{other:?}"),
    }
    // Tool result beside text: the message stays a user message; the error flag is kept.
    assert_eq!(s.messages[7].role, Role::User);
    assert_eq!(kinds(&s, 7), ["tool_result", "text"]);
    assert!(matches!(
        &s.messages[7].parts[0],
        Part::ToolResult {
            is_error: Some(true),
            ..
        }
    ));
    assert_eq!(
        s.messages[8].parts[0].plain_text(),
        "Alright. Enjoy the evening!"
    );
    assert_eq!(s.messages[8].source_index, 7);
    assert!(s.marks.is_empty());
}

#[test]
fn compaction_block_marks_and_summarises() {
    let s = load("fixtures/anthropic/compaction.jsonl");
    assert_eq!(s.format, Format::ANTHROPIC);
    assert_eq!(s.source.records, 8);
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 4);
    assert_eq!(s.messages.len(), 7);
    assert_eq!(s.model.as_deref(), Some("claude-opus-4-6"));
    // Response usage: input excludes cache.
    let u = s.messages[1].usage.clone().unwrap_or_default();
    assert_eq!((u.input, u.output), (Some(12), Some(310)));
    assert_eq!((u.cache_read, u.cache_write), (Some(150_000), Some(2400)));
    assert!(!u.input_includes_cache);
    assert_eq!(u.context_input(), Some(152_412));
    assert_eq!(
        s.messages[1].id.as_deref(),
        Some("msg_01XFDUDYJgAACzvnptvVoYEL")
    );
    assert_eq!(s.messages[2].role, Role::Tool);
    // The ping line is an unknown record: kept as an event.
    assert_eq!(s.messages[3].role, Role::Event);
    assert_eq!(s.messages[3].source_index, 4);
    assert!(matches!(&s.messages[3].parts[0], Part::Opaque { kind, .. } if kind == "ping"));
    // The compaction response: summary part, mark before its message.
    let m = &s.messages[4];
    assert_eq!(m.source_index, 5);
    assert_eq!(kinds(&s, 4), ["summary", "text"]);
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(mark.kind, "compaction");
    assert_eq!((mark.source_index, mark.before_message), (5, 4));
    assert_eq!(
        (mark.pre_tokens, mark.post_tokens),
        (Some(180_000), Some(23_000))
    );
    assert!(mark
        .summary
        .as_deref()
        .is_some_and(|t| t.starts_with("The user asked to refactor")));
    assert_eq!(m.usage.as_ref().and_then(|u| u.input), Some(23_000));
}

#[test]
fn plain_request_with_top_level_system_is_anthropic() {
    let s = load("fixtures/anthropic/plain-request.json");
    assert_eq!(s.format, Format::ANTHROPIC);
    assert_eq!(s.messages.len(), 3);
    assert_eq!(s.messages[0].role, Role::System);
    assert_eq!(s.messages[0].raw, None);
    assert_eq!(
        s.messages[0].parts[0].plain_text(),
        "Answer from the document only."
    );
    // A text document is text the model reads; a PDF stays opaque, without its payload.
    assert_eq!(kinds(&s, 1), ["text", "opaque", "text"]);
    assert_eq!(
        s.messages[1].parts[0].plain_text(),
        "The grass is green. The sky is blue."
    );
    assert!(
        matches!(&s.messages[1].parts[1], Part::Opaque { kind, raw } if kind == "document" && !raw.contains("JVBERi0"))
    );
}

#[test]
fn bare_array_of_messages_parses() {
    let text = br#"[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"}]}]"#;
    let s = crate::formats::load_bytes(text.to_vec(), None, "mem", None);
    let s = match s {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(s.format, Format::ANTHROPIC);
    assert_eq!(s.messages.len(), 3);
    assert_eq!(s.messages[2].role, Role::Tool);
    assert!(
        matches!(&s.messages[1].parts[0], Part::ToolCall { arguments, .. } if arguments == "{}")
    );
}
