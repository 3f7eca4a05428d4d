//! Oracle goldens of the Agent Framework presets: every case under
//! fixtures/oracle/agent-framework*/ produced by running agent-framework-core 1.23.0 and 1.17.0
//! (tools/oracle/agent_framework). Fired, the trigger metric, the kept/summarized/dropped source
//! records and the summarizer request must match byte for byte, and so must the whole list the
//! strategy leaves (`compacted`'s history against the golden's `[m.to_dict() for m in messages]`);
//! every mismatch is reported at once.

use crate::support;
use ctxray::compaction::presets;
use std::path::{Path, PathBuf};
use support::{check_fates, check_summarizer, first_difference};

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::formats::load_path;
use ctxray::session::Role;
use ctxray::tokens::Registry;
use serde_json::Value;

/// Cases the emulation cannot match, with why. Each must still fail.
const KNOWN_GAPS: &[(&str, &str)] = &[];

const DIRS: &[&str] = &[
    "agent-framework",
    "agent-framework-1.17",
    "agent-framework-sliding",
    "agent-framework-truncation",
    "agent-framework-selective-tool",
    "agent-framework-tool-result",
    "agent-framework-token-budget",
    "agent-framework-context-window",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/oracle")
}

fn cases() -> Vec<(String, String, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for dir in DIRS {
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
            out.push((dir.to_string(), format!("{dir}/{name}"), golden, input));
        }
    }
    out
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

/// A nested strategy as `Class(name=value, …)`.
fn nested(s: &Value) -> String {
    let args: Vec<String> = s["settings"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("{k}={}", value_text(v)))
        .collect();
    format!("{}({})", s["class"].as_str().unwrap(), args.join(", "))
}

/// The golden's settings as `K=V` strings; `strategies` comes from `nested_settings`.
fn sets(g: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in g["settings"].as_object().unwrap() {
        let value = match k.as_str() {
            "strategies" => g["nested_settings"]["strategies"]
                .as_array()
                .unwrap()
                .iter()
                .map(nested)
                .collect::<Vec<_>>()
                .join(","),
            _ => value_text(v),
        };
        out.push(format!("{k}={value}"));
    }
    out
}

