//! Tests over `fixtures/openai-agents/`: run states written by the SDKs' own writers for their
//! compatibility corpora (see the NOTICE there), and small inline states for usage and the
//! records a run state may lack.

use std::path::Path;

use crate::formats::{load_bytes, load_path};
use crate::session::{Format, Part, Role, Session};

fn load(rel: &str) -> Session {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/openai-agents")
        .join(rel);
    let session = load_path(&path, None).unwrap();
    assert_eq!(session.format, Format::OPENAI_AGENTS, "{rel} detected");
    session
}

fn load_str(text: &str) -> Session {
    load_bytes(text.as_bytes().to_vec(), None, "state.json", None).unwrap()
}

/// (client calls, results, results whose call is in the session).
fn calls_and_results(s: &Session) -> (usize, usize, usize) {
    let calls: Vec<&str> = s
        .messages
        .iter()
        .flat_map(|m| m.client_calls().map(|(id, _)| id))
        .collect();
    let results: Vec<&str> = s.messages.iter().flat_map(|m| m.result_ids()).collect();
    let paired = results.iter().filter(|r| calls.contains(r)).count();
    (calls.len(), results.len(), paired)
}

#[test]
fn python_pending_approval_counts() {
    let s = load("python-v1_13_pending_tool_approval.json");
    // Independent count (messages = the string input + one per generated item, none merged):
    // python3 -c "import json;d=json.load(open('python-v1_13_pending_tool_approval.json'));
    //   g=d['generated_items'];print(1+len(g),
    //   sum(i['type']=='tool_call_item' and i['raw_item']['type']=='function_call' for i in g),
    //   sum(i['type']=='tool_call_output_item' for i in g))"   -> 3 1 0
    assert_eq!(s.messages.len(), 3);
    assert_eq!(calls_and_results(&s), (1, 0, 0));
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, vec![Role::User, Role::Assistant, Role::Event]);
    assert_eq!(s.title.as_deref(), Some("compat-agent"));
    assert_eq!(
        s.messages[1].client_calls().next(),
        Some(("historical-approval-1", "historical_approval"))
    );
    // The fake model's empty usage (`requests: 0`) records nothing.
    assert!(s.messages.iter().all(|m| m.usage.is_none()));
    assert_eq!(s.source.records, 3);
    assert!(s.source.skipped.is_empty());
}

#[test]
fn js_committed_side_effect_counts() {
    let s = load("js-v1.17-side-effect-committed.json");
    // Independent count:
    // python3 -c "import json;d=json.load(open('js-v1.17-side-effect-committed.json'));
    //   g=d['generatedItems'];print(1+len(g),
    //   sum(i['rawItem']['type']=='function_call' for i in g),
    //   sum(i['rawItem']['type']=='function_call_result' for i in g))"   -> 3 1 1
    assert_eq!(s.messages.len(), 3);
    assert_eq!(calls_and_results(&s), (1, 1, 1));
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, vec![Role::User, Role::Assistant, Role::Tool]);
    match &s.messages[2].parts[0] {
        Part::ToolResult {
            call_id, content, ..
        } => {
            assert_eq!(call_id, "side-effect-call");
            assert_eq!(content, &vec![Part::text("side effect completed")]);
        }
        other => panic!("expected a tool result, got {other:?}"),
    }
    // Raw records point at the generated items.
    let raw = s.raw_record(&s.messages[2]).unwrap_or_default();
    assert!(String::from_utf8_lossy(&raw).contains("tool_call_output_item"));
}

#[test]
fn usage_goes_to_the_assistant_message_of_its_response() {
    let s = load_str(
        r#"{"$schemaVersion":"1.17","current_turn":2,"current_agent":{"name":"a"},
        "original_input":[{"role":"user","content":"hi"}],
        "model_responses":[
          {"output":[{"type":"function_call","id":"fc1","call_id":"c1","name":"f","arguments":"{}"},
                     {"type":"function_call","id":"fc2","call_id":"c2","name":"g","arguments":"{}"}],
           "usage":{"requests":1,"input_tokens":100,"input_tokens_details":[{"cached_tokens":40}],
                    "output_tokens":7,"output_tokens_details":[{"reasoning_tokens":2}],"total_tokens":107}},
          {"output":[{"type":"message","id":"m1","role":"assistant",
                      "content":[{"type":"output_text","text":"done"}]}],
           "usage":{"requests":1,"input_tokens":130,"output_tokens":3,"total_tokens":133}}],
        "generated_items":[
          {"type":"tool_call_item","raw_item":{"type":"function_call","id":"fc1","call_id":"c1","name":"f","arguments":"{}"}},
          {"type":"tool_call_item","raw_item":{"type":"function_call","id":"fc2","call_id":"c2","name":"g","arguments":"{}"}},
          {"type":"tool_call_output_item","raw_item":{"type":"function_call_output","call_id":"c1","output":"1"}},
          {"type":"tool_call_output_item","raw_item":{"type":"function_call_output","call_id":"c2","output":"2"}},
          {"type":"message_output_item"},
          {"type":"message_output_item","raw_item":{"type":"message","id":"m1","role":"assistant",
             "content":[{"type":"output_text","text":"done"}]}}]}"#,
    );
    assert_eq!(s.format, Format::OPENAI_AGENTS);
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    use Role::*;
    assert_eq!(roles, vec![User, Assistant, Tool, Tool, Assistant]);
    assert_eq!(calls_and_results(&s), (2, 2, 2));
    let first = s.messages[1].usage.clone().unwrap();
    assert_eq!(
        (first.input, first.cache_read, first.reasoning, first.total),
        (Some(100), Some(40), Some(2), Some(107))
    );
    assert!(first.input_includes_cache);
    assert_eq!(
        s.messages[4].usage.as_ref().and_then(|u| u.input),
        Some(130)
    );
    // The item without its raw item is reported, not made an empty message.
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 6);
}

#[test]
fn a_state_without_its_lists_is_not_read_as_one() {
    let err = crate::formats::load_bytes(
        br#"{"$schemaVersion":"1.17","generated_items":[]}"#.to_vec(),
        None,
        "x.json",
        Some(Format::OPENAI_AGENTS),
    )
    .unwrap_err();
    assert!(err.to_string().contains("OpenAI Agents run state"), "{err}");
}

#[test]
fn a_message_without_content_is_reported_not_kept_empty() {
    let s = load_str(
        r#"{"$schemaVersion":"1.17","currentTurn":1,"currentAgent":{"name":"a"},
        "originalInput":[{"type":"message","role":"user","content":"hi"}],
        "modelResponses":[],
        "generatedItems":[
          {"type":"message_output_item","rawItem":{"type":"message","role":"assistant","id":"m0"}},
          {"type":"message_output_item","rawItem":{"type":"message","role":"assistant","id":"m1",
             "content":[{"type":"output_text","text":"ok"}]}}]}"#,
    );
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, vec![Role::User, Role::Assistant]);
    assert_eq!(s.messages[1].parts, vec![Part::text("ok")]);
    // Records: one input item, then the generated items (the first is record 2, line 2).
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 2);
    assert!(s.source.skipped[0].reason.contains("without content"));
}
