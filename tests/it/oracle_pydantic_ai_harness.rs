//! Oracle goldens of `pydantic-ai-harness` and `pydantic-ai-harness-sliding`: every case under
//! fixtures/oracle/pydantic-ai-harness*/ produced by running pydantic-ai-harness 0.62.0
//! (tools/oracle/pydantic_ai_harness). The trigger, the kept/summarized/dropped source records,
//! the summarizer request and the compacted history (`ModelMessagesTypeAdapter` JSON, with the
//! golden's summary text; only the clock readings the oracle marks are set aside) must match;
//! every mismatch is reported at once.

use crate::support;
use ctxray::compaction::presets;
use std::path::{Path, PathBuf};
use support::{check_fates, check_summarizer};

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::carry_out::{carry_out, Wants};
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::formats::load_path;
use ctxray::tokens::Registry;
use serde_json::Value;

/// Cases the emulation cannot match, with why. Each must still fail.
const KNOWN_GAPS: &[(&str, &str)] = &[];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/oracle")
}

fn cases() -> Vec<(String, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for dir in ["pydantic-ai-harness", "pydantic-ai-harness-sliding"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".golden.json"))
            .collect();
        entries.sort();
        for golden in entries {
            let name = golden
                .file_name()
                .unwrap()
                .to_string_lossy()
                .replace(".golden.json", "");
            let input = golden.with_file_name(format!("{name}.input.json"));
            out.push((format!("{dir}/{name}"), golden, input));
        }
    }
    out
}

/// The golden's settings as `K=V` strings (`model=FunctionModel` names the summarizer model).
fn sets(g: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in g["settings"].as_object().unwrap() {
        let value = match (k.as_str(), v) {
            ("model", _) => g["summarizer_model"].as_str().unwrap_or("null").to_string(),
            (_, Value::String(s)) => s.clone(),
            (_, Value::Null) => "null".into(),
            (_, other) => other.to_string(),
        };
        out.push(format!("{k}={value}"));
    }
    out
}

/// The mismatches of one case, empty when it matches.
fn check(golden: &Path, input: &Path) -> Vec<String> {
    let g: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    let e = &g["expected"];
    let session = load_path(input, None).unwrap();
    let options = Options {
        model: g["model"].as_str().map(str::to_string),
        ..Options::default()
    };
    let a = Analysis::new(session, &Registry::bundled(), &options);
    let preset_name = g["preset"].as_str().unwrap();
    let plan = match preset::run(
        presets::find(preset_name).unwrap(),
        &PlanInput::new(&a),
        &sets(&g),
    ) {
        Ok(p) => p,
        Err(err) => return vec![format!("plan failed: {err}")],
    };
    let mut bad = Vec::new();
    let fired = e["fired"].as_bool().unwrap();
    if plan.trigger.fired != fired {
        bad.push(format!(
            "fired: want {fired} got {} ({})",
            plan.trigger.fired, plan.trigger.reason
        ));
    }
    if plan.trigger.value != e["measure"].as_u64().unwrap()
        || plan.trigger.threshold != e["threshold"].as_u64().unwrap()
    {
        bad.push(format!(
            "measure/threshold: want {}/{} got {}/{}",
            e["measure"], e["threshold"], plan.trigger.value, plan.trigger.threshold
        ));
    }
    bad.extend(check_fates(e, &a.session, &plan));
    bad.extend(check_summarizer(e, &plan));
    if let (Some(ins), Some(pos)) = (&plan.insertion, e["summary_inserted"]["position"].as_u64()) {
        if ins.position as u64 != pos {
            bad.push(format!(
                "insertion position: want {pos} got {}",
                ins.position
            ));
        }
        let content = e["summary_inserted"]["content"].as_str().unwrap_or("");
        if !content.starts_with(&ins.prefix) {
            bad.push("insertion prefix differs".to_string());
        }
    }
    bad.extend(check_receipt(&g, &plan.findings));
    if fired {
        bad.extend(check_history(&g, &a, &plan));
    }
    bad
}

