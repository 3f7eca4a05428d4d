//! The carried path of the Agent Framework presets (records parsed once and read again through
//! `compaction::parsed::Parsed`, framework messages of common-model messages rebuilt from the
//! copy made before, estimates kept with shared contents) gives the plans and compacted lists
//! of the full path, which parses and estimates every message at every plan: over growing
//! prefixes of generated sessions of every shape, awkward Agent Framework records (parallel
//! and interleaved tool calls, orphaned results, repeated and colliding ids, empty messages,
//! records already excluded or annotated, some malformed) and the native sample; and, after
//! each compaction, over the list it left read back and grown again, as a replay carries it.

use crate::support::lcg;
use crate::write;
use ctxray::compaction::presets;
use lcg::Lcg;

use std::path::Path;

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::parsed::Parsed;
use ctxray::compaction::preset::{PlanInput, Preset};
use ctxray::compaction::{group_messages, Settings};
use ctxray::session::{Format, Session};
use ctxray::tokens::{count_session, Registry};
use serde_json::{json, Value};

/// The Agent Framework presets with settings that make them fire on a few hundred messages.
const PRESETS: &[(&str, &[&str])] = &[
    ("agent-framework", &["target_count=12", "threshold=4"]),
    ("agent-framework-1.17", &["target_count=12", "threshold=4"]),
    ("agent-framework-sliding", &["keep_last_groups=5"]),
    ("agent-framework-truncation", &["max_n=30", "compact_to=12"]),
    ("agent-framework-selective-tool", &[]),
    ("agent-framework-tool-result", &[]),
    ("agent-framework-token-budget", &["token_budget=3000"]),
    (
        "agent-framework-context-window",
        &["max_context_window_tokens=12000", "max_output_tokens=1000"],
    ),
];

fn input<'a>(
    a: &'a Analysis,
    session: &'a Session,
    counts: &'a ctxray::tokens::Counts,
    grouping: &'a ctxray::compaction::Grouping,
    parsed: Option<&'a Parsed>,
) -> PlanInput<'a> {
    PlanInput {
        session,
        counts,
        grouping,
        counter: &a.counter,
        window: a.window,
        window_flag: None,
        model: a.model.as_deref(),
        now: None,
        parsed,
        carried: None,
        after_records: true,
        carries_out: false,
        defer_request: false,
    }
}

/// Plans and compacts `session` both ways and asserts the same; the compacted session when
/// the plan changed the list.
fn both(
    a: &Analysis,
    p: &dyn Preset,
    settings: &Settings,
    session: &Session,
    parsed: &Parsed,
    what: &str,
) -> Option<Session> {
    let counts = count_session(session, &a.counter, a.info.images);
    let grouping = group_messages(session);
    let carried = input(a, session, &counts, &grouping, Some(parsed));
    let full = input(a, session, &counts, &grouping, None);
    let (pc, pf) = (p.plan(&carried, settings), p.plan(&full, settings));
    let (pc, pf) = match (pc, pf) {
        (Ok(c), Ok(f)) => (c, f),
        (c, f) => {
            assert_eq!(format!("{:?}", c.err()), format!("{:?}", f.err()), "{what}");
            return None;
        }
    };
    assert_eq!(format!("{pc:?}"), format!("{pf:?}"), "{what}: plan");
    assert_eq!(
        p.offline_summary(&carried, &pc),
        p.offline_summary(&full, &pf),
        "{what}: digest"
    );
    if !pc.trigger.fired {
        return None;
    }
    let summary = Some("the earlier turns, summarized");
    let ac = p.compacted(&carried, &pc, summary);
    let af = p.compacted(&full, &pf, summary);
    // A replay of a source of another format reads the list back message by message and
    // keeps no document of it (`after::of_messages`): its messages are compared below.
    let documented = !(ac.history.is_null() && session.format != Format::AGENT_FRAMEWORK);
    if documented {
        let (lc, lf) = (ac.history.as_array(), af.history.as_array());
        let (lc, lf) = (
            lc.map_or(&[][..], Vec::as_slice),
            lf.map_or(&[][..], Vec::as_slice),
        );
        assert_eq!(lc.len(), lf.len(), "{what}: compacted list length");
        if let Some(i) = (0..lc.len()).find(|&i| lc[i] != lf[i]) {
            panic!(
                "{what}: compacted list differs at {i}: {} vs {}",
                lc[i], lf[i]
            );
        }
        assert_eq!(ac.history, af.history, "{what}: compacted list");
    } else {
        assert!(af.history.is_array(), "{what}: the full path's document");
    }
    // As a replay holds them: a replay's read-back of a list of another format than the
    // source's has no raw records to drop (`after::read_back`).
    let (hc, hf) = (
        held(ac.session.clone(), session.format),
        held(af.session, session.format),
    );
    assert_eq!(
        format!("{:?}", hc.messages),
        format!("{:?}", hf.messages),
        "{what}: compacted session"
    );
    Some(ac.session)
}

/// The session a replay holds after a compaction of a `format` source: the framework's list
/// read back, in the source's format (raw records dropped when the formats differ).
fn held(mut s: Session, format: Format) -> Session {
    if s.format != format {
        for m in &mut s.messages {
            m.raw = None;
        }
        s.format = format;
    }
    s
}

