//! Oracle goldens of `hermes`: every case under fixtures/oracle/hermes/ produced by running the
//! real hermes-agent 0.19.0 `ContextCompressor` (tools/oracle/hermes). The trigger (measure and
//! threshold), the kept/summarized/dropped source records and the summarizer request must match
//! byte for byte; every mismatch is reported at once. The prompt's date is the golden's fixed
//! clock (`today`), given through `PlanInput::now`.

use crate::support;
use ctxray::compaction::presets;
use std::path::{Path, PathBuf};
use support::{check_fates, check_summarizer, first_difference};

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::formats::load_path;
use ctxray::tokens::Registry;
use serde_json::Value;

/// Cases the emulation cannot match, with why. Each must still fail.
const KNOWN_GAPS: &[(&str, &str)] = &[];

fn cases() -> Vec<(String, PathBuf, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/oracle/hermes");
    let mut goldens: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".golden.json"))
        .collect();
    goldens.sort();
    goldens
        .into_iter()
        .map(|golden| {
            let name = golden
                .file_name()
                .unwrap()
                .to_string_lossy()
                .replace(".golden.json", "");
            let input = golden.with_file_name(format!("{name}.input.json"));
            (name, golden, input)
        })
        .collect()
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
    let mut input = PlanInput::new(&a);
    input.now = g["today"].as_str();
    let plan = match preset::run(
        presets::find("hermes").unwrap(),
        &input,
        &support::hermes_sets(&g),
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
    bad.extend(check_insertion(e, &plan));
    bad
}

/// The summary's role, position and the text before the summary body.
fn check_insertion(e: &Value, plan: &ctxray::compaction::Plan) -> Vec<String> {
    let inserted = &e["summary_inserted"];
    let mut bad = Vec::new();
    match (&plan.insertion, inserted.is_object()) {
        (Some(ins), true) => {
            let pos = inserted["position"].as_u64().unwrap();
            let role = inserted["role"].as_str().unwrap();
            if ins.position as u64 != pos || ins.role.as_str() != role {
                bad.push(format!(
                    "insertion: want {role}@{pos} got {}@{}",
                    ins.role.as_str(),
                    ins.position
                ));
            }
            let content = inserted["content"].as_str().unwrap_or("");
            if !content.starts_with(&ins.prefix) {
                bad.push(format!(
                    "insertion prefix: {}",
                    first_difference(content, &ins.prefix)
                ));
            }
        }
        (None, false) => {}
        (got, _) => bad.push(format!(
            "insertion: want {} got {}",
            inserted.is_object(),
            got.is_some()
        )),
    }
    bad
}

#[test]
fn every_golden_case_matches() {
    let all = cases();
    assert_eq!(all.len(), 20, "expected the 20 hermes cases");
    let mut failures = Vec::new();
    let mut gaps_matching = Vec::new();
    for (name, golden, input) in &all {
        let bad = check(golden, input);
        let gap = KNOWN_GAPS.iter().find(|(n, _)| name == n);
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

/// The auxiliary-window rules: 0.19 lowers the threshold (and says so); `aux_fit=true` leaves
/// it alone; a window under 64,000 refuses to compact.
#[test]
fn auxiliary_window_settings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/oracle/hermes");
    let session = load_path(&dir.join("aux-window-lowers-threshold.input.json"), None).unwrap();
    let a = Analysis::new(session, &Registry::bundled(), &Options::default());
    let hermes = presets::find("hermes").unwrap();
    let run = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        preset::run(hermes, &PlanInput::new(&a), &sets).unwrap()
    };
    let base = [
        "model=gpt-4o",
        "config_context_length=200000",
        "compression_count=1",
    ];
    let lowered = run(&[&base[..], &["aux_context_length=64000"]].concat());
    assert_eq!(lowered.trigger.threshold, 64_000);
    assert!(lowered.trigger.fired);
    assert!(lowered
        .findings
        .iter()
        .any(|f| f.code == "threshold-lowered"));
    let fit = run(&[&base[..], &["aux_context_length=64000", "aux_fit=true"]].concat());
    assert_eq!(fit.trigger.threshold, 150_000);
    assert!(!fit.trigger.fired);
    assert!(!fit.findings.iter().any(|f| f.code == "threshold-lowered"));
    let first = run(&[
        "model=gpt-4o",
        "config_context_length=80000",
        "aux_context_length=32000",
    ]);
    assert!(first.summarizer.is_empty());
    assert!(first
        .findings
        .iter()
        .any(|f| f.code == "summarizer-window-overflow"));
}
