//! `replay` on generated sessions whose compactions are known by construction: messages of an
//! exact size (in tokens and characters) alternating user/assistant, so each preset's trigger
//! and cut can be worked out by hand; the Hermes auxiliary-window case; pydantic-ai-harness
//! re-compacting on every request; and the binary's JSON, comparison and errors.

use crate::support;
use ctxray::compaction::presets;

use std::process::Command;

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset;
use ctxray::formats::load_bytes;
use ctxray::replay::{self, Replay};
use ctxray::tokens::Registry;

fn analyse(json: &str, window: u64) -> Analysis {
    let session = load_bytes(json.as_bytes().to_vec(), None, "generated.json", None).unwrap();
    let options = Options {
        window: Some(window),
        ..Options::default()
    };
    Analysis::new(session, &Registry::bundled(), &options)
}

fn run(a: &Analysis, name: &str, sets: &[&str], summary_tokens: Option<usize>) -> Replay {
    let p = presets::find(name).unwrap();
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    replay::replay(
        a,
        p,
        &sets,
        &replay::Options {
            summary_tokens,
            ..Default::default()
        },
    )
    .unwrap()
}

/// Original message indices where the replay compacted.
fn at(r: &Replay) -> Vec<Option<usize>> {
    r.compactions.iter().map(|c| c.message).collect()
}

fn codes(c: &replay::Compaction) -> Vec<&str> {
    c.findings.iter().map(|f| f.code).collect()
}

/// Steps and compactions agree: the step a compaction fired at sends its result.
fn consistent(r: &Replay) {
    for c in &r.compactions {
        let s = &r.steps[c.step];
        assert!(s.fired);
        assert_eq!(s.tokens_before, c.tokens_before);
        assert_eq!(s.tokens, c.tokens_after);
        assert_eq!(s.source_index, c.at_source_index);
    }
    let fired_steps = r
        .steps
        .iter()
        .filter(|s| s.tokens != s.tokens_before)
        .count();
    assert!(fired_steps <= r.compactions.len());
}

#[test]
fn custom_compacts_every_third_request_once_the_exact_count_reaches_the_trigger() {
    // 1,000 tokens a message (+ framing). Checks before each assistant message: the history
    // holds 2k+1 messages. trigger_tokens 6,500 → first at k=3 (message #7); the cut keeps the
    // last 2 messages and a 100-token summary, about 2,100 tokens, +2,000 per request, so it
    // fires again at k=6, 9, 12 (#13, #19, #25), and not at the end.
    let a = analyse(&support::chat_session(14, 1000), 128_000);
    let r = run(
        &a,
        "custom",
        &["trigger_tokens=6500", "keep_last=2", "keep_first=0"],
        Some(100),
    );
    assert_eq!(at(&r), vec![Some(7), Some(13), Some(19), Some(25)]);
    assert_eq!(r.steps.len(), 15);
    consistent(&r);
    for c in &r.compactions {
        assert_eq!(c.messages_after, 3, "the summary and two kept messages");
        assert_eq!(c.summary_tokens, 100);
        assert!(c.tokens_after < c.tokens_before);
        assert!(c.evidence.is_none(), "a stand-in summary has no evidence");
        assert!(codes(c).is_empty(), "{:?}", codes(c));
    }
    assert_eq!(r.compactions[0].summarized, 5);
    assert_eq!(
        r.compactions[1].summarized, 7,
        "the old summary and six messages"
    );
    assert!(r.peak_tokens() < 6500);
}

