//! Agent Framework after a compaction: the list `compacted` leaves is the one the real framework
//! stores (checked against the oracle's stored history of a real first pass), it plans again
//! the way the framework does — natively and after going through the common model, excluded
//! messages flags and all — `replay` carries it from compaction to compaction, and the offline
//! digest holds only what the framework's summarizer is shown (seed 001: 1.17 renders tool
//! rounds as bare `function_call` / `function_result` placeholders).

use crate::support;
use ctxray::compaction::presets;
use std::path::{Path, PathBuf};
use support::{check_fates, check_summarizer};

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::digest::digest;
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::formats::{load_bytes, load_path};
use ctxray::replay::{self, Replay};
use ctxray::session::{Format, Part, Role, Session};
use ctxray::tokens::Registry;
use serde_json::{json, Value};

fn oracle(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/oracle")
        .join(rel)
}

fn read(rel: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(oracle(rel)).unwrap()).unwrap()
}

fn analyse(session: Session) -> Analysis {
    Analysis::new(session, &Registry::bundled(), &Options::default())
}

#[test]
fn the_compacted_list_is_the_one_the_framework_stores() {
    // The oracle's `prior-summary-stored` input begins with the list a real first pass of the
    // default SummarizationStrategy left on this session, its summarizer answering
    // `EARLIER-SUMMARY-1` (then six new records follow).
    for dir in ["agent-framework", "agent-framework-1.17"] {
        let a = analyse(
            load_path(
                &oracle(&format!("{dir}/default-parallel-tools.input.json")),
                None,
            )
            .unwrap(),
        );
        let p = presets::find(dir).unwrap();
        let input = PlanInput::new(&a);
        let plan = preset::run(p, &input, &[]).unwrap();
        assert!(plan.trigger.fired, "{dir}");
        let after = p.compacted(&input, &plan, Some("EARLIER-SUMMARY-1"));
        let stored = read(&format!("{dir}/prior-summary-stored.input.json"));
        let stored = stored.as_array().unwrap();
        let got = after.history.as_array().unwrap();
        assert_eq!(got.len(), a.session.messages.len() + 1, "{dir}");
        assert_eq!(got.as_slice(), &stored[..got.len()], "{dir}");
        // Read back: the excluded originals are events (no tokens), the summary a summary part.
        let events = after
            .session
            .messages
            .iter()
            .filter(|m| m.role == Role::Event);
        assert_eq!(events.count(), plan.split.summarized.len(), "{dir}");
        let after_a = a.derived(after.session);
        assert!(after_a.total_tokens() < a.total_tokens(), "{dir}");
        let summary = after_a.session.messages.iter().flat_map(|m| &m.parts);
        let summary: Vec<&Part> = summary.filter(|p| p.kind() == "summary").collect();
        assert_eq!(
            summary,
            [&Part::Summary {
                text: "EARLIER-SUMMARY-1".into()
            }],
            "{dir}"
        );
    }
}

#[test]
fn another_format_compacts_into_agent_framework_records() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/claude-code-demo.jsonl");
    let a = analyse(load_path(&path, None).unwrap());
    let p = presets::find("agent-framework-sliding").unwrap();
    let input = PlanInput::new(&a);
    let plan = preset::run(p, &input, &["keep_last_groups=2".to_string()]).unwrap();
    assert!(plan.trigger.fired);
    let after = p.compacted(&input, &plan, None);
    assert_eq!(after.format, Some(Format::AGENT_FRAMEWORK));
    let records = after.history.as_array().unwrap();
    assert!(records.iter().all(|r| r["type"] == "message"));
    let excluded = records
        .iter()
        .filter(|r| r["additional_properties"]["_exclude_reason"] == "sliding_window")
        .count();
    let dropped = plan.split.dropped.iter();
    let dropped = dropped.filter(|&&i| a.session.messages[i].role != Role::Event);
    assert_eq!(excluded, dropped.count());
    let events = after
        .session
        .messages
        .iter()
        .filter(|m| m.role == Role::Event);
    assert_eq!(events.count(), excluded);
    assert!(a.derived(after.session).total_tokens() < a.total_tokens());
}