/// Grows `a`'s session a few messages at a time under every preset, compacting as it fires
/// and going on from the list it left, both paths compared at every step.
fn check(name: &str, a: &Analysis) -> usize {
    let mut fired = 0;
    for &(preset_name, sets) in PRESETS {
        let p = presets::find(preset_name).unwrap();
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let settings = Settings::resolve(p.name(), p.params(), &sets).unwrap();
        let parsed = Parsed::new();
        let all = &a.session.messages;
        let mut base: Option<Session> = None;
        // After a compaction the session's buffer is the framework's list: appended
        // messages stand in the common model alone.
        let mut compacted = false;
        let mut from = 0;
        let step = 7;
        while from < all.len() {
            let to = (from + step).min(all.len());
            let mut s = base.clone().unwrap_or_else(|| {
                let mut s = a.session.clone();
                s.messages.clear();
                s
            });
            for m in &all[from..to] {
                let mut m = m.clone();
                m.index = s.messages.len();
                if compacted {
                    m.raw = None;
                }
                s.messages.push(m);
            }
            let what = format!("{name}: {preset_name} at {to}");
            if let Some(after) = both(a, p, &settings, &s, &parsed, &what) {
                fired += 1;
                compacted = true;
                parsed.renew();
                base = Some(held(after, a.session.format));
            } else {
                base = Some(s);
            }
            from = to;
        }
    }
    fired
}

fn analyse(path: &Path) -> Analysis {
    let session = ctxray::formats::load_path(path, None).unwrap();
    Analysis::new(session, &Registry::bundled(), &Options::default())
}

/// Agent Framework records of awkward shapes: parallel and interleaved calls, orphaned and
/// repeated results, empty messages, ids repeated or shaped like the ones the framework
/// assigns, records already excluded or annotated (some annotations malformed).
fn awkward_records(seed: u64, n: usize) -> Value {
    let mut rng = Lcg(seed);
    let text = |t: String| json!({"type": "text", "text": t, "additional_properties": {}});
    let mut records = vec![json!({"type": "message", "role": "system",
        "contents": [text("You are a careful agent.".into())], "additional_properties": {}})];
    let mut open: Vec<String> = Vec::new();
    for i in 0..n {
        let mut r = match rng.below(7) {
            0 | 1 => json!({"type": "message", "role": "user",
                "contents": [text(format!("please do step {i} {}", "x".repeat(rng.below(300) as usize)))]}),
            2 => {
                let calls: Vec<Value> = (0..=rng.below(3))
                    .map(|k| {
                        let id = format!("call_{}", rng.below(60));
                        open.push(id.clone());
                        json!({"type": "function_call", "call_id": id, "name": format!("tool{k}"),
                            "arguments": {"path": format!("/src/f{i}.rs")}, "additional_properties": {}})
                    })
                    .collect();
                json!({"type": "message", "role": "assistant", "contents": calls})
            }
            3 | 4 => {
                let id = if open.is_empty() || rng.below(5) == 0 {
                    format!("orphan_{}", rng.below(9))
                } else {
                    open.remove(rng.below(open.len() as u64) as usize)
                };
                json!({"type": "message", "role": "tool", "contents": [{"type": "function_result",
                    "call_id": id, "result": "y".repeat(rng.below(900) as usize),
                    "additional_properties": {}}]})
            }
            5 => json!({"type": "message", "role": "assistant", "contents": []}),
            _ => json!({"type": "message", "role": "assistant",
                "contents": [{"type": "text_reasoning", "text": "thinking", "additional_properties": {}},
                             text(format!("answer {i}"))]}),
        };
        match rng.below(8) {
            0 => r["message_id"] = json!(format!("m{}", rng.below(30))),
            1 => r["message_id"] = json!(format!("msg_{}", rng.below(n as u64))),
            2 => r["message_id"] = json!(""),
            _ => {}
        }
        let mut props = serde_json::Map::new();
        match rng.below(12) {
            0 => {
                props.insert("_excluded".into(), json!(true));
            }
            1 => {
                props.insert(
                    "_group".into(),
                    json!({"id": format!("group_g{}", rng.below(20)),
                    "kind": "user", "index": rng.below(50), "has_reasoning": false,
                    "token_count": 7, "token_count_basis": 2}),
                );
            }
            2 => {
                props.insert(
                    "_group".into(),
                    json!({"id": 3, "kind": "nope", "index": "x"}),
                );
            }
            _ => {}
        }
        r["additional_properties"] = Value::Object(props);
        records.push(r);
    }
    Value::Array(records)
}

#[test]
fn carried_plans_equal_full_plans_on_generated_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let mut fired = 0;
    for shape in write::Shape::ALL {
        for seed in [5, 9] {
            let path = dir
                .path()
                .join(format!("{}-{seed}.{}", shape.name(), shape.extension()));
            let mut file = std::fs::File::create(&path).unwrap();
            write::write_session(shape, 60_000, seed, &mut file).unwrap();
            fired += check(&path.display().to_string(), &analyse(&path));
        }
    }
    assert!(fired > 40, "only {fired} compactions");
}

#[test]
fn carried_plans_equal_full_plans_on_awkward_agent_framework_records() {
    let dir = tempfile::tempdir().unwrap();
    let mut fired = 0;
    for seed in 1..=4 {
        let path = dir.path().join(format!("af-{seed}.json"));
        std::fs::write(&path, awkward_records(seed, 120).to_string()).unwrap();
        let a = analyse(&path);
        assert_eq!(a.session.format, Format::AGENT_FRAMEWORK);
        fired += check(&format!("awkward agent framework seed {seed}"), &a);
    }
    assert!(fired > 10, "only {fired} compactions");
}

#[test]
fn carried_plans_equal_full_plans_on_the_native_samples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("fixtures/agent-framework/messages.jsonl")];
    // The shared samples stand beside the repository, when they are there.
    files.push(root.join("../shared/samples/frameworks/agent_framework_messages_to_dict.json"));
    let mut checked = 0;
    for path in files.iter().filter(|p| p.exists()) {
        let a = analyse(path);
        check(&path.display().to_string(), &a);
        checked += 1;
    }
    assert!(checked >= 1);
}
