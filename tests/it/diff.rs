//! The diff of a plan's summarized range against its summarizer input, on a session whose
//! losses are known by construction (dimos shows `Class: first text` lines, no tool calls,
//! and only the last `max_chars` characters).

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::compaction::presets;
use ctxray::diff::{diff, diff_moving};
use ctxray::formats::load_bytes;
use ctxray::tokens::Registry;
use serde_json::json;

fn lc(kind: &str, content: &str) -> serde_json::Value {
    json!({"type": kind, "data": {"content": content, "type": kind}})
}

#[test]
fn losses_and_evidence_survival_are_measured() {
    let call = json!({"type": "ai", "data": {"content": "", "type": "ai",
        "tool_calls": [{"name": "run_shell", "args": {"command": "cargo test --release", "timeout": 600}, "id": "call_7", "type": "tool_call"}]}});
    let history = vec![
        lc(
            "human",
            &format!("Fix the bug in src/parser.rs please. {}", "x".repeat(400)),
        ),
        call,
        json!({"type": "tool", "data": {"content": "error in src/lexer.rs line 4242", "type": "tool", "tool_call_id": "call_7"}}),
        lc("ai", &"y".repeat(400)),
        lc("human", &"z".repeat(400)),
    ];
    let session = load_bytes(serde_json::to_vec(&history).unwrap(), None, "t.json", None).unwrap();
    let a = Analysis::new(session, &Registry::bundled(), &Options::default());
    let sets = vec![
        "context_window=300".to_string(),
        "keep_ratio=0.3".to_string(),
    ];
    let plan = preset::run(presets::find("dimos").unwrap(), &PlanInput::new(&a), &sets).unwrap();
    assert_eq!(plan.split.summarized, vec![0, 1, 2, 3]);
    let d = diff(&a.session, &plan);
    assert_eq!(d.messages.len(), 4);

    // The human message is shown whole.
    let first = &d.messages[0];
    assert_eq!(first.seen_chars, first.raw_chars);
    // The tool call is not shown at all: name, arguments and call id are lost.
    let call = &d.messages[1];
    assert_eq!(call.seen_chars, 0);
    assert_eq!(call.tool_names_lost, vec!["run_shell"]);
    assert_eq!(call.arguments_total, 2);
    assert_eq!(call.arguments_lost, vec!["cargo test --release", "600"]);
    assert_eq!(call.call_ids_lost, vec!["call_7"]);
    // The result's text is shown; its call id is not.
    let result = &d.messages[2];
    assert_eq!(result.seen_chars, result.raw_chars);
    assert_eq!(result.call_ids_lost, vec!["call_7"]);
    // Evidence: the paths and the number survive; the command does not.
    let survived: Vec<(&str, bool)> = d
        .messages
        .iter()
        .flat_map(|m| m.evidence.iter().map(|(e, s)| (e.text.as_str(), *s)))
        .collect();
    assert!(survived.contains(&("src/parser.rs", true)), "{survived:?}");
    assert!(survived.contains(&("src/lexer.rs", true)), "{survived:?}");
    assert!(survived.contains(&("4242", true)), "{survived:?}");
    assert!(
        survived.contains(&("cargo test --release", false)),
        "{survived:?}"
    );
    // The tool name and the timeout are evidence too, lost with the call: 3 of 6 survive.
    assert!(survived.contains(&("run_shell", false)), "{survived:?}");
    assert!(survived.contains(&("600", false)), "{survived:?}");
    assert_eq!((d.evidence_survived, d.evidence_total), (3, 6));
    assert_eq!(d.evidence_survival(), 0.5);

    // The request moved into the index instead of copied: the same diff, from one message
    // or from several joined.
    let moved = diff_moving(&a.session, &plan, plan.summarizer.clone(), None);
    assert_eq!(format!("{moved:?}"), format!("{d:?}"));
    // The facts read ahead while a plan is made, all or none of them: the same diff.
    let (_, ahead) = ctxray::diff::ahead::while_planning(&a.session, || ());
    let all = ctxray::diff::ahead::Ahead::new(&a.session);
    all.read(&a.session);
    for read in [ahead, all] {
        let moved = diff_moving(&a.session, &plan, plan.summarizer.clone(), Some(&read));
        assert_eq!(format!("{moved:?}"), format!("{d:?}"));
    }
    let mut split = plan.clone();
    let whole = split.summarizer.pop().unwrap();
    let (head, tail) = whole.content.split_at(whole.content.len() / 2);
    for content in [head, tail] {
        split
            .summarizer
            .push(ctxray::compaction::plan::PromptMessage {
                role: whole.role,
                content: content.to_string(),
            });
    }
    let moved = diff_moving(&a.session, &split, split.summarizer.clone(), None);
    assert_eq!(
        format!("{moved:?}"),
        format!("{:?}", diff(&a.session, &split))
    );
}

#[test]
fn a_transcript_cut_to_its_tail_loses_the_head_of_the_oldest_message() {
    let history = vec![
        lc("human", &format!("START {}", "a".repeat(300))),
        lc("ai", &"b".repeat(300)),
        lc("human", &"c".repeat(400)),
    ];
    let session = load_bytes(serde_json::to_vec(&history).unwrap(), None, "t.json", None).unwrap();
    let a = Analysis::new(session, &Registry::bundled(), &Options::default());
    let sets = vec![
        "context_window=200".to_string(),
        "keep_ratio=0.3".to_string(),
        "max_chars=400".to_string(),
    ];
    let plan = preset::run(presets::find("dimos").unwrap(), &PlanInput::new(&a), &sets).unwrap();
    assert_eq!(plan.split.summarized, vec![0, 1]);
    let d = diff(&a.session, &plan);
    // The transcript is "HumanMessage: START aaa…\nAIMessage: bbb…" (626 chars): its last 400
    // keep the whole AI line (311 chars) and 88 characters of the human line's tail — a tail,
    // not a prefix, so the human message counts as unseen.
    assert_eq!(d.messages[1].seen_chars, 300);
    assert_eq!(d.messages[0].seen_chars, 0);
    assert_eq!(d.messages[0].raw_chars, 306);
}