#[test]
fn dimos_checks_only_before_user_turns_and_compacts_every_third_turn() {
    // dimos' estimate: 4 + 999 = 1,003 a message; a turn adds 2,006. Trigger 10,000 × 0.8:
    // first before user turn 4 (8,024 > 8,000, message #8); keep_ratio 0.35 keeps the last 3
    // messages (3,009) and the summary, so turns 7, 10, 13 (#14, #20, #26) fire again.
    let a = analyse(&support::chat_session(14, 1000), 128_000);
    for summary in [Some(100), None] {
        let r = run(&a, "dimos", &["context_window=10000"], summary);
        assert_eq!(r.checks_at, preset::CheckPoint::UserTurn);
        assert_eq!(r.steps.len(), 15, "14 user turns and the next one");
        assert!(r.steps.iter().all(|s| s.message.is_none_or(|m| m % 2 == 0)));
        assert_eq!(
            at(&r),
            vec![Some(8), Some(14), Some(20), Some(26)],
            "{summary:?}"
        );
        assert_eq!(r.threshold, 8000);
        consistent(&r);
        assert!(r.compactions.iter().all(|c| c.messages_after == 4));
        if summary.is_none() {
            let (facts, lost) = r.evidence_lost().unwrap();
            assert!(lost <= facts);
        }
    }
}

#[test]
fn pydantic_harness_compacts_every_other_request_when_the_tail_fits() {
    // chars/4 of the summed text: 2k+1 messages of 3,999 characters. max_tokens 8,500: first
    // at k=4 (8,997, message #9). The first user request, the summary and the last 4 messages
    // stay (about 5,150), +2,000 a request: again at k=6, 8, 10 (#13, #17, #21).
    let a = analyse(&support::chat_session(12, 1000), 128_000);
    let r = run(
        &a,
        "pydantic-ai-harness",
        &["max_tokens=8500", "keep_messages=4"],
        Some(100),
    );
    assert_eq!(at(&r), vec![Some(9), Some(13), Some(17), Some(21)]);
    consistent(&r);
    assert!(r
        .compactions
        .iter()
        .all(|c| !codes(c).contains(&"fires-again-at-once")));
    assert!(r.rejected.is_empty());
}

#[test]
fn pydantic_harness_062_compacts_on_every_request_when_the_kept_tail_alone_exceeds_the_trigger() {
    // max_tokens 4,500 and a kept tail of 4 messages (about 4,000) plus the first user request:
    // once it fires (k=2, message #5) every following request compacts again, the last one
    // before the next request after the session.
    let a = analyse(&support::chat_session(12, 1000), 128_000);
    let sets = ["max_tokens=4500", "keep_messages=4"];
    let r = run(&a, "pydantic-ai-harness", &sets, Some(100));
    let expected: Vec<Option<usize>> = (2..12).map(|k| Some(2 * k + 1)).chain([None]).collect();
    assert_eq!(at(&r), expected);
    consistent(&r);
    assert!(r
        .compactions
        .iter()
        .all(|c| codes(c).contains(&"fires-again-at-once")));
    // The first summarizes only what it also keeps (the first user request): it grows the
    // request, and 0.62 inserts it anyway.
    assert!(codes(&r.compactions[0]).contains(&"summary-grows-request"));
    assert!(r.compactions[0].tokens_after >= r.compactions[0].tokens_before);

    // guard=shrink rejects exactly the compactions whose result its estimator does not measure
    // below the history: the first (#5) is rejected and the history kept. Each later summary
    // replaces what the requests appended since, so it shrinks the request and passes: under
    // this rule the guard stops the summary that grows the request, not the loop.
    let mut guarded = sets.to_vec();
    guarded.push("guard=shrink");
    let g = run(&a, "pydantic-ai-harness", &guarded, Some(100));
    let rejected: Vec<usize> = g.rejected.iter().map(|x| x.at_source_index).collect();
    assert_eq!(rejected, vec![5]);
    assert_eq!(
        g.steps[g.rejected[0].step].tokens,
        g.rejected[0].tokens_before
    );
    assert!(g.rejected[0].tokens_after >= g.rejected[0].tokens_before);
    assert_eq!(at(&g), expected[1..].to_vec());
    assert!(g
        .compactions
        .iter()
        .all(|c| c.tokens_after < c.tokens_before && !codes(c).contains(&"summary-grows-request")));

    // guard=fit, the stricter reading, also rejects a result that still reaches the trigger:
    // the kept tail alone does, so no summary is ever inserted and the loop stops; each
    // request's attempt is rejected where 0.62 compacted.
    let mut fit = sets.to_vec();
    fit.push("guard=fit");
    let f = run(&a, "pydantic-ai-harness", &fit, Some(100));
    assert!(f.compactions.is_empty(), "{:?}", at(&f));
    let attempts: Vec<usize> = f.rejected.iter().map(|x| x.at_source_index).collect();
    let fired: Vec<usize> = r.compactions.iter().map(|c| c.at_source_index).collect();
    assert_eq!(attempts, fired);
    assert!(f.steps.iter().all(|s| s.tokens == s.tokens_before));
}

