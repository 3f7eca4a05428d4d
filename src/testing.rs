//! Texts for unit tests: pieces drawn from a list by a fixed pseudo-random sequence, so a test
//! reads the same text on every run and machine.
//!
//! Owns: that one generator, and the lines counting tests cut texts of. Compiled for tests
//! only.

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
        "/usr/bin/env",
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
