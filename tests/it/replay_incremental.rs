//! The quick replay (quiet triggers, per-message numbers kept across checks, groups computed
//! only for a full plan) equals the replay that plans the whole history at every check, for
//! every preset, on generated sessions of every shape, on awkward hand-made shapes (parallel
//! and interleaved tool calls, orphaned results, repeated ids, empty messages) and on the
//! real samples.

use crate::support::lcg;
use crate::write;
use ctxray::compaction::presets;
use lcg::Lcg;

use std::path::{Path, PathBuf};

use ctxray::analysis::{Analysis, Options};
use ctxray::replay::{self, Replay};
use ctxray::tokens::Registry;
use serde_json::{json, Value};

/// Settings that make each preset fire several times on a session of a few hundred messages.
fn sets(preset: &str) -> Vec<Vec<&'static str>> {
    match preset {
        "custom" => vec![
            vec!["trigger_tokens=6000", "keep_last=3"],
            vec!["trigger_messages=25", "keep_last=4", "keep_first=1"],
            vec![
                "trigger_ratio=0.5",
                "context_window=12000",
                "keep_tokens=2000",
            ],
        ],
        "dimos" => vec![vec!["context_window=10000"], vec!["context_window=6000"]],
        "claude-code" => vec![
            vec!["context_window=40000"],
            vec!["context_window=200000", "autocompact_pct_override=5"],
        ],
        "codex" => vec![vec!["model_auto_compact_token_limit=6000"]],
        "hermes" => vec![
            vec!["config_context_length=16000"],
            vec!["config_context_length=20000", "aux_context_length=64000"],
        ],
        "openhands" | "openhands-fixed" => {
            vec![vec!["max_size=30"], vec!["max_size=40", "max_tokens=9000"]]
        }
        "pydantic-ai-harness" | "pydantic-ai-harness-sliding" => vec![
            vec!["max_messages=30", "keep_messages=4"],
            vec!["max_tokens=6000", "keep_messages=4"],
            vec![
                "max_tokens=6000",
                "keep_messages=4",
                "tokenizer=len",
                "guard=shrink",
            ],
        ],
        "agent-framework-truncation" => vec![
            vec!["max_n=30", "compact_to=10"],
            vec!["max_n=200", "compact_to=100"],
            vec![
                "max_n=3000",
                "compact_to=1500",
                "tokenizer=CharacterEstimatorTokenizer",
            ],
        ],
        "agent-framework-token-budget" => vec![vec!["token_budget=3000"]],
        "agent-framework-sliding" => vec![vec!["keep_last_groups=3"], vec!["keep_last_groups=20"]],
        "agent-framework-context-window" => vec![
            vec!["max_context_window_tokens=12000", "max_output_tokens=1000"],
            vec!["max_context_window_tokens=16000", "max_output_tokens=4096"],
        ],
        _ => vec![vec![]],
    }
}

fn analyse(path: &Path) -> Option<Analysis> {
    let session = ctxray::formats::load_path(path, None).ok()?;
    Some(Analysis::new(
        session,
        &Registry::bundled(),
        &Options::default(),
    ))
}

/// Both replays of `a` under every preset and its settings, compared whole.
fn assert_same(name: &str, a: &Analysis) -> usize {
    let mut compactions = 0;
    for p in presets::all() {
        for sets in sets(p.name()) {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            for options in [
                replay::Options::default(),
                replay::Options {
                    summary_tokens: Some(300),
                    ..Default::default()
                },
            ] {
                let quick = replay::replay(a, p, &sets, &options);
                let full = replay::replay_planning_every_check(a, p, &sets, &options);
                let (quick, full) = match (quick, full) {
                    (Ok(q), Ok(f)) => (q, f),
                    (Err(q), Err(f)) => {
                        assert_eq!(q.to_string(), f.to_string(), "{name} {} {sets:?}", p.name());
                        continue;
                    }
                    (q, f) => panic!(
                        "{name} {} {sets:?}: {:?} vs {:?}",
                        p.name(),
                        q.err(),
                        f.err()
                    ),
                };
                compactions += full.compactions.len();
                let what = format!("{name}: preset {} with {sets:?}", p.name());
                if let Some(i) = (0..quick.steps.len().max(full.steps.len()))
                    .find(|&i| quick.steps.get(i) != full.steps.get(i))
                {
                    panic!(
                        "{what}: step {i} differs: quick {:?}, planned {:?}",
                        quick.steps.get(i),
                        full.steps.get(i)
                    );
                }
                assert_eq!(debug(&quick), debug(&full), "{what}");
            }
        }
    }
    compactions
}

