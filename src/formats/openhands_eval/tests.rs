use std::path::{Path, PathBuf};

use crate::formats::{load_bytes, load_path};
use crate::session::{Format, Session};

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

/// A V1 (SDK events) evaluation output of two instances: the file is the parent, each
/// instance a child named by its `instance_id`.
#[test]
fn v1_output_has_one_child_per_instance() {
    let s = load("fixtures/openhands-eval/openagentsafety-v1.jsonl");
    assert_eq!(s.format, Format::OPENHANDS_EVAL);
    assert!(s.messages.is_empty());
    assert_eq!(s.source.records, 2);
    assert!(s.source.skipped.is_empty());
    assert_eq!(
        s.model.as_deref(),
        Some("litellm_proxy/neulab/gpt-4o-2024-08-06")
    );
    let ids: Vec<&str> = s.children.iter().filter_map(|c| c.id.as_deref()).collect();
    assert_eq!(
        ids,
        vec!["safety-misconfig", "safety-business-intelligence"]
    );
    // python3 -c "import json;[print((lambda h:(len({e['llm_response_id'] for e in h if
    //   e['kind']=='ActionEvent'})+sum(e['kind']=='ObservationEvent' for e in h),
    //   sum(e['kind']=='ActionEvent' for e in h), sum(e['kind']=='ObservationEvent' for e in h),
    //   len({e['tool_call_id'] for e in h if e['kind']=='ActionEvent'} & {e['tool_call_id']
    //   for e in h if e['kind']=='ObservationEvent'})))(json.loads(l)['history'])) for l in
    //   open('fixtures/openhands-eval/openagentsafety-v1.jsonl')]"   → (18, 9, 9, 9) twice
    for child in &s.children {
        assert_eq!(child.format, Format::OPENHANDS);
        assert_eq!(counts(child), (18, 9, 9, 9), "{:?}", child.id);
        assert_eq!(child.source.records, 18);
        assert_eq!(child.title, child.id);
    }
    // Each message's raw record is its event, inside the instance's line.
    let first = &s.children[0];
    let raw = first.raw_record(&first.messages[0]).unwrap();
    let event: serde_json::Value = serde_json::from_slice(&raw).unwrap();
    assert_eq!(event["kind"], "ActionEvent");
    assert_eq!(event["tool_call_id"], "call_lqJrV0ubSCxJ29dCiALU4n30");
}

/// A V0 evaluation output (cut to its first line): V0 events, read as `openhands-v0` reads
/// them.
#[test]
fn v0_output_reads_its_history_as_v0_events() {
    let s = load("fixtures/openhands-eval/multi-swe-bench-v0-first-line.jsonl");
    assert_eq!(s.format, Format::OPENHANDS_EVAL);
    assert_eq!(s.children.len(), 1);
    assert!(s.source.skipped.is_empty());
    let child = &s.children[0];
    assert_eq!(child.format, Format::OPENHANDS_V0);
    assert_eq!(child.id.as_deref(), Some("ponylang__ponyc-4595"));
    assert_eq!(child.model.as_deref(), Some("meta-llama/llama-4-maverick"));
    assert_eq!(child.source.records, 49);
    // Messages: system + user message + finish + one per model response of the tool actions +
    // tool observations + the recall observation holding microagent knowledge.
    // python3 -c "import json;h=json.loads(open('fixtures/openhands-eval/multi-swe-bench-v0-first-line.jsonl')
    //   .readline())['history'];a=[e for e in h if 'action' in e];o=[e for e in h if 'observation'
    //   in e];c=[e for e in a if e.get('tool_call_metadata') and e['action']!='finish'];
    //   print(sum(e['action'] in ('system','message','finish') for e in a)+len({e['tool_call_metadata']
    //   ['model_response']['id'] for e in c})+sum(1 for e in o if e.get('tool_call_metadata') or
    //   (e['observation']=='recall' and e['extras'].get('microagent_knowledge'))), len(c), sum(1 for
    //   e in o if e.get('tool_call_metadata')), len({e['tool_call_metadata']['tool_call_id'] for e
    //   in c} & {e['tool_call_metadata']['tool_call_id'] for e in o if e.get('tool_call_metadata')}))"
    //   → 48 22 22 22
    assert_eq!(counts(child), (48, 22, 22, 22));
}

/// The children read what the same events read on their own: an instance's history is an
/// `openhands-v0` trajectory.
#[test]
fn an_instance_reads_as_its_history_alone() {
    let path = root().join("fixtures/openhands-eval/multi-swe-bench-v0-first-line.jsonl");
    let line: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let history = serde_json::to_vec(&line["history"]).unwrap();
    let alone = load_bytes(history, None, "h.json", None).unwrap();
    assert_eq!(alone.format, Format::OPENHANDS_V0);
    let child = &load_path(&path, None).unwrap().children[0];
    let shape = |s: &Session| -> Vec<(usize, &'static str, Vec<&'static str>)> {
        s.messages
            .iter()
            .map(|m| {
                (
                    m.source_index,
                    m.role.as_str(),
                    m.parts.iter().map(|p| p.kind()).collect(),
                )
            })
            .collect()
    };
    assert_eq!(shape(child), shape(&alone));
}

/// Lines that are not instances are reported with their line numbers; an instance that
/// failed before running is kept, and its missing history reported.
#[test]
fn lines_that_are_not_instances_are_reported() {
    let text = concat!(
        r#"{"instance_id":"a","test_result":{},"history":[{"id":0,"source":"user","action":"message","args":{"content":"hi"}}],"error":null}"#,
        "\n",
        r#"{"note":"not an instance"}"#,
        "\n",
        "not json\n",
        r#"{"instance_id":"b","test_result":{},"history":null,"error":"Timeout after 10 seconds"}"#,
        "\n",
        r#"{"instance_id":"c","test_result":{},"history":[[{"id":1,"source":"agent","action":"message","args":{"content":"x"}},{"id":2,"source":"user","observation":"null","content":""}]]}"#,
        "\n",
    );
    let s = load_bytes(text.as_bytes().to_vec(), None, "o.jsonl", None).unwrap();
    assert_eq!(s.format, Format::OPENHANDS_EVAL);
    let lines: Vec<usize> = s.source.skipped.iter().map(|k| k.line).collect();
    assert_eq!(lines, vec![2, 3, 4]);
    assert!(s.source.skipped[2]
        .reason
        .contains("instance b recorded no history"));
    assert!(s.source.skipped[2].reason.contains("Timeout"));
    let ids: Vec<&str> = s.children.iter().filter_map(|c| c.id.as_deref()).collect();
    assert_eq!(ids, vec!["a", "b", "c"]);
    assert_eq!(s.children[0].messages.len(), 1);
    assert!(s.children[1].messages.is_empty());
    // Old `[action, observation]` pairs are read pair by pair.
    assert_eq!(s.children[2].source.records, 2);
    assert_eq!(s.children[2].messages.len(), 1);
}