/// Every difference between the preset's plan and the golden, empty when they agree.
fn check(dir: &str, golden: &Path, input: &Path) -> Vec<String> {
    let g: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    let e = &g["expected"];
    let session = load_path(input, None).unwrap();
    assert_eq!(session.format.name(), "agent-framework");
    let opts = Options {
        model: g["model"].as_str().map(str::to_string),
        window: g["context_window"].as_u64(),
        ..Options::default()
    };
    let a = Analysis::new(session, &Registry::bundled(), &opts);
    let p = match preset::run(presets::find(dir).unwrap(), &PlanInput::new(&a), &sets(&g)) {
        Ok(p) => p,
        Err(err) => return vec![format!("plan failed: {err}")],
    };
    let mut diffs = Vec::new();
    let fired = e["fired"].as_bool().unwrap();
    if p.trigger.fired != fired {
        diffs.push(format!(
            "fired: want {fired} got {} ({})",
            p.trigger.fired, p.trigger.reason
        ));
    }
    let (measure, threshold) = (
        e["measure"].as_u64().unwrap(),
        e["threshold"].as_u64().unwrap(),
    );
    if (p.trigger.value, p.trigger.threshold) != (measure, threshold) {
        diffs.push(format!(
            "trigger: want {measure}/{threshold} got {}/{}",
            p.trigger.value, p.trigger.threshold
        ));
    }
    diffs.extend(check_fates(e, &a.session, &p));
    diffs.extend(check_summarizer(e, &p));
    if let (Some(want), Some(got)) = (e["summary_inserted"]["position"].as_u64(), &p.insertion) {
        if e["summary_inserted"]["message_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("summary_"))
            && got.position as u64 != want
        {
            diffs.push(format!(
                "insertion position: want {want} got {}",
                got.position
            ));
        }
    }
    diffs
}

#[test]
fn every_agent_framework_golden_matches() {
    let all = cases();
    assert!(
        all.len() >= 57,
        "expected every golden case, found {}",
        all.len()
    );
    let mut failures = Vec::new();
    let mut gaps_passing = Vec::new();
    for (dir, name, golden, input) in &all {
        let diffs = check(dir, golden, input);
        let known = KNOWN_GAPS.iter().any(|(n, _)| n == name);
        match (diffs.is_empty(), known) {
            (true, true) => gaps_passing.push(name.clone()),
            (false, false) => failures.push(format!("{name}:\n    {}", diffs.join("\n    "))),
            _ => {}
        }
    }
    assert!(
        failures.is_empty() && gaps_passing.is_empty(),
        "{} of {} cases differ:\n{}\nKNOWN_GAPS that now pass (remove them): {gaps_passing:?}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// Where `compacted` with the golden's summary text differs from the list the framework left.
/// Nothing is normalised: every id Agent Framework gives a new message (`summary_<n>`,
/// `tool_summary_<group>`, `msg_<i>`) follows from the list, and it stamps no time.
fn check_history(dir: &str, golden: &Path, input: &Path) -> Vec<String> {
    let g: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    let e = &g["expected"];
    let session = load_path(input, None).unwrap();
    let opts = Options {
        model: g["model"].as_str().map(str::to_string),
        window: g["context_window"].as_u64(),
        ..Options::default()
    };
    let a = Analysis::new(session, &Registry::bundled(), &opts);
    let p = presets::find(dir).unwrap();
    let input = PlanInput::new(&a);
    let plan = match preset::run(p, &input, &sets(&g)) {
        Ok(plan) => plan,
        Err(err) => return vec![format!("plan failed: {err}")],
    };
    let after = p.compacted(&input, &plan, e["history_summary"].as_str());
    let want = e["history"].as_array().unwrap();
    let mut diffs = Vec::new();
    if after.format.map(|f| f.name()) != Some("agent-framework") {
        diffs.push(format!("format: {:?}", after.format));
    }
    let Some(got) = after.history.as_array() else {
        return vec![format!("history is no list: {}", after.history)];
    };
    if got.len() != want.len() {
        diffs.push(format!("length: want {} got {}", want.len(), got.len()));
    }
    if let Some(i) = (0..want.len().min(got.len())).find(|&i| got[i] != want[i]) {
        diffs.push(format!(
            "record {i}: {}",
            first_difference(&want[i].to_string(), &got[i].to_string())
        ));
    }
    let excluded = want
        .iter()
        .filter(|r| r["additional_properties"]["_excluded"] == Value::Bool(true))
        .count();
    let events = after
        .session
        .messages
        .iter()
        .filter(|m| m.role == Role::Event);
    if after.session.messages.len() != want.len() || events.count() != excluded {
        diffs.push(format!(
            "read back: {} messages, want {} with {excluded} excluded as events",
            after.session.messages.len(),
            want.len()
        ));
    }
    diffs
}

#[test]
fn every_compacted_history_equals_the_framework_s_list() {
    let all = cases();
    let mut failures = Vec::new();
    let mut with_summary = 0;
    for (dir, name, golden, input) in &all {
        let g: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
        with_summary += usize::from(g["expected"]["history_summary"].is_string());
        let diffs = check_history(dir, golden, input);
        if !diffs.is_empty() {
            failures.push(format!("{name}:\n    {}", diffs.join("\n    ")));
        }
    }
    assert!(with_summary >= 33, "goldens with a summary: {with_summary}");
    assert!(
        failures.is_empty(),
        "{} of {} histories differ:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

#[test]
fn findings_name_what_each_version_loses() {
    let run = |dir: &str, case: &str, sets: &[&str]| {
        let session =
            load_path(&root().join(dir).join(format!("{case}.input.json")), None).unwrap();
        let a = Analysis::new(session, &Registry::bundled(), &Options::default());
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = preset::run(presets::find(dir).unwrap(), &PlanInput::new(&a), &sets).unwrap();
        p.findings.iter().map(|f| f.code).collect::<Vec<_>>()
    };
    let codes = run("agent-framework-1.17", "default-parallel-tools", &[]);
    assert!(codes.contains(&"tool-call-placeholder"), "{codes:?}");
    let codes = run("agent-framework", "default-parallel-tools", &[]);
    assert!(!codes.contains(&"tool-call-placeholder"), "{codes:?}");
    let codes = run("agent-framework", "prior-summary-projected", &[]);
    assert!(codes.contains(&"summary-id-collision"), "{codes:?}");
    let codes = run(
        "agent-framework",
        "leading-group-over-budget",
        &["max_summary_input_tokens=1200"],
    );
    assert!(codes.contains(&"summary-input-group-skipped"), "{codes:?}");
    let codes = run(
        "agent-framework-tool-result",
        "huge-result-keep-0",
        &["keep_last_tool_call_groups=0"],
    );
    assert!(
        codes.contains(&"message-truncated") && codes.contains(&"tool-arguments-dropped"),
        "{codes:?}"
    );
    let codes = run("agent-framework", "reasoning", &["target_count=2"]);
    assert!(codes.contains(&"reasoning-dropped"), "{codes:?}");
    let codes = run(
        "agent-framework",
        "images",
        &["target_count=2", "threshold=1"],
    );
    assert!(codes.contains(&"image-dropped"), "{codes:?}");
}

#[test]
fn required_settings_and_constructor_checks_are_refused() {
    let session = load_path(
        &root().join("agent-framework-sliding/keep-3.input.json"),
        None,
    )
    .unwrap();
    let a = Analysis::new(session, &Registry::bundled(), &Options::default());
    let input = PlanInput::new(&a);
    let run = |name: &str, sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        preset::run(presets::find(name).unwrap(), &input, &sets)
    };
    assert!(run("agent-framework-sliding", &[]).is_err());
    assert!(run("agent-framework-sliding", &["keep_last_groups=0"]).is_err());
    assert!(run("agent-framework-truncation", &["max_n=5", "compact_to=8"]).is_err());
    assert!(run("agent-framework", &["target_count=0"]).is_err());
    assert!(run(
        "agent-framework-token-budget",
        &["strategies=NoSuchStrategy"]
    )
    .is_err());
    assert!(run(
        "agent-framework-context-window",
        &["max_output_tokens=16384"]
    )
    .is_ok());
}