#[test]
fn an_empty_summary_leaves_the_list_as_the_framework_does_uncompacted() {
    let a = analyse(load_path(&oracle("agent-framework/above-trigger.input.json"), None).unwrap());
    let p = presets::find("agent-framework").unwrap();
    let input = PlanInput::new(&a);
    let plan = preset::run(p, &input, &[]).unwrap();
    assert!(plan.trigger.fired);
    let after = p.compacted(&input, &plan, Some(" \n\t "));
    let got = after.history.as_array().unwrap();
    assert_eq!(got.len(), a.session.messages.len());
    assert!(got
        .iter()
        .all(|r| r["additional_properties"]["_excluded"] == json!(false)));
    assert!(after.session.messages.iter().all(|m| m.role != Role::Event));
}

#[test]
fn a_stored_history_plans_alike_natively_and_through_the_common_model() {
    // The replay carries another source's format: the framework's records are dropped and the
    // history stands in the common model, where excluded messages are events holding theirs.
    for dir in ["agent-framework", "agent-framework-1.17"] {
        let golden = read(&format!("{dir}/prior-summary-stored.golden.json"));
        let e = &golden["expected"];
        let native = load_path(
            &oracle(&format!("{dir}/prior-summary-stored.input.json")),
            None,
        )
        .unwrap();
        let mut common = native.clone();
        common.format = Format::OPENAI_CHAT;
        for m in &mut common.messages {
            m.raw = None;
        }
        for session in [native, common] {
            let format = session.format;
            let a = analyse(session);
            let plan = preset::run(presets::find(dir).unwrap(), &PlanInput::new(&a), &[]).unwrap();
            let mut bad = check_fates(e, &a.session, &plan);
            bad.extend(check_summarizer(e, &plan));
            assert!(bad.is_empty(), "{dir} as {}: {bad:?}", format.name());
        }
    }
}

/// `rounds` rounds of user request, read_file call, its result and an answer, as Agent
/// Framework records and as OpenAI chat messages.
fn conversation(rounds: usize) -> (String, String) {
    let mut af = vec![
        json!({"type": "message", "role": "system", "contents": [{"type": "text", "text": "You are a coding agent."}], "message_id": "sys"}),
    ];
    let mut chat = vec![json!({"role": "system", "content": "You are a coding agent."})];
    for r in 0..rounds {
        let (ask, path, body, answer) = (
            format!("Explain what src/f{r}.py does."),
            format!("src/f{r}.py"),
            (0..40)
                .map(|i| format!("    x{i} = {r} * {i}  # step {i} of f{r}\n"))
                .collect::<String>(),
            format!("f{r} returns {} when called.", r * 2),
        );
        let args = json!({"path": path}).to_string();
        af.push(json!({"type": "message", "role": "user", "contents": [{"type": "text", "text": ask}], "message_id": format!("u{r}")}));
        af.push(json!({"type": "message", "role": "assistant", "contents": [{"type": "function_call", "call_id": format!("c{r}"), "name": "read_file", "arguments": {"path": path}}], "message_id": format!("a{r}")}));
        af.push(json!({"type": "message", "role": "tool", "contents": [{"type": "function_result", "call_id": format!("c{r}"), "result": body}]}));
        af.push(json!({"type": "message", "role": "assistant", "contents": [{"type": "text", "text": answer}], "message_id": format!("t{r}")}));
        chat.push(json!({"role": "user", "content": ask}));
        chat.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("c{r}"), "type": "function", "function": {"name": "read_file", "arguments": args}}]}));
        chat.push(json!({"role": "tool", "tool_call_id": format!("c{r}"), "content": body}));
        chat.push(json!({"role": "assistant", "content": answer}));
    }
    (
        Value::Array(af).to_string(),
        json!({"messages": chat}).to_string(),
    )
}

fn replayed(json: &str, name: &str, sets: &[&str]) -> (Format, Replay) {
    let session = load_bytes(json.as_bytes().to_vec(), None, "generated.json", None).unwrap();
    let format = session.format;
    let a = analyse(session);
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let p = presets::find(name).unwrap();
    (
        format,
        replay::replay(&a, p, &sets, &replay::Options::default()).unwrap(),
    )
}

