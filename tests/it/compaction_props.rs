//! Compaction invariants over generated sessions, for every preset (proptest).
//!
//! Sessions are generated as OpenAI Chat message lists (user and assistant turns, tool rounds
//! with one to three calls, some results missing, texts of varied length) and read by the real
//! parser; windows are small so that the presets fire. For every preset and session:
//! - every message is pinned, summarized, kept or dropped, and no index is out of range or
//!   listed twice in one fate;
//! - fates overlap only as DESIGN.md allows: a pinned or kept message may also be summarized
//!   (where the framework renders a message it keeps), never dropped as well;
//! - a complete tool-call group is kept whole or left whole, unless a finding names the
//!   messages of the split (the framework itself splits it);
//! - planning twice gives the same plan.

use ctxray::compaction::presets;
use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::{json, Value};

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::plan::Plan;
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::formats::load_bytes;
use ctxray::session::{Format, Role};
use ctxray::tokens::Registry;

#[derive(Debug, Clone)]
enum Turn {
    User(usize),
    Assistant(usize),
    /// An assistant message calling tools; for each call, the length of its result, or
    /// `None` when no result was recorded.
    Tools(Vec<Option<usize>>),
    /// Two assistant messages calling one tool each, then both results: two groups whose
    /// messages interleave (as streamed parallel calls are recorded).
    Interleaved(usize, usize),
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        3 => (1usize..400).prop_map(Turn::User),
        3 => (1usize..400).prop_map(Turn::Assistant),
        3 => prop::collection::vec(
            prop_oneof![6 => (1usize..600).prop_map(Some), 1 => Just(None)],
            1..4
        )
        .prop_map(Turn::Tools),
    ]
}

const WORDS: &[&str] = &[
    "the",
    "build",
    "failed",
    "on",
    "src/lib.rs:12",
    "because",
    "x",
    "is",
    "moved",
    "résumé",
    "日本",
    "fn",
    "main()",
    "{",
    "}",
    "token",
    "window",
    "42",
    "null",
    "error:",
];

fn text(len: usize, seed: usize) -> String {
    let mut out = String::new();
    let mut i = seed;
    while out.len() < len {
        i = i.wrapping_mul(2_654_435_761).wrapping_add(7);
        out.push_str(WORDS[i % WORDS.len()]);
        out.push(' ');
    }
    out
}

fn to_chat(system: bool, turns: &[Turn]) -> Vec<u8> {
    let mut msgs: Vec<Value> = Vec::new();
    if system {
        msgs.push(json!({"role": "system", "content": "You are a careful coding agent."}));
    }
    msgs.push(json!({"role": "user", "content": "Fix the failing build."}));
    let mut call = 0;
    for (n, t) in turns.iter().enumerate() {
        match t {
            Turn::User(len) => msgs.push(json!({"role": "user", "content": text(*len, n)})),
            Turn::Assistant(len) => {
                msgs.push(json!({"role": "assistant", "content": text(*len, n)}))
            }
            Turn::Interleaved(a, b) => {
                call += 2;
                let ids = [format!("call_{}", call - 1), format!("call_{call}")];
                for id in &ids {
                    msgs.push(json!({"role": "assistant", "content": null, "tool_calls": [
                        {"id": id, "type": "function",
                         "function": {"name": "bash", "arguments": "{}"}}
                    ]}));
                }
                for (id, len) in ids.iter().zip([a, b]) {
                    msgs.push(
                        json!({"role": "tool", "tool_call_id": id, "content": text(*len, n)}),
                    );
                }
            }
            Turn::Tools(results) => {
                let ids: Vec<String> = results
                    .iter()
                    .map(|_| {
                        call += 1;
                        format!("call_{call}")
                    })
                    .collect();
                let calls: Vec<Value> = ids
                    .iter()
                    .map(|id| {
                        json!({"id": id, "type": "function", "function": {
                            "name": "bash",
                            "arguments": json!({"cmd": format!("cargo test {id}")}).to_string()
                        }})
                    })
                    .collect();
                msgs.push(json!({"role": "assistant", "content": null, "tool_calls": calls}));
                for (id, result) in ids.iter().zip(results) {
                    if let Some(len) = result {
                        msgs.push(json!({"role": "tool", "tool_call_id": id, "content": text(*len, n + 1)}));
                    }
                }
            }
        }
    }
    serde_json::to_vec(&Value::Array(msgs)).expect("serialise")
}

