//! Every preset on every real sample and every fixture: no panic, no error, and a plan whose
//! indices are in range and whose source fates name every record once.

use ctxray::compaction::presets;
use std::path::{Path, PathBuf};

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::plan::source_fates;
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::formats::load_path;
use ctxray::tokens::Registry;

fn sessions() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [root.join("../shared/samples"), root.join("fixtures")] {
        walk(&dir, &mut out);
    }
    out.retain(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let is_session = name.ends_with(".jsonl")
            || name.ends_with(".eval")
            || (name.ends_with(".json")
                && !name.ends_with(".golden.json")
                && !name.ends_with(".meta.json"));
        let skip = name == "base_state.json"
            || p.components()
                .any(|c| c.as_os_str() == "tokens" || c.as_os_str() == "pyrepr");
        is_session && !skip && !p.to_string_lossy().contains("/events/")
    });
    out.sort();
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Settings for presets whose framework has no default for them (the preset refuses to guess).
fn required(preset: &str) -> Vec<String> {
    let sets: &[&str] = match preset {
        "pydantic-ai-harness" | "pydantic-ai-harness-sliding" => &["max_messages=20"],
        "agent-framework-truncation" => &["max_n=12", "compact_to=6"],
        "agent-framework-sliding" => &["keep_last_groups=3"],
        "agent-framework-context-window" => {
            &["max_context_window_tokens=8000", "max_output_tokens=1000"]
        }
        _ => &[],
    };
    sets.iter().map(|s| s.to_string()).collect()
}

#[test]
fn every_preset_plans_every_session() {
    let registry = Registry::bundled();
    let files = sessions();
    assert!(
        files.len() > 100,
        "only {} session files found",
        files.len()
    );
    let mut failures = Vec::new();
    let mut plans = 0;
    for path in &files {
        let Ok(session) = load_path(path, None) else {
            continue; // deliberately broken fixtures are tested by their parsers
        };
        let analysis = Analysis::new(session, &registry, &Options::default());
        let input = PlanInput::new(&analysis);
        let n = analysis.session.messages.len();
        for p in presets::all() {
            let plan = match preset::run(p, &input, &required(p.name())) {
                Ok(plan) => plan,
                Err(e) => {
                    failures.push(format!("{} on {}: {e}", p.name(), path.display()));
                    continue;
                }
            };
            plans += 1;
            let s = &plan.split;
            let all = s
                .pinned
                .iter()
                .chain(&s.summarized)
                .chain(&s.kept)
                .chain(&s.dropped);
            if let Some(bad) = all.copied().find(|&i| i >= n) {
                failures.push(format!(
                    "{} on {}: message index {bad} out of range",
                    p.name(),
                    path.display()
                ));
            }
            let fates = source_fates(&analysis.session, s);
            let mut named: Vec<usize> = fates
                .kept
                .iter()
                .chain(&fates.summarized)
                .chain(&fates.dropped)
                .copied()
                .collect();
            let count = named.len();
            named.sort_unstable();
            named.dedup();
            if named.len() != count {
                failures.push(format!(
                    "{} on {}: a record has two fates",
                    p.name(),
                    path.display()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(plans > 100);
}