#[test]
fn replay_carries_the_excluded_messages_natively_and_through_the_common_model() {
    // Sliding window, keep 3 groups: checked before each assistant message, at most two new
    // groups arrive between checks, so the framework never measures more than 5 included
    // groups — unless a carried history lost its exclusions (28 groups by the end).
    let (af, chat) = conversation(7);
    let (f1, native) = replayed(&af, "agent-framework-sliding", &["keep_last_groups=3"]);
    let (f2, common) = replayed(&chat, "agent-framework-sliding", &["keep_last_groups=3"]);
    assert_eq!((f1, f2), (Format::AGENT_FRAMEWORK, Format::OPENAI_CHAT));
    for r in [&native, &common] {
        assert!(r.compactions.len() >= 5, "{}", r.compactions.len());
        let values: Vec<u64> = r.steps.iter().map(|s| s.value).collect();
        assert!(values.iter().all(|&v| v <= 5), "{values:?}");
        for c in &r.compactions {
            assert!(c.tokens_after < c.tokens_before, "{c:?}");
            assert!(
                c.messages_after >= c.messages_before,
                "marked, not deleted: {c:?}"
            );
            assert!(c.findings.is_empty(), "{:?}", c.findings);
        }
    }
    let measure = |r: &Replay| {
        r.steps
            .iter()
            .map(|s| (s.fired, s.value))
            .collect::<Vec<_>>()
    };
    assert_eq!(measure(&native), measure(&common));
    // Summarization: the earlier summary and the excluded originals stay in the list the next
    // plan reads; every compaction frees context.
    let (_, summarized) = replayed(&af, "agent-framework", &[]);
    assert!(
        summarized.compactions.len() >= 3,
        "{}",
        summarized.compactions.len()
    );
    let mut held = 0;
    for c in &summarized.compactions {
        assert!(c.tokens_after < c.tokens_before, "{c:?}");
        assert!(c.messages_after > held.max(c.messages_before), "{c:?}");
        held = c.messages_after;
    }
}

/// Tool names and string arguments of the session's calls.
fn tool_facts(s: &Session) -> Vec<String> {
    let mut out = Vec::new();
    for p in s.messages.iter().flat_map(|m| &m.parts) {
        if let Part::ToolCall {
            name, arguments, ..
        } = p
        {
            out.push(name.clone());
            if let Ok(Value::Object(args)) = serde_json::from_str::<Value>(arguments) {
                out.extend(args.values().filter_map(Value::as_str).map(str::to_string));
            }
        }
    }
    out
}

#[test]
fn the_offline_digest_holds_only_what_the_summarizer_is_shown() {
    // Seed 001: `2. [assistant] function_call` / `3. [tool] function_result` in 1.17.
    for (dir, shows_tools) in [("agent-framework-1.17", false), ("agent-framework", true)] {
        let a = analyse(
            load_path(
                &oracle(&format!("{dir}/default-parallel-tools.input.json")),
                None,
            )
            .unwrap(),
        );
        let p = presets::find(dir).unwrap();
        let input = PlanInput::new(&a);
        let plan = preset::run(p, &input, &[]).unwrap();
        let shown: String = plan.summarizer.iter().map(|m| m.content.as_str()).collect();
        let offline = preset::offline_summary(p, &input, &plan);
        let summarized = Session {
            messages: plan
                .split
                .summarized
                .iter()
                .map(|&i| a.session.messages[i].clone())
                .collect(),
            ..a.session.clone()
        };
        let facts = tool_facts(&summarized);
        assert!(facts.contains(&"read_file".to_string()), "{facts:?}");
        let hidden: Vec<&String> = facts
            .iter()
            .filter(|f| !shown.contains(f.as_str()))
            .collect();
        let leaked: Vec<&&String> = hidden
            .iter()
            .filter(|f| offline.contains(f.as_str()))
            .collect();
        assert!(leaked.is_empty(), "{dir}: {leaked:?} in\n{offline}");
        assert!(offline.contains("Tool rounds (2)"), "{dir}:\n{offline}");
        if shows_tools {
            assert!(hidden.is_empty(), "{dir}: {hidden:?}");
            assert!(
                facts.iter().all(|f| offline.contains(f.as_str())),
                "{dir}:\n{offline}"
            );
        } else {
            assert!(hidden.contains(&&"read_file".to_string()), "{hidden:?}");
            assert!(
                offline.contains("function_call, function_call → function_result"),
                "{offline}"
            );
            // ctxray's generic digest of the same messages names what the summarizer never saw.
            let generic = digest(&a.session, &plan.split.summarized);
            assert!(
                hidden.iter().any(|f| generic.contains(f.as_str())),
                "{generic}"
            );
        }
    }
}