/// Settings that make the presets with no framework default usable, scaled to fire.
fn sets(preset: &str, keep: usize) -> Vec<String> {
    let keep = keep.max(1);
    let sets = match preset {
        "pydantic-ai-harness" | "pydantic-ai-harness-sliding" => {
            vec![
                format!("max_messages={}", keep + 2),
                format!("keep_messages={keep}"),
            ]
        }
        "agent-framework-truncation" => {
            vec![format!("max_n={}", keep + 2), format!("compact_to={keep}")]
        }
        "agent-framework-sliding" => vec![format!("keep_last_groups={keep}")],
        "custom" => vec![format!("keep_last={keep}")],
        "agent-framework-context-window" => vec![
            "max_context_window_tokens=1500".to_string(),
            "max_output_tokens=200".to_string(),
        ],
        _ => Vec::new(),
    };
    sets
}

/// Presets that keep every group whole, with no finding to excuse a split: ctxray's own.
const ALWAYS_WHOLE: &[&str] = &["custom"];

fn check(plan: &Plan, analysis: &Analysis) -> Result<(), String> {
    let n = analysis.session.messages.len();
    let s = &plan.split;
    let lists = [
        ("pinned", &s.pinned),
        ("summarized", &s.summarized),
        ("kept", &s.kept),
        ("dropped", &s.dropped),
    ];
    for (name, list) in lists {
        if let Some(i) = list.iter().find(|&&i| i >= n) {
            return Err(format!("{name} holds {i}, past the {n} messages"));
        }
        let unique: BTreeSet<usize> = list.iter().copied().collect();
        if unique.len() != list.len() {
            return Err(format!("{name} lists an index twice: {list:?}"));
        }
    }
    let set = |v: &Vec<usize>| v.iter().copied().collect::<BTreeSet<usize>>();
    let (pinned, summarized, kept, dropped) = (
        set(&s.pinned),
        set(&s.summarized),
        set(&s.kept),
        set(&s.dropped),
    );
    for i in 0..n {
        let placed = [&pinned, &summarized, &kept, &dropped]
            .iter()
            .any(|f| f.contains(&i));
        if !placed {
            return Err(format!("message {i} has no fate: {s:?}"));
        }
    }
    for (name, other) in [
        ("pinned", &pinned),
        ("summarized", &summarized),
        ("kept", &kept),
    ] {
        if let Some(i) = other.intersection(&dropped).next() {
            return Err(format!("message {i} is both {name} and dropped"));
        }
    }
    let survives: BTreeSet<usize> = pinned.union(&kept).copied().collect();
    for g in &analysis.grouping.groups {
        if !g.complete() {
            continue;
        }
        let inside = g.messages.iter().filter(|m| survives.contains(m)).count();
        let split = inside != 0 && inside != g.messages.len();
        let named = !ALWAYS_WHOLE.contains(&plan.preset)
            && plan
                .findings
                .iter()
                .any(|f| f.messages.iter().any(|m| g.messages.contains(m)));
        if split && !named {
            return Err(format!(
                "group {:?} is split ({inside} of {} survive) and no finding says so: {s:?}",
                g.messages,
                g.messages.len()
            ));
        }
    }
    Ok(())
}

/// What the runs saw, per preset: plans that fired, overlaps of kept and summarized, groups
/// split (with a finding).
#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    fired: usize,
    overlap: usize,
    split: usize,
}

fn observe(plan: &Plan, analysis: &Analysis) -> Seen {
    let s = &plan.split;
    let survives: BTreeSet<usize> = s.pinned.iter().chain(&s.kept).copied().collect();
    Seen {
        fired: usize::from(plan.trigger.fired),
        overlap: usize::from(s.summarized.iter().any(|i| survives.contains(i))),
        split: analysis
            .grouping
            .groups
            .iter()
            .filter(|g| {
                let inside = g.messages.iter().filter(|m| survives.contains(m)).count();
                g.complete() && inside != 0 && inside != g.messages.len()
            })
            .count(),
    }
}

/// Whether the framework itself both keeps message `i` and renders it for the summarizer:
/// pydantic-ai-harness keeps the first request and summarizes it too; Codex and Claude Code
/// send the instructions with the history and keep them, and Codex also carries the prior real
/// user messages into the new history. Nothing else may overlap.
fn may_overlap(preset: &str, analysis: &Analysis, i: usize) -> bool {
    let messages = &analysis.session.messages;
    let instructions = matches!(messages[i].role, Role::System | Role::Developer);
    match preset {
        "pydantic-ai-harness" => {
            let first_answer = messages.iter().position(|m| m.role == Role::Assistant);
            first_answer.is_none_or(|a| i < a)
        }
        "codex" => instructions || messages[i].role == Role::User,
        "claude-code" => instructions,
        _ => false,
    }
}

