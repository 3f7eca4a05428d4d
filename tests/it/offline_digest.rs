//! The frameworks' own offline summaries, through `Preset::offline_summary` and `apply`:
//! Hermes' static fallback summary against goldens of the real hermes-agent 0.19.0 compressor
//! run with a summarizer that is not reachable (fixtures/oracle/hermes-fallback), dimos' offline
//! digest against goldens of its `compact_history` (fixtures/oracle/dimos), and both in
//! `ctxray compact --json` on the binary.

use crate::support;
use ctxray::compaction::presets;
use std::path::Path;
use support::first_difference;

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::apply::apply;
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::formats::load_path;
use ctxray::session::{Part, Session};
use ctxray::tokens::Registry;
use serde_json::Value;

/// The text of the summary message `apply` puts at `position`.
fn summary_text(s: &Session, position: usize) -> Option<&str> {
    s.messages
        .get(position)?
        .parts
        .iter()
        .find_map(|p| match p {
            Part::Summary { text } => Some(text.as_str()),
            _ => None,
        })
}

/// The mismatches of one Hermes fallback golden on the session at `source`.
fn check_hermes(g: &Value, source: &Path) -> Vec<String> {
    let e = &g["expected"];
    let session = load_path(source, None).unwrap();
    let options = Options {
        model: g["model"].as_str().map(str::to_string),
        ..Options::default()
    };
    let a = Analysis::new(session, &Registry::bundled(), &options);
    let input = PlanInput::new(&a);
    let hermes = presets::find("hermes").unwrap();
    let plan = match preset::run(hermes, &input, &support::hermes_sets(g)) {
        Ok(p) => p,
        Err(err) => return vec![format!("plan failed: {err}")],
    };
    if !plan.trigger.fired {
        return vec![format!("does not fire: {}", plan.trigger.reason)];
    }
    let mut bad = Vec::new();
    let full = e["fallback_summary"].as_str().unwrap();
    let (_, body) = full.split_once('\n').unwrap();
    match hermes.offline_summary(&input, &plan) {
        None => bad.push("Hermes::offline_summary is None".into()),
        Some(got) if got != body => {
            bad.push(format!("fallback: {}", first_difference(body, &got)));
        }
        Some(_) => {}
    }
    let offline = preset::offline_summary(hermes, &input, &plan);
    let out = apply(&a.session, &plan, Some(&offline));
    let inserted = &e["summary_inserted"];
    let position = inserted["position"].as_u64().unwrap() as usize;
    let want = inserted["content"].as_str().unwrap();
    match summary_text(&out, position) {
        Some(got) if got == want => {}
        Some(got) => bad.push(format!("inserted: {}", first_difference(want, got))),
        None => bad.push(format!("no summary message at {position}")),
    }
    let role = inserted["role"].as_str().unwrap();
    if out.messages.get(position).map(|m| m.role.as_str()) != Some(role) {
        bad.push(format!("summary role: want {role}"));
    }
    let len = e["compacted_history_len"].as_u64().unwrap() as usize;
    if out.messages.len() != len {
        bad.push(format!(
            "compacted history: want {len} messages got {}",
            out.messages.len()
        ));
    }
    bad
}

