//! `replay --compare` shows what each run's summarizer was shown, on generated sessions: on
//! tool rounds (`support::tool_session`), openhands' 500-character previews reach less of the
//! summarized range than openhands-fixed's whole events, and agent-framework 1.17's
//! placeholders carry fewer of its facts than 1.23's transcript; the JSON figures are
//! consistent (seen ≤ total, a run's totals the sum of its compactions'), and text, Markdown
//! and HTML show them. On a long chat (`support::chat_session`) Hermes' lowered threshold is
//! shown at each compaction, and the window is the preset's own.

use crate::support;

use std::process::{Command, Output};

use serde_json::Value;

fn ctxray(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The run's input figures: each compaction's seen ≤ total, and the run's totals are their
/// sums. Returns the run's `input_fidelity`.
fn consistent(run: &Value) -> [u64; 4] {
    let keys = ["chars", "chars_seen", "facts", "facts_present"];
    let mut sum = [0u64; 4];
    let compactions = run["compactions"].as_array().unwrap();
    assert!(!compactions.is_empty(), "{}", run["preset"]);
    for c in compactions {
        let f = &c["input"];
        assert!(u(&f["chars_seen"]) <= u(&f["chars"]), "{f}");
        assert!(u(&f["facts_present"]) <= u(&f["facts"]), "{f}");
        for (s, k) in sum.iter_mut().zip(keys) {
            *s += u(&f[k]);
        }
    }
    let total = keys.map(|k| u(&run["input_fidelity"][k]));
    assert_eq!(total, sum, "{}", run["preset"]);
    total
}

/// `--compare a b` under `preset` and `sets`, as JSON runs.
fn compare(file: &str, preset: &str, sets: &[&str], sides: [&str; 2]) -> Vec<Value> {
    let mut args = vec!["replay", file, "--preset", preset];
    for s in sets {
        args.extend(["--set", s]);
    }
    args.extend(["--compare", sides[0], sides[1], "--json"]);
    let v: Value = serde_json::from_str(&ok(ctxray(&args))).unwrap();
    v["compare"].as_array().unwrap().clone()
}

/// The cells of the text comparison row `label` (split on runs of 2+ spaces).
fn text_row(text: &str, label: &str) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("{label}:\n{text}"));
    line.trim()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

/// The value cells of the Markdown table row `key` after `heading`.
fn md_row(md: &str, heading: &str, key: &str) -> Vec<String> {
    let start = md
        .find(heading)
        .unwrap_or_else(|| panic!("{heading}:\n{md}"));
    let line = md[start..]
        .lines()
        .find(|l| l.starts_with(&format!("| {key} |")))
        .unwrap_or_else(|| panic!("{key}:\n{md}"));
    line.trim_matches('|')
        .split(" | ")
        .skip(1)
        .map(|c| c.trim().to_string())
        .collect()
}

fn fidelity_text(f: [u64; 4]) -> String {
    format!(
        "{} of {} chars ({}%)",
        thousands(f[1]),
        thousands(f[0]),
        f[1] * 100 / f[0]
    )
}

fn facts_text(f: [u64; 4]) -> String {
    format!(
        "{} of {} facts ({}%)",
        thousands(f[3]),
        thousands(f[2]),
        f[3] * 100 / f[2]
    )
}

#[test]
fn openhands_previews_show_the_summarizer_less_of_the_range_than_whole_events() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(&dir, "tools.json", &support::tool_session(12));
    let sets = ["max_size=12"];
    let runs = compare(&file, "openhands", &sets, ["openhands", "openhands-fixed"]);
    let (previews, whole) = (consistent(&runs[0]), consistent(&runs[1]));
    // The same trigger and cut: the first compaction summarizes the same range, shown
    // differently (later ranges hold each run's own earlier summary, which differ).
    assert_eq!(runs[0]["count"], runs[1]["count"]);
    let first = |run: &Value, k: &str| u(&run["compactions"][0]["input"][k]);
    assert_eq!(first(&runs[0], "chars"), first(&runs[1], "chars"));
    assert_eq!(first(&runs[0], "facts"), first(&runs[1], "facts"));
    assert_eq!(whole[1], whole[0], "whole events show every character");
    assert!(
        previews[1] * 100 < whole[1] * 70,
        "previews {previews:?} whole {whole:?}"
    );
    assert!(previews[3] < whole[3], "{previews:?} {whole:?}");
    for c in runs[0]["compactions"].as_array().unwrap() {
        assert!(
            u(&c["input"]["chars_seen"]) < u(&c["input"]["chars"]),
            "{c}"
        );
    }

    let mut args = vec!["replay", &file, "--preset", "openhands", "--set", sets[0]];
    args.extend(["--compare", "openhands", "openhands-fixed"]);
    let text = ok(ctxray(&args));
    assert_eq!(
        text_row(&text, "input fidelity")[1..],
        [fidelity_text(previews), fidelity_text(whole)],
        "{text}"
    );
    assert_eq!(
        text_row(&text, "facts in input")[1..],
        [facts_text(previews), facts_text(whole)],
        "{text}"
    );
}