#[test]
fn pydantic_harness_guard_rejects_a_large_summary_until_it_pays_for_itself() {
    // A 3,000-token summary: at #5 it would replace nothing (5,015 → 8,051) and at #7 three
    // messages (7,021 → 8,051); 0.62 inserts both, guard=shrink rejects both and first
    // compacts at #9 (9,027 → 8,051).
    let a = analyse(&support::chat_session(12, 1000), 128_000);
    let sets = ["max_tokens=4500", "keep_messages=4"];
    let r = run(&a, "pydantic-ai-harness", &sets, Some(3000));
    assert_eq!(r.compactions[0].message, Some(5));
    assert!(codes(&r.compactions[0]).contains(&"summary-grows-request"));
    let mut guarded = sets.to_vec();
    guarded.push("guard=shrink");
    let g = run(&a, "pydantic-ai-harness", &guarded, Some(3000));
    let rejected: Vec<usize> = g.rejected.iter().map(|x| x.at_source_index).collect();
    assert_eq!(rejected, vec![5, 7]);
    assert_eq!(g.compactions[0].message, Some(9));
    assert!(g
        .compactions
        .iter()
        .all(|c| c.tokens_after < c.tokens_before));
    assert_eq!(g.compactions.len() + 2, r.compactions.len());
}

#[test]
fn hermes_aux_window_without_fit_lowers_the_threshold_and_compacts_more_often() {
    // 128K window: Hermes' threshold is 96,000 (0.75 under 512K). An auxiliary summarizer
    // window of 64,000: with aux_fit=false (0.19) the threshold drops to it from the first
    // compaction on; with aux_fit=true it stays.
    let a = analyse(&support::chat_session(100, 2000), 128_000);
    let base = ["aux_context_length=64000"];
    let lowered = run(&a, "hermes", &[base[0], "aux_fit=false"], None);
    let fitted = run(&a, "hermes", &[base[0], "aux_fit=true"], None);
    for r in [&lowered, &fitted] {
        consistent(r);
        assert_eq!(r.threshold, 96_000);
        assert!(!r.compactions.is_empty());
    }
    assert_eq!(
        lowered.compactions[0].message, fitted.compactions[0].message,
        "the first compaction is at the session threshold either way"
    );
    let after = |r: &Replay| -> Vec<u64> {
        let first = r.compactions[0].step;
        let mut t: Vec<u64> = r.steps[first + 1..].iter().map(|s| s.threshold).collect();
        t.dedup();
        t
    };
    assert_eq!(after(&lowered), vec![64_000]);
    assert_eq!(after(&fitted), vec![96_000]);
    assert!(
        lowered.compactions.len() > fitted.compactions.len(),
        "{} vs {}",
        lowered.compactions.len(),
        fitted.compactions.len()
    );
}

#[test]
fn without_compactions_each_step_is_the_timeline_s_whole_history() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/samples/claude-code-demo.jsonl");
    let session = ctxray::formats::load_path(&path, None).unwrap();
    let a = Analysis::new(session, &Registry::bundled(), &Options::default());
    let r = run(&a, "custom", &["trigger_tokens=100000000"], None);
    assert!(r.compactions.is_empty());
    let t = ctxray::timeline::Timeline::build(&a, None);
    let whole: Vec<u64> = t.points.iter().map(|p| p.whole).collect();
    let steps: Vec<u64> = r.steps.iter().map(|s| s.tokens).collect();
    assert_eq!(steps, whole);
    assert_eq!(r.peak_tokens(), a.total_tokens() as u64);
}