fn debug(r: &Replay) -> String {
    format!("{r:#?}")
}

fn generated(dir: &Path, shape: write::Shape, size: u64, seed: u64) -> PathBuf {
    let path = dir.join(format!("{}-{seed}.{}", shape.name(), shape.extension()));
    let mut file = std::fs::File::create(&path).unwrap();
    write::write_session(shape, size, seed, &mut file).unwrap();
    path
}

#[test]
fn quick_replay_equals_planning_every_check_on_generated_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let mut compactions = 0;
    for shape in write::Shape::ALL {
        for seed in [3, 11] {
            let path = generated(dir.path(), shape, 120_000, seed);
            let a = analyse(&path).unwrap();
            compactions += assert_same(&path.display().to_string(), &a);
        }
    }
    assert!(
        compactions > 50,
        "only {compactions} compactions: the settings fire too rarely"
    );
}

/// Parallel calls, results interleaved across assistant messages and out of order, repeated
/// call ids, orphaned results, calls never answered, empty and null contents, system messages
/// in the middle.
fn awkward_chat(seed: u64, messages: usize) -> Value {
    let mut rng = Lcg(seed);
    let mut out = vec![json!({"role": "system", "content": "You are a coding agent."})];
    let mut open: Vec<String> = Vec::new();
    let mut next_id = 0;
    let text = |rng: &mut Lcg, n: u64| -> String {
        let words = [
            "build", "the", "parser", "fails", "on", "line", "42", "retry", "ok", "diff",
        ];
        (0..rng.below(n) + 1)
            .map(|_| words[rng.below(words.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ")
    };
    while out.len() < messages {
        match rng.below(10) {
            0..=1 => {
                let content = if rng.below(6) == 0 {
                    String::new()
                } else {
                    text(&mut rng, 60)
                };
                out.push(json!({"role": "user", "content": content}));
            }
            2..=4 => {
                let calls: Vec<Value> = (0..rng.below(4))
                    .map(|_| {
                        let id = if rng.below(5) == 0 && next_id > 0 {
                            format!("call_{}", rng.below(next_id))
                        } else {
                            next_id += 1;
                            format!("call_{}", next_id - 1)
                        };
                        open.push(id.clone());
                        json!({"id": id, "type": "function",
                            "function": {"name": "bash", "arguments": format!("{{\"cmd\": \"{}\"}}", text(&mut rng, 8))}})
                    })
                    .collect();
                let content = match rng.below(4) {
                    0 => Value::Null,
                    1 => json!(""),
                    _ => json!(text(&mut rng, 80)),
                };
                let mut m = json!({"role": "assistant", "content": content});
                if !calls.is_empty() {
                    m["tool_calls"] = Value::Array(calls);
                }
                out.push(m);
            }
            5..=7 if !open.is_empty() => {
                let at = rng.below(open.len() as u64) as usize;
                let id = open.remove(at);
                out.push(
                    json!({"role": "tool", "tool_call_id": id, "content": text(&mut rng, 300)}),
                );
            }
            8 => {
                out.push(json!({"role": "tool", "tool_call_id": format!("orphan_{}", rng.below(1000)), "content": text(&mut rng, 40)}));
            }
            9 if rng.below(4) == 0 => {
                out.push(json!({"role": "system", "content": text(&mut rng, 20)}));
            }
            _ => out.push(json!({"role": "assistant", "content": text(&mut rng, 40)})),
        }
    }
    json!({"model": "gpt-4o", "messages": out})
}

#[test]
fn quick_replay_equals_planning_every_check_on_awkward_shapes() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 1..=3 {
        let path = dir.path().join(format!("awkward-{seed}.json"));
        std::fs::write(&path, awkward_chat(seed, 150).to_string()).unwrap();
        let a = analyse(&path).unwrap();
        assert_same(&format!("awkward seed {seed}"), &a);
    }
}

/// The awkward shapes as Agent Framework's own `Message.to_dict()` records: some messages
/// with a `message_id` (a few repeated), most without.
fn awkward_agent_framework(seed: u64, messages: usize) -> Value {
    let chat = awkward_chat(seed, messages);
    let mut rng = Lcg(seed ^ 0x5eed);
    let text = |t: &str| json!({"type": "text", "text": t, "additional_properties": {}});
    let records: Vec<Value> = chat["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let mut contents = Vec::new();
            if let Some(t) = m["content"].as_str().filter(|t| !t.is_empty()) {
                contents.push(match m["role"].as_str() {
                    Some("tool") => json!({"type": "function_result",
                        "call_id": m["tool_call_id"], "result": t, "additional_properties": {}}),
                    _ => text(t),
                });
            }
            for c in m["tool_calls"].as_array().into_iter().flatten() {
                contents.push(json!({"type": "function_call", "call_id": c["id"],
                    "name": c["function"]["name"], "arguments": c["function"]["arguments"],
                    "additional_properties": {}}));
            }
            let mut r = json!({"type": "message", "role": m["role"], "contents": contents,
                "additional_properties": {}});
            match rng.below(6) {
                0 => r["message_id"] = json!(format!("m{}", rng.below(40))),
                1 => r["message_id"] = json!(format!("msg_{}", rng.below(200))),
                _ => {}
            }
            r
        })
        .collect();
    Value::Array(records)
}

#[test]
fn quick_replay_equals_planning_every_check_on_agent_framework_records() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 1..=3 {
        let path = dir.path().join(format!("awkward-af-{seed}.json"));
        std::fs::write(&path, awkward_agent_framework(seed, 150).to_string()).unwrap();
        let a = analyse(&path).unwrap();
        assert_eq!(a.session.format, ctxray::session::Format::AGENT_FRAMEWORK);
        assert_same(&format!("agent framework seed {seed}"), &a);
    }
}

