//! Texts for unit tests: pieces drawn from a list by a fixed pseudo-random sequence, so a test
//! reads the same text on every run and machine; and a fixture loaded and analysed.
//!
//! Owns: that one generator, the lines counting tests cut texts of, and the fixture loader.
//! Compiled for tests only.

/// The session at `rel` (from the project's root) analysed with the bundled registry and the
/// default options.
pub fn analysed(rel: &str) -> crate::analysis::Analysis {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let session = crate::formats::load_path(&path, None).unwrap();
    crate::analysis::Analysis::new(
        session,
        &crate::tokens::Registry::bundled(),
        &crate::analysis::Options::default(),
    )
}

/// Fixtures of several formats that the compaction tests plan under every preset.
pub const FORMATS: &[&str] = &[
    "fixtures/samples/claude-code-demo.jsonl",
    "fixtures/agent-framework/messages.jsonl",
    "fixtures/openai-chat/seed-003-tiny-rounds.json",
    "fixtures/pydantic-ai/seed-003-tiny-rounds.json",
    "fixtures/langchain/v1-blocks.jsonl",
    "fixtures/openhands/conversation",
    "fixtures/codex/local-compaction.jsonl",
];

/// `p`'s plan of `input` under the settings `--demo` finds, if one fires.
pub fn fired(
    input: &crate::compaction::PlanInput,
    p: &dyn crate::compaction::preset::Preset,
) -> Option<crate::compaction::Plan> {
    use crate::compaction::demo::{fit, Fit};
    let sets = match fit(input, p, &[]).ok()? {
        Fit::Fires => Vec::new(),
        Fit::Scaled(d) => d.sets,
        Fit::Cannot(_) => return None,
    };
    crate::compaction::preset::run(p, input, &sets).ok()
}

/// The bundled Claude Code demo, analysed.
pub fn demo() -> crate::analysis::Analysis {
    analysed("fixtures/samples/claude-code-demo.jsonl")
}

/// Pieces of `list` drawn one after another, from `seed`, until the text holds `bytes` bytes
/// or more.
pub fn drawn(seed: u64, list: &[&str], bytes: usize) -> String {
    let mut text = String::new();
    let mut x = seed;
    while text.len() < bytes && !list.is_empty() {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        text.push_str(list[(x >> 33) as usize % list.len()]);
    }
    text
}

/// Lines that end and start in every way a pre-token can care about (trailing spaces, tabs, a
/// bare carriage return, accents, contractions, digits, a path), each with its newline.
pub fn hostile_lines() -> Vec<String> {
    [
        "plain words here",
        "  indented   code(x, y);",
        "!!!",
        "",
        " ",
        "word's it'll WE'RE",
        "src/bin/env.rs",
        "12345 678",
        "\u{00e9}t\u{00e9} caf\u{00e9}",
        "trailing space ",
        "\t\ttabs",
        "\r",
    ]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect()
}
