//! Tests of the Agent Framework parser over the generated sample and hand-made fixtures.

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

fn kinds(parts: &[Part]) -> Vec<&'static str> {
    parts.iter().map(Part::kind).collect()
}

fn results(s: &Session, i: usize) -> Vec<(String, Vec<Part>, Option<bool>)> {
    s.messages[i]
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolResult {
                call_id,
                content,
                is_error,
            } => Some((call_id.clone(), content.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

#[test]
fn generated_sample_maps_contents_and_usage() {
    let s = load("../shared/samples/frameworks/agent_framework_messages_to_dict.json");
    assert_eq!(s.format, Format::AGENT_FRAMEWORK);
    assert_eq!(s.source.records, 6);
    use Role::*;
    assert_eq!(roles(&s), [System, User, Assistant, Tool, Tool, Assistant]);
    assert_eq!(kinds(&s.messages[1].parts), ["text", "image"]);
    match &s.messages[1].parts[1] {
        Part::Image(img) => assert_eq!(
            (img.media_type.as_deref(), img.bytes),
            (Some("image/png"), Some(8))
        ),
        other => panic!("{other:?}"),
    }
    let a = &s.messages[2];
    assert_eq!(kinds(&a.parts), ["reasoning", "text", "tool_call"]);
    assert_eq!(a.parts[0].plain_text(), "I should call ls.");
    assert!(
        matches!(&a.parts[2], Part::ToolCall { id, name, arguments, server: false }
        if id == "call_1" && name == "ls" && arguments == r#"{"path":"."}"#)
    );
    let u = a.usage.clone().unwrap_or_default();
    assert_eq!(
        (u.input, u.output, u.total, u.cache_read),
        (Some(120), Some(15), Some(135), Some(100))
    );
    assert!(u.input_includes_cache);
    assert_eq!(a.id.as_deref(), Some("msg_1"));
    let ok = &results(&s, 3)[0];
    assert_eq!((ok.0.as_str(), ok.2), ("call_1", None));
    assert_eq!(ok.1, [Part::text("a.txt\nb.txt")]);
    // The failed call: an exception, an empty result.
    let failed = &results(&s, 4)[0];
    assert_eq!((failed.0.as_str(), failed.2), ("call_2", Some(true)));
    assert!(failed.1.is_empty());
    assert_eq!(s.messages[5].parts, [Part::text("Two files.")]);
    assert!(s.marks.is_empty());
}

#[test]
fn hosted_tools_media_and_python_json_results() {
    let s = load("fixtures/agent-framework/hosted-tools.json");
    assert_eq!(s.format, Format::AGENT_FRAMEWORK);
    use Role::*;
    assert_eq!(
        roles(&s),
        [System, User, Assistant, Tool, Assistant, User, Assistant]
    );
    let user = &s.messages[1].parts;
    assert_eq!(kinds(user), ["text", "image", "opaque"]);
    match &user[1] {
        Part::Image(img) => {
            assert_eq!(
                img.url.as_deref(),
                Some("https://images.example.com/sky/2025-06-03.jpg")
            );
            assert_eq!(img.media_type.as_deref(), Some("image/jpeg"));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(&user[2], Part::Opaque { kind, raw } if kind == "data" && !raw.contains("JVBERi0xLjcK"))
    );
    let a = &s.messages[2];
    assert_eq!(kinds(&a.parts), ["reasoning", "tool_call", "tool_call"]);
    assert!(matches!(&a.parts[0], Part::Reasoning { text, opaque_len: 43 } if text.is_empty()));
    assert!(
        matches!(&a.parts[1], Part::ToolCall { arguments, .. } if arguments == r#"{"city":"Oslo"}"#)
    );
    assert!(
        matches!(&a.parts[2], Part::ToolCall { arguments, .. } if arguments == r#"{"city":"Oslo","days":3}"#)
    );
    let u = a.usage.clone().unwrap_or_default();
    assert_eq!(
        (u.input, u.cache_read, u.reasoning),
        (Some(1840), Some(1536), Some(64))
    );
    let r = results(&s, 3);
    // A dict result is what `json.dumps` makes of it.
    assert_eq!(
        r[0].1,
        [Part::text(
            r#"{"temp_c": 14, "sky": "overcast", "note": "\u00f8"}"#
        )]
    );
    assert_eq!(r[0].2, None);
    assert_eq!(r[1].0, "call_f1");
    assert_eq!(kinds(&r[1].1), ["text", "image"]);
    // Hosted MCP tool: a server call and its result.
    let hosted = &s.messages[4];
    assert_eq!(kinds(&hosted.parts), ["tool_call", "tool_result", "text"]);
    assert!(
        matches!(&hosted.parts[0], Part::ToolCall { server: true, name, .. } if name == "search_alerts")
    );
    assert_eq!(results(&s, 4)[0].1, [Part::text("No active alerts.")]);
    assert_eq!(hosted.client_calls().count(), 0);
    assert!(
        matches!(&s.messages[5].parts[0], Part::Opaque { kind, .. } if kind == "function_approval_response")
    );
    assert!(matches!(&s.messages[6].parts[0], Part::Opaque { kind, .. } if kind == "error"));
}

#[test]
fn jsonl_old_roles_exceptions_bad_line_and_unknown_records() {
    let s = load("fixtures/agent-framework/messages.jsonl");
    assert_eq!(s.format, Format::AGENT_FRAMEWORK);
    assert_eq!(s.source.records, 7);
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 4);
    use Role::*;
    assert_eq!(roles(&s), [User, Assistant, Tool, Event, Event, Assistant]);
    assert!(
        matches!(&s.messages[1].parts[0], Part::ToolCall { id, arguments, .. }
        if id == "call_ls" && arguments.is_empty())
    );
    let failed = &results(&s, 2)[0];
    assert_eq!(failed.2, Some(true));
    assert!(failed.1[0].plain_text().contains("Permission denied"));
    for (i, kind, source) in [(3, "agent_thread_state", 4), (4, "reviewer", 5)] {
        assert!(matches!(&s.messages[i].parts[0], Part::Opaque { kind: k, .. } if k == kind));
        assert_eq!(s.messages[i].source_index, source);
    }
    let last = &s.messages[5];
    assert_eq!(last.source_index, 6);
    assert_eq!(last.id.as_deref(), Some("msg_e5"));
    assert_eq!(last.usage.as_ref().and_then(|u| u.total), Some(419));
}

#[test]
fn excluded_messages_are_events_holding_their_record_and_inserted_summaries_are_summaries() {
    let rel = "fixtures/oracle/agent-framework/prior-summary-stored.input.json";
    let s = load(rel);
    let records: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap(),
    )
    .unwrap();
    assert_eq!(s.messages.len(), records.len());
    let mut excluded = 0;
    for (m, r) in s.messages.iter().zip(&records) {
        let props = &r["additional_properties"];
        if props["_excluded"] == serde_json::Value::Bool(true) {
            excluded += 1;
            assert_eq!(m.role, Role::Event, "{r}");
            let [Part::Opaque { kind, raw }] = m.parts.as_slice() else {
                panic!("{:?}", m.parts)
            };
            assert_eq!(kind, super::EXCLUDED_KIND);
            assert_eq!(&serde_json::from_str::<serde_json::Value>(raw).unwrap(), r);
        } else {
            assert_ne!(m.role, Role::Event, "{r}");
        }
        let summary = props["_group"]["_summary_of_message_ids"].is_array();
        assert_eq!(kinds(&m.parts) == ["summary"], summary, "{r}");
    }
    assert!(excluded >= 7, "{excluded}");
}