#[test]
fn every_preset_keeps_its_invariants() {
    use proptest::test_runner::{Config, TestRunner};
    let registry = Registry::bundled();
    let mut seen: std::collections::BTreeMap<&'static str, Seen> = Default::default();
    let seen_cell = std::cell::RefCell::new(&mut seen);
    // Few cases by default (CI); PROPTEST_CASES raises them for a longer local run.
    let strategy = (
        any::<bool>(),
        prop::collection::vec(turn(), 0..24),
        300u64..6000,
        1usize..8,
    );
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let result = TestRunner::new(config).run(&strategy, |(system, turns, window, keep)| {
        let bytes = to_chat(system, &turns);
        let session = load_bytes(bytes, None, "generated.json", Some(Format::OPENAI_CHAT))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let options = Options {
            window: Some(window),
            ..Options::default()
        };
        let analysis = Analysis::new(session, &registry, &options);
        let input = PlanInput::new(&analysis);
        for p in presets::all() {
            let sets = sets(p.name(), keep);
            let (first, second) =
                match (preset::run(p, &input, &sets), preset::run(p, &input, &sets)) {
                    (Ok(a), Ok(b)) => (a, b),
                    // A refusal is fine when it is deterministic and says why.
                    (Err(a), Err(b)) => {
                        prop_assert_eq!(a.to_string(), b.to_string());
                        continue;
                    }
                    (a, b) => {
                        return Err(TestCaseError::fail(format!(
                            "{}: planning twice gave {:?} then {:?}",
                            p.name(),
                            a.is_ok(),
                            b.is_ok()
                        )))
                    }
                };
            prop_assert_eq!(
                format!("{first:?}"),
                format!("{second:?}"),
                "{} is not deterministic",
                p.name()
            );
            check(&first, &analysis)
                .map_err(|e| TestCaseError::fail(format!("{}: {e}", p.name())))?;
            let this = observe(&first, &analysis);
            let mut seen = seen_cell.borrow_mut();
            let entry = seen.entry(p.name()).or_default();
            entry.fired += this.fired;
            entry.overlap += this.overlap;
            entry.split += this.split;
            let survives: BTreeSet<usize> = first
                .split
                .pinned
                .iter()
                .chain(&first.split.kept)
                .copied()
                .collect();
            let both = first
                .split
                .summarized
                .iter()
                .find(|&&i| survives.contains(&i) && !may_overlap(p.name(), &analysis, i));
            if let Some(i) = both {
                return Err(TestCaseError::fail(format!(
                    "{}: message {i} is both kept and summarized: {:?}",
                    p.name(),
                    first.split
                )));
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!("what the generated sessions exercised: {seen:#?}");
    // The generated sessions must exercise compaction: every preset fires on some of them.
    for p in presets::all() {
        let s = seen.get(p.name()).copied().unwrap_or_default();
        assert!(
            s.fired > 0,
            "{} never fired on the generated sessions",
            p.name()
        );
    }
}

/// `custom` keeps groups whole whatever `keep_last` and `keep_first` are, also when the
/// messages of two groups interleave.
#[test]
fn custom_keeps_interleaved_groups_whole() {
    use proptest::test_runner::{Config, TestRunner};
    let registry = Registry::bundled();
    let turn = prop_oneof![
        2 => turn(),
        1 => (1usize..300, 1usize..300).prop_map(|(a, b)| Turn::Interleaved(a, b)),
    ];
    let strategy = (
        any::<bool>(),
        prop::collection::vec(turn, 1..20),
        0usize..16,
        0usize..3,
    );
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let custom = presets::all()
        .into_iter()
        .find(|p| p.name() == "custom")
        .expect("the custom preset");
    let result =
        TestRunner::new(config).run(&strategy, |(system, turns, keep_last, keep_first)| {
            let bytes = to_chat(system, &turns);
            let session = load_bytes(bytes, None, "generated.json", Some(Format::OPENAI_CHAT))
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let analysis = Analysis::new(session, &registry, &Options::default());
            let input = PlanInput::new(&analysis);
            let sets = [
                "trigger_tokens=1".to_string(),
                format!("keep_last={keep_last}"),
                format!("keep_first={keep_first}"),
            ];
            let plan = preset::run(custom, &input, &sets)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            check(&plan, &analysis).map_err(|e| TestCaseError::fail(format!("custom: {e}")))
        });
    if let Err(e) = result {
        panic!("{e}");
    }
}
