//! Responses parser tests over the hand-made documents in `fixtures/openai-responses` (there is
//! no real Responses sample), shaped after the API reference and the OpenAI SDK types.

use std::path::Path;

use crate::formats::{load_bytes, load_path};
use crate::session::{Format, ImageRef, Message, Part, Role, Session};

fn fixture(name: &str) -> Session {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/openai-responses")
        .join(name);
    match load_path(&path, None) {
        Ok(s) => s,
        Err(e) => panic!("{name}: {e}"),
    }
}

fn summary(s: &Session) -> Vec<(Role, Vec<usize>)> {
    s.messages
        .iter()
        .map(|m| (m.role, m.source_indices.clone()))
        .collect()
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

fn result(p: &Part) -> (&str, &[Part], Option<bool>) {
    match p {
        Part::ToolResult {
            call_id,
            content,
            is_error,
        } => (call_id.as_str(), content.as_slice(), *is_error),
        other => panic!("not a tool result: {other:?}"),
    }
}

fn one_pixel_png() -> ImageRef {
    ImageRef {
        media_type: Some("image/png".into()),
        bytes: Some(70),
        width: Some(1),
        height: Some(1),
        ..ImageRef::default()
    }
}

#[test]
fn request_body() {
    let s = fixture("request-body.json");
    assert_eq!(s.format, Format::OPENAI_RESPONSES);
    assert_eq!(s.model.as_deref(), Some("gpt-5"));
    use Role::*;
    let expected = vec![
        (System, vec![0]),
        (Developer, vec![0]),
        (User, vec![1]),
        (Assistant, vec![2, 3, 4, 5]),
        (Tool, vec![6]),
        (Tool, vec![7]),
        (Assistant, vec![8]),
        (User, vec![9]),
    ];
    assert_eq!(summary(&s), expected);
    assert_eq!(
        s.messages[0].parts,
        vec![Part::text(
            "You are a travel assistant. Answer briefly and cite sources."
        )]
    );
    assert_eq!(
        s.messages[1].parts,
        vec![Part::text("Today is 2025-11-03. Units: metric.")]
    );
    let image = ImageRef {
        url: Some("https://example.com/uploads/itinerary.png".into()),
        detail: Some("high".into()),
        ..ImageRef::default()
    };
    assert_eq!(s.messages[2].parts[1], Part::Image(image));
    let turn = &s.messages[3];
    assert_eq!(
        turn.id.as_deref(),
        Some("rs_0c1f9a7e2b3d4c5e00690843a1b2c881a0b9")
    );
    assert!(
        matches!(&turn.parts[0], Part::Reasoning { text, opaque_len: 93 }
        if text == "**Checking the forecast for both cities**")
    );
    assert_eq!(
        calls(turn),
        vec![
            (
                "ws_0c1f9a7e2b3d4c5e00690843a4f7d081a0b9",
                "web_search",
                r#"{"type":"search","query":"Paris weather November 4 2025","sources":[{"type":"url","url":"https://www.meteofrance.com/previsions-meteo-france/paris/75000"}]}"#,
                true
            ),
            (
                "call_pX2m8QfK3tR1vB7n",
                "get_forecast",
                r#"{"city":"Paris","date":"2025-11-04"}"#,
                false
            ),
            (
                "call_Lw4s9YhC6jD0kE5a",
                "get_forecast",
                r#"{"city":"Lyon","date":"2025-11-04"}"#,
                false
            ),
        ]
    );
    assert_eq!(turn.client_calls().count(), 2);
    let (id, content, err) = result(&s.messages[4].parts[0]);
    assert_eq!((id, err), ("call_pX2m8QfK3tR1vB7n", None));
    assert_eq!(
        content,
        [Part::text(r#"{"city":"Paris","rain_mm":6.5,"high_c":12}"#)]
    );
    let (id, content, _) = result(&s.messages[5].parts[0]);
    assert_eq!(
        (id, content),
        (
            "call_Lw4s9YhC6jD0kE5a",
            &[Part::text("Lyon: dry, high 15 C")][..]
        )
    );
    assert_eq!(
        s.messages[6].id.as_deref(),
        Some("msg_0c1f9a7e2b3d4c5e00690843b0c5a881a0b9")
    );
    assert_eq!(s.marks.len(), 0);
    // Items point back at their bytes inside the `input` array.
    let raw = s
        .raw_record(&s.messages[4])
        .map(|r| String::from_utf8_lossy(&r).into_owned());
    let raw = raw.unwrap_or_default();
    assert!(raw.starts_with('{') && raw.ends_with('}'));
    assert!(raw.contains("\"call_pX2m8QfK3tR1vB7n\"") && raw.contains("rain_mm"));
}

#[test]
fn compacted_input_has_a_compaction_mark() {
    let s = fixture("compacted-input.json");
    assert_eq!(s.format, Format::OPENAI_RESPONSES);
    assert_eq!(s.source.records, 14);
    use Role::*;
    let expected = vec![
        (User, vec![0]),
        (User, vec![1]),
        (Assistant, vec![2]),
        (User, vec![3]),
        (Assistant, vec![4, 5]),
        (Tool, vec![6]),
        (Assistant, vec![7, 8]),
        (Tool, vec![9]),
        (Assistant, vec![10, 11]),
        (Event, vec![12]),
        (Event, vec![13]),
    ];
    assert_eq!(summary(&s), expected);
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(
        (mark.kind.as_str(), mark.source_index, mark.before_message),
        ("compaction", 2, 2)
    );
    assert_eq!(
        (mark.pre_tokens, mark.post_tokens, &mark.summary),
        (None, None, &None)
    );
    match &s.messages[2].parts[..] {
        [Part::Opaque { kind, raw }] => {
            assert_eq!(kind, "compaction");
            assert!(raw.starts_with(
                r#"{"type":"compaction","id":"cmp_08e4a2f1c3b5d7e900690921f4a3b881a2c4""#
            ));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        calls(&s.messages[4]),
        vec![(
            "call_Tq7Rz2Xw5Vb8Nm1K",
            "shell",
            r#"{"commands":["pytest -q tests/billing"],"timeout_ms":120000,"max_output_length":4096}"#,
            false
        )]
    );
    let (id, content, err) = result(&s.messages[5].parts[0]);
    assert_eq!((id, err), ("call_Tq7Rz2Xw5Vb8Nm1K", Some(true)));
    assert_eq!(content, [Part::text("..F.\n1 failed, 3 passed in 0.42s\n")]);
    assert_eq!(calls(&s.messages[6])[0].1, "apply_patch");
    assert_eq!(result(&s.messages[7].parts[0]).2, Some(false));
    // mcp_call is run by the provider: call and result in the assistant message.
    let mcp = &s.messages[8];
    assert_eq!(calls(mcp)[0].0, "mcp_08e4a2f1c3b5d7e90069092220a6b881a2c4");
    assert!(calls(mcp)[0].3);
    let (id, content, err) = result(&mcp.parts[1]);
    assert_eq!(
        (id, err),
        ("mcp_08e4a2f1c3b5d7e90069092220a6b881a2c4", None)
    );
    assert!(content[0].plain_text().contains("BILL-214"));
    assert_eq!(mcp.client_calls().count(), 0);
    assert!(
        matches!(&s.messages[9].parts[0], Part::Opaque { kind, .. } if kind == "item_reference")
    );
    assert!(
        matches!(&s.messages[10].parts[0], Part::Opaque { kind, .. } if kind == "mcp_list_tools")
    );
}

#[test]
fn response_object_with_usage() {
    let s = fixture("response.json");
    assert_eq!(s.format, Format::OPENAI_RESPONSES);
    assert_eq!(
        s.id.as_deref(),
        Some("resp_0d7e2c4a9b1f3e5d0069094a11c2b381a4d6")
    );
    assert_eq!(s.model.as_deref(), Some("gpt-5-2025-08-07"));
    use Role::*;
    assert_eq!(
        summary(&s),
        vec![(System, vec![0]), (Assistant, vec![0, 1, 2, 3])]
    );
    let answer = &s.messages[1];
    assert_eq!(answer.model.as_deref(), Some("gpt-5-2025-08-07"));
    let kinds: Vec<&str> = answer.parts.iter().map(Part::kind).collect();
    assert_eq!(kinds, vec!["reasoning", "tool_call", "tool_call", "text"]);
    assert!(matches!(
        &answer.parts[0],
        Part::Reasoning { opaque_len: 0, .. }
    ));
    assert_eq!(
        calls(answer)[1],
        (
            "ws_0d7e2c4a9b1f3e5d0069094a15f5e681a4d6",
            "web_search",
            r#"{"type":"open_page","url":"https://blog.rust-lang.org/2025/02/20/Rust-1.85.0.html"}"#,
            true
        )
    );
    let u = answer.usage.as_ref().expect("usage");
    assert_eq!(
        (u.input, u.cache_read, u.output, u.reasoning, u.total),
        (Some(8412), Some(2048), Some(611), Some(448), Some(9023))
    );
    assert!(u.input_includes_cache);
}

#[test]
fn items_as_json_lines() {
    let s = fixture("items.jsonl");
    assert_eq!(s.format, Format::OPENAI_RESPONSES);
    assert_eq!(s.source.records, 8);
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 5);
    use Role::*;
    let expected = vec![
        (System, vec![0]),
        (User, vec![1]),
        (Assistant, vec![2]),
        (Tool, vec![3]),
        (Event, vec![5]),
        (Assistant, vec![6, 7]),
    ];
    assert_eq!(summary(&s), expected);
    assert_eq!(
        calls(&s.messages[2]),
        vec![(
            "call_Cm1Pq4Rt7Uw0Xz3B",
            "computer",
            r#"{"type":"screenshot"}"#,
            false
        )]
    );
    let (id, content, _) = result(&s.messages[3].parts[0]);
    assert_eq!(
        (id, content),
        ("call_Cm1Pq4Rt7Uw0Xz3B", &[Part::Image(one_pixel_png())][..])
    );
    assert!(
        matches!(&s.messages[4].parts[0], Part::Opaque { kind, .. } if kind == "mcp_approval_request")
    );
    let interp = &s.messages[5];
    assert_eq!(
        calls(interp),
        vec![(
            "ci_0a1b2c3d4e5f60718293a4b5c6d7e8fb",
            "code_interpreter",
            "print(len('Example Domain'))",
            true
        )]
    );
    assert_eq!(result(&interp.parts[1]).1, [Part::text("14\n")]);
}

fn parse_str(text: &str) -> Session {
    match load_bytes(text.as_bytes().to_vec(), None, "inline.json", None) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn easy_form_input_is_responses_not_chat() {
    let s = parse_str(
        r#"{"model":"gpt-4.1","input":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}"#,
    );
    assert_eq!(s.format, Format::OPENAI_RESPONSES);
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, vec![Role::User, Role::Assistant]);
}

#[test]
fn string_input_and_output_in_one_record() {
    // A log record holding the request and its response: output items follow the input.
    let s = load_bytes(
        br#"{"model":"gpt-4o","input":"Say hi","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi!"}]}],"usage":{"input_tokens":9,"output_tokens":3,"total_tokens":12}}"#.to_vec(),
        None,
        "log.json",
        Some(Format::OPENAI_RESPONSES),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.messages.len(), 2);
    assert_eq!(s.messages[1].source_index, 1);
    assert_eq!(s.messages[1].usage.as_ref().and_then(|u| u.input), Some(9));
}

#[test]
fn odd_items_do_not_panic() {
    let s = parse_str(
        r#"[{"type":"function_call_output"},{"type":"message","role":"critic","content":"x"},{"id":"msg_1"},{"type":"reasoning","summary":"not a list"},{"type":"function_call_output","call_id":"c","output":"Exit code: x"},{"type":"local_shell_call_output","id":"call_9","output":"{\"output\":\"\",\"metadata\":{\"exit_code\":2}}"}]"#,
    );
    assert_eq!(s.messages.len(), 6);
    assert_eq!(s.messages[1].role, Role::Event);
    assert!(
        matches!(&s.messages[2].parts[0], Part::Opaque { kind, .. } if kind == "item_reference")
    );
    assert_eq!(result(&s.messages[4].parts[0]).2, None);
    let (id, _, err) = result(&s.messages[5].parts[0]);
    assert_eq!((id, err), ("call_9", Some(true)));
}
