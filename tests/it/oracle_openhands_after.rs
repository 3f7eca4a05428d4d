//! What `openhands` and `openhands-fixed` leave after a condensation, against the real SDK: for
//! every golden case that fired (tools/oracle/openhands), `compacted` with the golden's summary
//! must give the View the conversation derives (`expected.view_events`) and the event log it
//! persists (`expected.persisted_events`), event for event and byte for byte once serialised.
//! Only what the SDK makes up at that moment is normalised (`expected.fresh`: the
//! `Condensation`'s uuid4, clock reading and summarizer response id, the new summary event's
//! id and every summary event's clock reading); `forgotten_event_ids` is a Python set, so it is
//! compared as one.

use crate::support;
use ctxray::compaction::presets;
use std::path::{Path, PathBuf};
use std::process::Command;

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::after::After;
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::formats::load_path;
use ctxray::session::{Format, Part, Role};
use ctxray::tokens::Registry;
use serde_json::Value;

const FRESH_ID: &str = "<fresh uuid4>";
const FRESH_CLOCK: &str = "<clock>";
const RESPONSE_ID: &str = "<summarizer response id>";

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/oracle/openhands")
}

fn goldens() -> Vec<(String, Value)> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".golden.json").map(str::to_string))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let text = std::fs::read_to_string(dir().join(format!("{n}.golden.json"))).unwrap();
            (n, serde_json::from_str(&text).unwrap())
        })
        .collect()
}

fn sets(g: &Value) -> Vec<String> {
    g["settings"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

fn compacted(preset_name: &str, a: &Analysis, g: &Value) -> After {
    let p = presets::find(preset_name).unwrap();
    let input = PlanInput::new(a);
    let plan = preset::run(p, &input, &sets(g)).unwrap();
    assert!(plan.trigger.fired, "{}", plan.trigger.reason);
    let summary = g["expected"]["condensation"]["summary"].as_str().unwrap();
    p.compacted(&input, &plan, Some(summary))
}

/// The fields `expected.fresh` names set to the golden's markers; the set sorted.
fn normalise(events: &[Value], fresh_id: &str) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let mut e = e.clone();
            match e["kind"].as_str() {
                Some("Condensation") => {
                    e["id"] = FRESH_ID.into();
                    e["timestamp"] = FRESH_CLOCK.into();
                    e["llm_response_id"] = RESPONSE_ID.into();
                    let mut ids: Vec<Value> = e["forgotten_event_ids"].as_array().unwrap().clone();
                    ids.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                    e["forgotten_event_ids"] = Value::Array(ids);
                }
                Some("CondensationSummaryEvent") => {
                    e["timestamp"] = FRESH_CLOCK.into();
                    if e["id"] == format!("{fresh_id}-summary") {
                        e["id"] = format!("{FRESH_ID}-summary").into();
                    }
                }
                _ => {}
            }
            serde_json::to_string(&e).unwrap()
        })
        .collect()
}

fn differences(what: &str, want: &[String], got: &[String]) -> Vec<String> {
    let mut bad = Vec::new();
    if want.len() != got.len() {
        bad.push(format!("{what}: {} events, want {}", got.len(), want.len()));
    }
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        if w != g {
            let diff = support::first_difference(w, g);
            bad.push(format!("{what}[{i}]: {diff}"));
        }
    }
    bad
}

fn check(name: &str, g: &Value, preset_name: &str) -> Vec<String> {
    let e = &g["expected"];
    let a = support::openhands_analysis(name, g);
    let after = compacted(preset_name, &a, g);
    let mut bad = Vec::new();
    if after.format != Some(Format::OPENHANDS) {
        bad.push(format!("format {:?}", after.format));
    }
    let persisted = after.persisted.as_ref().and_then(Value::as_array);
    let Some(persisted) = persisted else {
        return vec!["no persisted event log".into()];
    };
    let fresh_id = persisted.last().unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let golden_id = |v: &Value| normalise(v.as_array().unwrap(), "");
    let view = after.history.as_array().unwrap();
    bad.extend(differences(
        "view",
        &golden_id(&e["view_events"]),
        &normalise(view, &fresh_id),
    ));
    bad.extend(differences(
        "persisted",
        &golden_id(&e["persisted_events"]),
        &normalise(persisted, &fresh_id),
    ));
    // The session is the View read back: one message per event, batches merged.
    let ids: Vec<&str> = view.iter().map(|v| v["id"].as_str().unwrap()).collect();
    let first_ids: Vec<&str> = after
        .session
        .messages
        .iter()
        .map(|m| m.id.as_deref().unwrap())
        .collect();
    if !first_ids.iter().all(|id| ids.contains(id)) || after.session.format != Format::OPENHANDS {
        bad.push(format!(
            "session does not read back the View: {first_ids:?}"
        ));
    }
    bad
}