/// The golden's JSON with its clock readings (`expected.history_made_up`, JSON pointers) set to
/// one marker: the only values the framework makes up at that moment.
fn without_clock(mut history: Value, made_up: &Value) -> Value {
    for path in made_up.as_array().into_iter().flatten() {
        let pointer = path.as_str().unwrap().replace('~', "~0");
        // The metadata key holds '.', never '/': the pointer is usable as written.
        if let Some(v) = history.pointer_mut(&pointer) {
            *v = Value::String("<made up: clock>".into());
        }
    }
    history
}

/// `compacted` with the golden's summary equals the framework's own compacted history, its
/// session is that history read back, and the shrink guard keeps or rejects it as 0.63 does.
fn check_history(g: &Value, a: &Analysis, plan: &ctxray::compaction::Plan) -> Vec<String> {
    let e = &g["expected"];
    let mut bad = Vec::new();
    let summary = e["summary_inserted"]["summary_text"].as_str();
    let p = presets::find(plan.preset).unwrap();
    let after = p.compacted(&PlanInput::new(a), plan, summary);
    let want = &e["history"];
    let got = without_clock(after.history.clone(), &e["history_made_up"]);
    if &got != want {
        bad.push(format!(
            "history: {}",
            support::first_difference(
                &serde_json::to_string_pretty(want).unwrap(),
                &serde_json::to_string_pretty(&got).unwrap()
            )
        ));
    }
    let reread = ctxray::formats::load_bytes(
        serde_json::to_vec(&after.history).unwrap(),
        None,
        "history.json",
        Some(ctxray::session::Format::PYDANTIC_AI),
    )
    .unwrap();
    if reread.messages.len() != after.session.messages.len() {
        bad.push("the session is not the history read back".into());
    }
    if let Some(shrank) = g["guard"]["shrank"].as_bool() {
        let done = carry_out(
            a,
            plan,
            "oracle".into(),
            || summary.map(str::to_string),
            0,
            Wants::REPORT,
        );
        if done.rejected == shrank {
            bad.push(format!(
                "guard: shrank={shrank} but rejected={}",
                done.rejected
            ));
        }
        if done.rejected && done.after.total_tokens() != a.total_tokens() {
            bad.push("guard: a rejected summary changed the history".into());
        }
    }
    bad
}

/// The receipt text the compacted history holds.
fn check_receipt(g: &Value, findings: &[ctxray::compaction::Finding]) -> Vec<String> {
    let mut bad = Vec::new();
    let e = &g["expected"];
    let receipts: Vec<&str> = e["compacted_history"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["parts"].as_array().into_iter().flatten())
        .filter(|p| p["items_metadata"].to_string().contains("receipt"))
        .filter_map(|p| p["content"].as_str())
        .collect();
    for text in receipts {
        let found = findings
            .iter()
            .any(|f| f.code == "receipt-inserted" && f.detail.ends_with(text));
        if !found {
            bad.push(format!("receipt: want {text:?}"));
        }
    }
    bad
}

#[test]
fn every_golden_case_matches() {
    let all = cases();
    assert!(all.len() >= 20, "only {} cases found", all.len());
    let mut failures = Vec::new();
    let mut gaps_matching = Vec::new();
    for (name, golden, input) in &all {
        let bad = check(golden, input);
        let gap = KNOWN_GAPS.iter().find(|(n, _)| name.ends_with(n));
        match (gap, bad.is_empty()) {
            (Some((n, _)), true) => gaps_matching.push(n.to_string()),
            (None, false) => failures.push(format!("{name}:\n  {}", bad.join("\n  "))),
            _ => {}
        }
    }
    assert!(
        gaps_matching.is_empty(),
        "KNOWN_GAPS now match, remove them: {gaps_matching:?}"
    );
    assert!(
        failures.is_empty(),
        "{} of {} golden case(s) differ:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}
