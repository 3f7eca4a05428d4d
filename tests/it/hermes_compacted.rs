//! The history `hermes` leaves after a compaction, against the real hermes-agent 0.19.0
//! `compress()` (tools/oracle/hermes): for every golden that fired, in fixtures/oracle/hermes
//! (a fake summarizer's text) and fixtures/oracle/hermes-fallback (no summarizer reachable:
//! Hermes' static fallback), `Preset::compacted` with the summary the golden's summarizer
//! returned equals the list `compress()` returned, as JSON values, in-process keys included.
//! Nothing is normalised: Hermes makes up no id or clock reading in that list.

use crate::support;
use ctxray::compaction::presets;
use std::path::{Path, PathBuf};

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::formats::load_path;
use ctxray::session::Format;
use ctxray::tokens::Registry;
use serde_json::Value;

/// `SUMMARY_PREFIX` + newline, which a fallback golden's text starts with.
const PREFIX_LINE: &str = "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted";

/// The golden's input list and the summary its summarizer returned (the fallback's body after
/// the prefix line for a fallback golden; `None` when the golden made no summary).
fn input_and_summary(path: &Path, g: &Value) -> (PathBuf, Option<String>) {
    let e = &g["expected"];
    if let Some(fallback) = e["fallback_summary"].as_str() {
        assert!(fallback.starts_with(PREFIX_LINE));
        let body = fallback.split_once('\n').unwrap().1.to_string();
        return (
            support::oracle_dir().join(g["input"].as_str().unwrap()),
            Some(body),
        );
    }
    let name = path.file_name().unwrap().to_string_lossy();
    let input = path.with_file_name(name.replace(".golden.json", ".input.json"));
    let summary = e["summarizer"]["returned"].as_str().map(str::to_string);
    (input, summary)
}

/// The compacted list for one golden (its own input, or `source`) against the one it holds,
/// after `adjust`; `None` when it did not fire.
fn check(path: &Path, source: &Path, adjust: fn(&mut Value)) -> Option<Result<(), String>> {
    let g = support::read(path);
    let e = &g["expected"];
    if !e["fired"].as_bool().unwrap() {
        return None;
    }
    let (input, summary) = input_and_summary(path, &g);
    let source = if source.as_os_str().is_empty() {
        input.as_path()
    } else {
        source
    };
    let session = load_path(source, None).unwrap();
    let options = Options {
        model: g["model"].as_str().map(str::to_string),
        ..Options::default()
    };
    let a = Analysis::new(session, &Registry::bundled(), &options);
    let mut pi = PlanInput::new(&a);
    pi.now = g["today"].as_str();
    let hermes = presets::find("hermes").unwrap();
    let plan = preset::run(hermes, &pi, &support::hermes_sets(&g)).unwrap();
    let after = hermes.compacted(&pi, &plan, summary.as_deref());
    // A compaction that compacts nothing (too few messages, the auxiliary window refused)
    // leaves the list it was given.
    let mut want = match e.get("compacted_history") {
        Some(h) => h.clone(),
        None => support::read(&input),
    };
    adjust(&mut want);
    let got = &after.history;
    if after.format != Some(Format::OPENAI_CHAT) || after.session.messages.len() != want_len(&want)
    {
        return Some(Err(format!(
            "read back as {:?} with {} messages, want {}",
            after.format,
            after.session.messages.len(),
            want_len(&want)
        )));
    }
    if *got == want {
        return Some(Ok(()));
    }
    Some(Err(first_differing_message(&want, got)))
}

fn want_len(v: &Value) -> usize {
    v.as_array().map_or(0, Vec::len)
}

fn first_differing_message(want: &Value, got: &Value) -> String {
    let (w, g) = (want.as_array().unwrap(), got.as_array().unwrap());
    let at = w.iter().zip(g).position(|(a, b)| a != b);
    match at {
        Some(i) => format!(
            "message {i} of {}/{}:\n    want {}\n    got  {}",
            w.len(),
            g.len(),
            w[i],
            g[i]
        ),
        None => format!("lengths {} vs {}", w.len(), g.len()),
    }
}

fn run_all(dir: &str, fired: usize) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in support::goldens(dir) {
        match check(&path, Path::new(""), |_| {}) {
            None => {}
            Some(Ok(())) => checked += 1,
            Some(Err(why)) => {
                checked += 1;
                failures.push(format!("{}: {why}", path.display()));
            }
        }
    }
    assert_eq!(checked, fired, "fired goldens in {dir}");
    assert!(
        failures.is_empty(),
        "{} of {checked} compacted histories differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_fired_golden_s_compacted_history_matches_compress() {
    run_all("hermes", 17);
}

#[test]
fn every_fallback_golden_s_compacted_history_matches_compress() {
    run_all("hermes-fallback", support::goldens("hermes-fallback").len());
}

/// The sample's fallback goldens were made from ctxray's OpenAI chat export of the Claude Code
/// sample; read in its own format, Hermes' dicts (built from the common model) give the same
/// compacted list, but for one difference of the input: an assistant turn with only tool calls
/// has `content: ""` (as Hermes' `build_assistant_message` stores it) where the export wrote
/// `null`.
#[test]
fn the_claude_code_sample_itself_compacts_to_the_same_dicts() {
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/claude-code-demo.jsonl");
    let mut checked = 0;
    for path in support::goldens("hermes-fallback") {
        let g = support::read(&path);
        if g["input"] != "hermes-fallback/claude-code-demo.input.json" {
            continue;
        }
        let result = check(&path, &sample, call_only_content_is_empty).unwrap();
        assert!(
            result.is_ok(),
            "{}: {}",
            path.display(),
            result.unwrap_err()
        );
        checked += 1;
    }
    assert_eq!(checked, 2);
}

fn call_only_content_is_empty(history: &mut Value) {
    for m in history.as_array_mut().unwrap() {
        if m["role"] == "assistant" && m["content"].is_null() && m.get("tool_calls").is_some() {
            m["content"] = "".into();
        }
    }
}
