//! `plan` with every preset on whatever session arbitrary bytes parse into (detected, or the
//! format the first byte picks). A plan or a `PlanError`; never a panic.
#![no_main]

use ctxray::compaction::presets;
use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::formats::load_bytes;
use ctxray::formats::registry::FORMATS;
use ctxray::tokens::Registry;
use libfuzzer_sys::fuzz_target;

/// Settings for the presets whose framework has no default for them.
fn required(preset: &str) -> Vec<String> {
    let sets: &[&str] = match preset {
        "pydantic-ai-harness" | "pydantic-ai-harness-sliding" => &["max_messages=4", "keep_messages=2"],
        "agent-framework-truncation" => &["max_n=4", "compact_to=2"],
        "agent-framework-sliding" => &["keep_last_groups=1"],
        "agent-framework-context-window" => &["max_context_window_tokens=400", "max_output_tokens=50"],
        _ => &[],
    };
    sets.iter().map(|s| s.to_string()).collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let from = FORMATS.get(pick as usize).map(|f| f.format());
    let Ok(session) = load_bytes(body.to_vec(), None, "fuzz", from) else {
        return;
    };
    let options = Options {
        window: Some(300),
        ..Options::default()
    };
    let analysis = Analysis::new(session, &Registry::bundled(), &options);
    let input = PlanInput::new(&analysis);
    for p in presets::all() {
        let _ = preset::run(p, &input, &required(p.name()));
    }
});