#[test]
fn every_fired_golden_leaves_the_sdk_s_view_and_event_log() {
    let all = goldens();
    let fired: Vec<&(String, Value)> = all
        .iter()
        .filter(|(_, g)| g["expected"]["fired"] == true)
        .collect();
    assert_eq!(fired.len(), 17, "expected 17 fired openhands cases");
    let mut failures = Vec::new();
    for (name, g) in &fired {
        for preset_name in ["openhands", "openhands-fixed"] {
            let bad = check(name, g, preset_name);
            if !bad.is_empty() {
                failures.push(format!("{name} ({preset_name}):\n  {}", bad.join("\n  ")));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The summary stands where the SDK inserts it, as a user message holding the summary, and
/// the compacted session plans again to the same View (nothing pending, nothing re-forgotten).
#[test]
fn the_compacted_session_holds_the_summary_where_the_view_has_it() {
    let (name, g) = goldens()
        .into_iter()
        .find(|(n, _)| n == "previous_summary")
        .unwrap();
    let a = support::openhands_analysis(&name, &g);
    let after = compacted("openhands", &a, &g);
    let at = g["expected"]["summary_inserted"]["position"]
        .as_u64()
        .unwrap() as usize;
    let m = &after.session.messages[at];
    assert_eq!(m.role, Role::User);
    assert!(matches!(&m.parts[..], [Part::Summary { text }] if text == "SUMMARY-1"));
    let again = Analysis::new(
        after.session.clone(),
        &Registry::bundled(),
        &Options::default(),
    );
    let plan = preset::run(
        presets::find("openhands").unwrap(),
        &PlanInput::new(&again),
        &sets(&g),
    )
    .unwrap();
    assert!(!plan.trigger.fired, "{}", plan.trigger.reason);
    let want = g["expected"]["compacted_history_len"].as_u64().unwrap();
    assert_eq!(plan.trigger.value, want, "{}", plan.trigger.reason);
}

fn ctxray(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .env("NO_COLOR", "1")
        .env(
            "XDG_CACHE_HOME",
            std::env::temp_dir().join("ctxray-test-cache"),
        )
        .output()
        .unwrap()
}

/// `compact -o` writes the event log as JSONL with the `Condensation`; `report` reads it back
/// and the condenser, planning it, sees the View the SDK would.
#[test]
fn the_written_event_log_loads_back_and_plans_to_the_view() {
    let input = dir().join("just_above.input.jsonl");
    let out = std::env::temp_dir().join(format!("ctxray-oh-after-{}.jsonl", std::process::id()));
    let input_s = input.to_str().unwrap();
    let out_s = out.to_str().unwrap();
    let sets = ["--set", "max_size=20", "--set", "keep_first=2"];
    let mut args = vec![
        "compact",
        input_s,
        "--preset",
        "openhands",
        "--force",
        "-o",
        out_s,
    ];
    args.extend(sets);
    let run = ctxray(&args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let written = std::fs::read_to_string(&out).unwrap();
    let original = std::fs::read_to_string(&input).unwrap();
    assert!(
        written.starts_with(&original),
        "the events are kept, in order"
    );
    let last: Value = serde_json::from_str(written.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "Condensation");
    assert_eq!(written.lines().count(), original.lines().count() + 1);
    let report = ctxray(&["report", out_s, "--json"]);
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    let r: Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(r["source"]["format"], "openhands");
    assert_eq!(r["marks"].as_array().unwrap().len(), 1);
    let mut args = vec!["plan", out_s, "--preset", "openhands", "--json"];
    args.extend(sets);
    let plan = ctxray(&args);
    let p: Value = serde_json::from_slice(&plan.stdout).unwrap();
    assert_eq!(p["trigger"]["fired"], false);
    let g: Value = serde_json::from_str(
        &std::fs::read_to_string(dir().join("just_above.golden.json")).unwrap(),
    )
    .unwrap();
    let want = &g["expected"]["compacted_history_len"];
    assert_eq!(&p["trigger"]["value"], want, "{}", p["trigger"]["reason"]);
    let _ = std::fs::remove_file(&out);
}

/// Another format is converted to events first (the preset's `events::synthesized`); its
/// compacted history is event-shaped as well: the View of those events with the summary event
/// at the offset, and the log with the `Condensation`, whose forgotten ids are exactly the
/// events the View lost.
#[test]
fn a_source_in_another_format_compacts_to_the_same_event_shape() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/openai-chat/completion-log.json");
    let session = load_path(&path, None).unwrap();
    assert_eq!(session.format, Format::OPENAI_CHAT);
    let a = Analysis::new(session, &Registry::bundled(), &Options::default());
    let p = presets::find("openhands").unwrap();
    let input = PlanInput::new(&a);
    let sets = ["max_size=6".to_string(), "keep_first=1".to_string()];
    let plan = preset::run(p, &input, &sets).unwrap();
    assert!(plan.trigger.fired, "{}", plan.trigger.reason);
    let after = p.compacted(&input, &plan, Some("the summary"));
    assert_eq!(after.format, Some(Format::OPENHANDS));
    let view = after.history.as_array().unwrap();
    let log = after.persisted.as_ref().unwrap().as_array().unwrap();
    let condensation = log.last().unwrap();
    assert_eq!(condensation["kind"], "Condensation");
    let offset = condensation["summary_offset"].as_u64().unwrap() as usize;
    assert_eq!(view[offset]["kind"], "CondensationSummaryEvent");
    assert_eq!(view[offset]["summary"], "the summary");
    let id = |v: &Value| v["id"].as_str().unwrap().to_string();
    let forgotten: Vec<String> = condensation["forgotten_event_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let in_view: Vec<String> = view.iter().map(id).collect();
    let events: Vec<String> = log[..log.len() - 1].iter().map(id).collect();
    let mut lost: Vec<String> = events
        .iter()
        .filter(|e| !in_view.contains(e))
        .cloned()
        .collect();
    let mut want = forgotten.clone();
    lost.sort();
    want.sort();
    assert!(!want.is_empty());
    assert_eq!(lost, want);
    // Read back: the kept messages, and the summary as a user message where the View has it.
    let kept = plan.split.pinned.len() + plan.split.kept.len();
    assert_eq!(after.session.messages.len(), kept + 1);
    assert!(after
        .session
        .messages
        .iter()
        .any(|m| matches!(&m.parts[..], [Part::Summary { text }] if text == "the summary")));
}