#[test]
fn quick_replay_equals_planning_every_check_on_the_samples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("fixtures/samples/claude-code-demo.jsonl")];
    let shared = root.join("../shared/samples");
    for rel in [
        "claude_code/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        "claude_code/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
        "codex/timvw-sample_session.jsonl",
        "openhands/v1_sdk/goal-events.jsonl",
        "frameworks/pydantic_ai_model_messages.json",
        "frameworks/agent_framework_messages_to_dict.json",
        "frameworks/langchain_messages_to_dict.json",
    ] {
        files.push(shared.join(rel));
    }
    let mut checked = 0;
    for path in files.iter().filter(|p| p.exists()) {
        if let Some(a) = analyse(path) {
            assert_same(&path.display().to_string(), &a);
            checked += 1;
        }
    }
    assert!(checked >= 1);
    // Beside the repository (as CI has it), the shared samples are replayed too.
    if shared.is_dir() {
        assert!(
            checked > 1,
            "only {checked} of {} files replayed",
            files.len()
        );
    }
}

/// Every Agent Framework preset compacts several times on a generated session under one of
/// its settings above at least, so the comparison covers what a compaction carries to the next.
#[test]
fn agent_framework_presets_fire_several_times_here() {
    let dir = tempfile::tempdir().unwrap();
    let path = generated(dir.path(), write::Shape::ClaudeCode, 120_000, 3);
    let a = analyse(&path).unwrap();
    for p in presets::all()
        .into_iter()
        .filter(|p| p.name().starts_with("agent-framework"))
    {
        let counts: Vec<usize> = sets(p.name())
            .iter()
            .map(|sets| {
                let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
                let r = replay::replay(&a, p, &sets, &replay::Options::default()).unwrap();
                r.compactions.len()
            })
            .collect();
        assert!(
            counts.iter().any(|&n| n >= 3),
            "{}: {counts:?} compactions",
            p.name()
        );
    }
}