#[test]
fn hermes_fallback_summary_matches_the_real_compressor() {
    let all = support::goldens("hermes-fallback");
    assert!(all.len() >= 18, "only {} fallback goldens", all.len());
    let mut failures = Vec::new();
    for path in &all {
        let g = support::read(path);
        let input = support::oracle_dir().join(g["input"].as_str().unwrap());
        let bad = check_hermes(&g, &input);
        if !bad.is_empty() {
            failures.push(format!("{}:\n  {}", path.display(), bad.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fallback golden(s) differ:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// The sample goldens were made from ctxray's OpenAI-chat export of the Claude Code sample; the
/// sample itself, read in its own format, must give the same fallback.
#[test]
fn hermes_fallback_on_the_claude_code_sample_itself() {
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/claude-code-demo.jsonl");
    let mut checked = 0;
    for path in support::goldens("hermes-fallback") {
        let g = support::read(&path);
        if g["input"] != "hermes-fallback/claude-code-demo.input.json" {
            continue;
        }
        let bad = check_hermes(&g, &sample);
        assert!(
            bad.is_empty(),
            "{}:\n  {}",
            path.display(),
            bad.join("\n  ")
        );
        checked += 1;
    }
    assert_eq!(checked, 2);
}

/// The mismatches of one dimos golden: trigger estimate, kept messages, the offline digest (the
/// preset's and the one `apply` inserts), and the model summarizer's prompt.
fn check_dimos(g: &Value) -> Vec<String> {
    let e = &g["expected"];
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(g["input"].as_str().unwrap());
    let session = load_path(&source, None).unwrap();
    let a = Analysis::new(session, &Registry::bundled(), &Options::default());
    let input = PlanInput::new(&a);
    let sets: Vec<String> = g["settings"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let dimos = presets::find("dimos").unwrap();
    let plan = match preset::run(dimos, &input, &sets) {
        Ok(p) => p,
        Err(err) => return vec![format!("plan failed: {err}")],
    };
    let mut bad = Vec::new();
    let compacted = e["compacted"].as_bool().unwrap();
    if plan.trigger.fired != compacted {
        bad.push(format!(
            "fired {} want {compacted}: {}",
            plan.trigger.fired, plan.trigger.reason
        ));
    }
    if Some(plan.trigger.value) != e["tokens_before"].as_u64() {
        bad.push(format!(
            "estimate {} want {}",
            plan.trigger.value, e["tokens_before"]
        ));
    }
    let own = dimos.offline_summary(&input, &plan);
    if !compacted {
        if own.is_some() {
            bad.push("offline summary without a compaction".into());
        }
        return bad;
    }
    let want = e["summary"].as_str().unwrap();
    match own.as_deref() {
        Some(got) if got == want => {}
        Some(got) => bad.push(format!("digest: {}", first_difference(want, got))),
        None => bad.push("Dimos::offline_summary is None".into()),
    }
    let out = apply(
        &a.session,
        &plan,
        Some(&preset::offline_summary(dimos, &input, &plan)),
    );
    let position = e["summary_position"].as_u64().unwrap() as usize;
    let inserted = e["summary_message"]["data"]["content"].as_str().unwrap();
    match summary_text(&out, position) {
        Some(got) if got == inserted => {}
        Some(got) => bad.push(format!("inserted: {}", first_difference(inserted, got))),
        None => bad.push(format!("no summary message at {position}")),
    }
    if out.messages.get(position).map(|m| m.role.as_str()) != Some("user") {
        bad.push("the summary is not a user (HumanMessage) message".into());
    }
    let kept: Vec<usize> = out
        .messages
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != position)
        .map(|(_, m)| m.source_index)
        .collect();
    let want_kept: Vec<usize> = e["kept_source_indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    if kept != want_kept {
        bad.push(format!("kept {kept:?} want {want_kept:?}"));
    }
    let history = dimos.compacted(
        &input,
        &plan,
        Some(&preset::offline_summary(dimos, &input, &plan)),
    );
    // Compared as text: the key order of each dict is part of the framework's serialisation.
    let text = |v: &Value| serde_json::to_string(v).unwrap();
    if text(&history.history) != text(&e["compacted_history"]) {
        bad.push(format!(
            "compacted history: {}",
            first_difference(
                &serde_json::to_string_pretty(&e["compacted_history"]).unwrap(),
                &serde_json::to_string_pretty(&history.history).unwrap()
            )
        ));
    }
    if history.format.is_none()
        || history.session.messages.len() != history.history.as_array().map_or(0, Vec::len)
    {
        bad.push(
            "the compacted history does not load back as langchain, one message per record".into(),
        );
    }
    let prompt = e["model_summarizer"]["messages"][0].as_str().unwrap();
    match plan.summarizer.first() {
        Some(m) if m.content == prompt && plan.summarizer.len() == 1 => {}
        Some(m) => bad.push(format!(
            "summarizer prompt: {}",
            first_difference(prompt, &m.content)
        )),
        None => bad.push("no summarizer request".into()),
    }
    bad
}

#[test]
fn dimos_digest_matches_its_compact_history() {
    let all = support::goldens("dimos");
    assert!(all.len() >= 9, "only {} dimos goldens", all.len());
    let mut failures = Vec::new();
    for path in &all {
        let bad = check_dimos(&support::read(path));
        if !bad.is_empty() {
            failures.push(format!("{}:\n  {}", path.display(), bad.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} dimos golden(s) differ:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// `ctxray ARGS` in the crate root; stdout as JSON (the run must succeed).
fn ctxray_json(args: &[&str]) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn compact_json_shows_hermes_own_fallback_summary() {
    let g =
        support::read(&support::oracle_dir().join("hermes-fallback/claude-code-demo.golden.json"));
    let e = &g["expected"];
    let doc = ctxray_json(&[
        "compact",
        "fixtures/samples/claude-code-demo.jsonl",
        "--preset",
        "hermes",
        "--model",
        g["model"].as_str().unwrap(),
        "--set",
        &format!("model={}", g["settings"]["model"].as_str().unwrap()),
        "--set",
        &format!(
            "config_context_length={}",
            g["settings"]["config_context_length"]
        ),
        "--json",
    ]);
    let r = &doc["result"];
    assert_eq!(r["summarizer"], "offline");
    // The summary as Hermes' fallback returns it, less the SUMMARY_PREFIX line it starts with.
    let (_, body) = e["fallback_summary"]
        .as_str()
        .unwrap()
        .split_once('\n')
        .unwrap();
    let got = r["summary"].as_str().unwrap();
    assert!(got == body, "{}", first_difference(body, got));
    let position = e["summary_inserted"]["position"].as_u64().unwrap() as usize;
    assert_eq!(
        r["messages"][position]["role"],
        e["summary_inserted"]["role"]
    );
    assert_eq!(
        r["messages"].as_array().unwrap().len() as u64,
        e["compacted_history_len"].as_u64().unwrap()
    );
}

#[test]
fn compact_json_shows_dimos_own_digest() {
    let g = support::read(&support::oracle_dir().join("dimos/long-unicode.golden.json"));
    let e = &g["expected"];
    let input = format!("fixtures/{}", g["input"].as_str().unwrap());
    let mut args = vec![
        "compact".to_string(),
        input,
        "--preset".into(),
        "dimos".into(),
    ];
    for (k, v) in g["settings"].as_object().unwrap() {
        args.extend(["--set".into(), format!("{k}={v}")]);
    }
    args.push("--json".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = &ctxray_json(&args)["result"];
    assert_eq!(r["summarizer"], "offline");
    let want = e["summary"].as_str().unwrap();
    let got = r["summary"].as_str().unwrap();
    assert!(got == want, "{}", first_difference(want, got));
    assert!(got.starts_with("8 earlier messages were removed to stay within the context window"));
    let position = e["summary_position"].as_u64().unwrap() as usize;
    assert_eq!(r["messages"][position]["role"], "user");
    assert_eq!(
        r["messages"].as_array().unwrap().len() as u64,
        e["compacted_history_len"].as_u64().unwrap()
    );
}
