//! Oracle goldens of `openhands`: every case under fixtures/oracle/openhands/ produced by running
//! the real openhands-sdk 1.58.2 `LLMSummarizingCondenser` (tools/oracle/openhands). Whether it
//! fired, the measure of its reason, litellm's token count of the whole view, the
//! kept/summarized/dropped source records and the summarizer request must match byte for byte;
//! every mismatch is reported at once. `openhands-fixed` has no framework to compare with: it is
//! checked by construction on the same inputs.

use crate::support;
use ctxray::compaction::presets;
use std::path::{Path, PathBuf};
use support::{check_fates, check_summarizer, indices};

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::compaction::Plan;
use ctxray::formats::load_path;
use ctxray::tokens::Registry;
use serde_json::Value;

/// Cases the emulation cannot match, with why. Each must still fail.
const KNOWN_GAPS: &[(&str, &str)] = &[];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/oracle/openhands")
}

fn cases() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".golden.json").map(str::to_string))
        .collect();
    names.sort();
    names
}

fn golden(name: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(format!("{name}.golden.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn sets(g: &Value) -> Vec<String> {
    g["settings"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| match v {
            Value::Null => format!("{k}=null"),
            other => format!("{k}={other}"),
        })
        .collect()
}

fn run(preset_name: &str, a: &Analysis, sets: &[String]) -> Result<Plan, String> {
    let input = PlanInput::new(a);
    preset::run(presets::find(preset_name).unwrap(), &input, sets).map_err(|e| e.to_string())
}

/// litellm's count of the whole view, read back through the TOKENS trigger: with
/// `max_tokens` one below the golden's count it must fire on exactly that count.
fn check_token_count(a: &Analysis, g: &Value) -> Vec<String> {
    let want = g["expected"]["measures"]["tokens"]["measure"]
        .as_u64()
        .unwrap();
    let mut sets: Vec<String> = sets(g)
        .into_iter()
        .filter(|s| !s.starts_with("max_tokens="))
        .collect();
    sets.push(format!("max_tokens={}", want - 1));
    match run("openhands", a, &sets) {
        Ok(p) if p.trigger.measure == "tokens" && p.trigger.value == want => Vec::new(),
        Ok(p) => vec![format!(
            "token count: want {want} got {} {}",
            p.trigger.measure, p.trigger.value
        )],
        Err(e) => vec![format!("token probe failed: {e}")],
    }
}

fn check_trigger(e: &Value, plan: &Plan) -> Vec<String> {
    let mut bad = Vec::new();
    let fired = e["fired"].as_bool().unwrap();
    if plan.trigger.fired != fired {
        bad.push(format!(
            "fired: want {fired} got {} ({})",
            plan.trigger.fired, plan.trigger.reason
        ));
    }
    let which = if e["reason"] == "tokens" {
        "tokens"
    } else {
        "events"
    };
    let m = &e["measures"][which];
    let (value, threshold) = (
        m["measure"].as_u64().unwrap(),
        m["threshold"].as_u64().unwrap(),
    );
    if plan.trigger.measure != which
        || plan.trigger.value != value
        || plan.trigger.threshold != threshold
    {
        bad.push(format!(
            "trigger: want {which} {value}/{threshold} got {} {}/{}",
            plan.trigger.measure, plan.trigger.value, plan.trigger.threshold
        ));
    }
    bad
}

/// The mismatches of one case, empty when it matches.
fn check(name: &str) -> Vec<String> {
    let g = golden(name);
    let e = &g["expected"];
    let a = support::openhands_analysis(name, &g);
    let plan = match run("openhands", &a, &sets(&g)) {
        Ok(p) => p,
        Err(err) => return vec![format!("plan failed: {err}")],
    };
    let mut bad = check_trigger(e, &plan);
    bad.extend(check_fates(e, &a.session, &plan));
    bad.extend(check_summarizer(e, &plan));
    if let (Some(ins), Some(want)) = (&plan.insertion, e["summary_inserted"].as_object()) {
        if ins.role.as_str() != want["role"] || !ins.prefix.is_empty() {
            bad.push(format!(
                "insertion: got {} {:?}",
                ins.role.as_str(),
                ins.prefix
            ));
        }
    } else if plan.insertion.is_some() != e["summary_inserted"].is_object() {
        bad.push(format!(
            "insertion: want {} got {:?}",
            e["summary_inserted"], plan.insertion
        ));
    }
    bad.extend(check_token_count(&a, &g));
    bad
}

#[test]
fn every_golden_case_matches() {
    let all = cases();
    assert_eq!(all.len(), 21, "expected the 21 openhands cases");
    let mut failures = Vec::new();
    let mut gaps_matching = Vec::new();
    for name in &all {
        let bad = check(name);
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

/// `openhands-fixed` keeps the framework's trigger and cut on every golden input.
#[test]
fn fixed_has_the_same_cut() {
    for name in cases() {
        let g = golden(&name);
        let a = support::openhands_analysis(&name, &g);
        let lossy = run("openhands", &a, &sets(&g)).unwrap();
        let fixed = run("openhands-fixed", &a, &sets(&g)).unwrap();
        assert_eq!(lossy.trigger, fixed.trigger, "{name}");
        assert_eq!(lossy.split, fixed.split, "{name}");
        assert_eq!(lossy.summarizer.len(), fixed.summarizer.len(), "{name}");
        if let (Some(l), Some(f)) = (lossy.summarizer.first(), fixed.summarizer.first()) {
            assert_eq!(l, f, "{name}: same system prompt");
        }
    }
}

fn input_lines(name: &str) -> Vec<Value> {
    std::fs::read_to_string(dir().join(format!("{name}.input.jsonl")))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The whole previous summary and every summarized tool call's arguments reach the summarizer.
#[test]
fn fixed_shows_the_whole_previous_summary_and_every_argument() {
    let name = "previous_summary";
    let g = golden(name);
    let a = support::openhands_analysis(name, &g);
    let plan = run("openhands-fixed", &a, &sets(&g)).unwrap();
    let user = &plan.summarizer[1].content;
    let lines = input_lines(name);
    let summary = lines[14]["summary"].as_str().unwrap();
    assert!(summary.chars().count() > 500);
    assert!(user.contains(&format!(
        "CondensationSummaryEvent (environment)\n  user: {summary}\n</EVENT>"
    )));
    let summarized = indices(&g["expected"]["summarized_source_indices"]);
    let mut actions = 0;
    for i in summarized {
        let rec = &lines[i];
        if rec["kind"] == "ActionEvent" {
            actions += 1;
            let args = rec["tool_call"]["arguments"].as_str().unwrap();
            assert!(user.contains(&format!("\n  Arguments: {args}")), "{args}");
            assert!(user.contains(&format!("\n  Tool: {}", rec["tool_name"].as_str().unwrap())));
        }
    }
    assert!(actions >= 6);
    let codes: Vec<&str> = plan.findings.iter().map(|f| f.code).collect();
    assert!(
        !codes.contains(&"previous-summary-truncated")
            && !codes.contains(&"tool-arguments-dropped"),
        "{codes:?}"
    );
    // The lossy preset flags exactly what the fixed one repairs.
    let lossy = run("openhands", &a, &sets(&g)).unwrap();
    let codes: Vec<&str> = lossy.findings.iter().map(|f| f.code).collect();
    assert!(
        codes.contains(&"previous-summary-truncated") && codes.contains(&"tool-arguments-dropped"),
        "{codes:?}"
    );
}

/// A result over 10,000 characters keeps its head and tail; the lossy preset keeps 500.
#[test]
fn fixed_keeps_head_and_tail_of_huge_results() {
    let name = "huge_tool_result";
    let g = golden(name);
    let a = support::openhands_analysis(name, &g);
    let plan = run("openhands-fixed", &a, &sets(&g)).unwrap();
    let user = &plan.summarizer[1].content;
    let marker = "\n[... Observation truncated due to length ...]\n";
    assert!(user.contains(marker));
    let f = plan
        .findings
        .iter()
        .find(|f| f.code == "message-truncated")
        .unwrap();
    assert!(!f.messages.is_empty());
    assert!(plan.summarizer[1].content.chars().count() > 10_000);
    let lossy = run("openhands", &a, &sets(&g)).unwrap();
    let f = lossy
        .findings
        .iter()
        .find(|f| f.code == "message-truncated")
        .unwrap();
    assert!(f.detail.contains("500-character preview"), "{}", f.detail);
    assert!(lossy.summarizer[1].content.chars().count() < 6_000);
}

/// Over the summarizer's window, the head+tail cap shrinks by 20% per retry, and says so.
#[test]
fn fixed_shrinks_to_fit_the_summarizer_window() {
    let name = "huge_tool_result";
    let g = golden(name);
    let session = load_path(&dir().join(format!("{name}.input.jsonl")), None).unwrap();
    let options = Options {
        model: Some("gpt-4o".into()),
        window: Some(6_000),
        ..Options::default()
    };
    let a = Analysis::new(session, &Registry::bundled(), &options);
    let plan = run("openhands-fixed", &a, &sets(&g)).unwrap();
    let f = plan
        .findings
        .iter()
        .find(|f| f.code == "summarizer-window-overflow")
        .unwrap();
    assert!(f.detail.contains("by 20%"), "{}", f.detail);
    let wide = run(
        "openhands-fixed",
        &support::openhands_analysis(name, &g),
        &sets(&g),
    )
    .unwrap();
    assert!(plan.summarizer[1].content.len() < wide.summarizer[1].content.len());
}

/// Settings the SDK's validators refuse are refused.
#[test]
fn invalid_settings_are_refused() {
    let g = golden("just_above");
    let a = support::openhands_analysis("just_above", &g);
    for bad in [
        &["max_size=0"][..],
        &["keep_first=-1"],
        &["max_size=4", "keep_first=1"],
        &["minimum_progress=1.0"],
        &["nonesuch=1"],
    ] {
        let sets: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
        assert!(run("openhands", &a, &sets).is_err(), "{bad:?}");
    }
}