#[test]
fn agent_framework_1_17_placeholders_carry_fewer_facts_into_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(&dir, "tools.json", &support::tool_session(12));
    let sides = ["agent-framework-1.17", "agent-framework"];
    let runs = compare(&file, "agent-framework", &[], sides);
    let (old, new) = (consistent(&runs[0]), consistent(&runs[1]));
    let first = |run: &Value, k: &str| u(&run["compactions"][0]["input"][k]);
    assert_eq!(
        first(&runs[0], "facts"),
        first(&runs[1], "facts"),
        "the same first range has the same facts"
    );
    assert_eq!(new[3], new[2], "1.23 renders every call and result");
    assert!(old[3] * 2 < new[3], "1.17 {old:?} 1.23 {new:?}");
    assert!(old[1] < new[1], "1.17 {old:?} 1.23 {new:?}");

    let args = [
        "replay",
        &file,
        "--preset",
        "agent-framework",
        "--compare",
        sides[0],
        sides[1],
    ];
    let md = ok(ctxray(&[&args[..], &["--format", "md"]].concat()));
    assert_eq!(
        md_row(&md, "## Comparison", "facts in the input"),
        [facts_text(old), facts_text(new)],
        "{md}"
    );
    assert_eq!(
        md_row(&md, "## Comparison", "input fidelity"),
        [fidelity_text(old), fidelity_text(new)]
    );
    // Each compaction's row: the facts column is present/total of its JSON input.
    let start = md.find("## Compactions · A").unwrap();
    let rows: Vec<Vec<String>> = md[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().into())
                .collect()
        })
        .collect();
    assert_eq!(rows[0][9], "facts in input");
    for (row, c) in rows[2..]
        .iter()
        .zip(runs[0]["compactions"].as_array().unwrap())
    {
        let f = &c["input"];
        assert_eq!(row[9], format!("{}/{}", f["facts_present"], f["facts"]));
    }

    let html = ok(ctxray(&[&args[..], &["--format", "html"]].concat()));
    for cell in [facts_text(old), facts_text(new), fidelity_text(old)] {
        assert!(html.contains(&format!("<td>{cell}</td>")), "{cell}");
    }
}

#[test]
fn each_compaction_shows_the_threshold_in_force_and_the_window_is_the_preset_s() {
    // Hermes configured for a 128K window (the analysis has 200K): threshold 96,000, lowered to
    // the 64,000-token auxiliary window from the first compaction on (aux_fit=false, 0.19).
    let dir = tempfile::tempdir().unwrap();
    let file = write(&dir, "chat.json", &support::chat_session(50, 2000));
    let args = [
        "replay",
        &file,
        "--window",
        "200000",
        "--preset",
        "hermes",
        "--set",
        "config_context_length=128000",
        "--set",
        "aux_context_length=64000",
        "--set",
        "aux_fit=false",
    ];
    let v: Value = serde_json::from_str(&ok(ctxray(&[&args[..], &["--json"]].concat()))).unwrap();
    assert_eq!(v["window"], 128_000);
    assert_eq!(v["thresholds"], serde_json::json!([96_000, 64_000]));
    let compactions = v["compactions"].as_array().unwrap();
    assert!(compactions.len() >= 2, "{v}");
    let steps = v["steps"].as_array().unwrap();
    for (k, c) in compactions.iter().enumerate() {
        let step = steps
            .iter()
            .find(|s| s["source_index"] == c["at_source_index"])
            .unwrap();
        assert_eq!(c["threshold"], step["threshold"]);
        assert_eq!(c["threshold"], if k == 0 { 96_000 } else { 64_000 });
    }

    let text = ok(ctxray(&args));
    assert!(
        text.contains("window 128000 · threshold 96,000 → 64,000 tokens"),
        "{text}"
    );
    let md = ok(ctxray(&[&args[..], &["--format", "md"]].concat()));
    assert_eq!(md_row(&md, "## Replay", "window"), ["128,000 tokens"]);
    assert_eq!(
        md_row(&md, "## Replay", "threshold"),
        ["96,000 → 64,000 tokens"]
    );
    let html = ok(ctxray(&[&args[..], &["--format", "html"]].concat()));
    assert!(
        html.contains("The window (128,000 tokens) is above the chart."),
        "the preset's window, not the analysis' 200,000"
    );
}