#[test]
fn every_preset_replays_the_demo_session() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/samples/claude-code-demo.jsonl");
    let session = ctxray::formats::load_path(&path, None).unwrap();
    let a = Analysis::new(
        session,
        &Registry::bundled(),
        &Options {
            window: Some(8000),
            ..Options::default()
        },
    );
    for p in presets::all() {
        let r = match replay::replay(&a, p, &[], &replay::Options::default()) {
            Ok(r) => r,
            // A preset that needs a setting refuses to replay as it refuses to plan.
            Err(e) => {
                let plan = preset::run(p, &ctxray::compaction::PlanInput::new(&a), &[]);
                assert!(plan.is_err(), "{}: {e}", p.name());
                continue;
            }
        };
        let points = replay::check_points(&a.session, p.checks_at());
        assert_eq!(r.steps.len(), points.len(), "{}", p.name());
        consistent(&r);
    }
}

// ---- the binary ----

fn ctxray(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn session_file(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("chat.json");
    std::fs::write(&path, support::chat_session(14, 1000)).unwrap();
    path.display().to_string()
}

#[test]
fn replay_json_has_the_contract_fields() {
    let dir = tempfile::tempdir().unwrap();
    let file = session_file(&dir);
    let out = ctxray(&[
        "replay",
        &file,
        "--preset",
        "custom",
        "--set",
        "trigger_tokens=6500",
        "--set",
        "keep_last=2",
        "--summary-tokens",
        "100",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["window"], 128_000);
    assert_eq!(v["threshold"], 6500);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 15);
    for s in steps {
        assert!(s["source_index"].is_u64() && s["tokens"].is_u64() && s["fired"].is_boolean());
    }
    let c = v["compactions"].as_array().unwrap();
    // Source records: the model line is no record; message #i is array item i.
    let at: Vec<u64> = c
        .iter()
        .map(|c| c["at_source_index"].as_u64().unwrap())
        .collect();
    assert_eq!(at, vec![7, 13, 19, 25]);
    for c in c {
        assert!(c["tokens_before"].as_u64() > c["tokens_after"].as_u64());
        assert!(c["summarized"].as_u64().unwrap() >= 4);
    }
    let peak = steps.iter().map(|s| s["tokens"].as_u64().unwrap()).max();
    assert_eq!(v["peak_tokens"].as_u64(), peak);
}

#[test]
fn replay_text_and_compare_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let file = session_file(&dir);
    let out = ctxray(&[
        "replay",
        &file,
        "--preset",
        "custom",
        "--set",
        "trigger_tokens=6500",
        "--summary-tokens",
        "100",
        "--compare",
        "keep_last=2",
        "keep_last=4",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("A  keep_last=2"), "{text}");
    assert!(text.contains("B  keep_last=4"), "{text}");
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("compactions"))
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells, vec!["compactions", "4", "6"], "{text}");

    let out = ctxray(&[
        "replay",
        &file,
        "--preset",
        "custom",
        "--compare",
        "dimos",
        "custom",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = v["compare"].as_array().unwrap();
    assert_eq!(runs[0]["preset"]["name"], "dimos");
    assert_eq!(runs[1]["preset"]["name"], "custom");
    assert_eq!(runs[0]["checks_at"], "user-turn");

    let out = ctxray(&[
        "replay",
        &file,
        "--preset",
        "custom",
        "--set",
        "trigger_tokens=6500",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("compaction(s)"), "{text}");
    assert!(text.contains('▲'), "{text}");
}

#[test]
fn replay_refuses_bad_input_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = session_file(&dir);
    for (args, says) in [
        (
            vec!["replay", file.as_str(), "--preset", "nope"],
            "unknown preset",
        ),
        (
            vec![
                "replay",
                file.as_str(),
                "--preset",
                "custom",
                "--compare",
                "keep_last=2",
                "bogus=1",
            ],
            "bogus",
        ),
        (
            vec![
                "replay",
                file.as_str(),
                "--preset",
                "custom",
                "--format",
                "junit",
            ],
            "not available",
        ),
        (
            vec!["replay", "/nonexistent/x.json", "--preset", "custom"],
            "x.json",
        ),
    ] {
        let out = ctxray(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
