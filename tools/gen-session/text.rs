//! Text of the kinds agent sessions carry — prose, code, JSON tool arguments, long logs,
//! unicode, runs of one character — from a seeded generator, so every run writes the same bytes.
//!
//! Owns: the words and shapes of generated text. Must not: know any session format.
#![allow(dead_code)]

/// A small deterministic generator (splitmix64): the same seed gives the same texts.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..hi` (`hi > lo`).
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len())]
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const WORDS: &[&str] = &[
    "the",
    "session",
    "context",
    "window",
    "token",
    "message",
    "tool",
    "result",
    "agent",
    "summary",
    "history",
    "we",
    "should",
    "check",
    "whether",
    "file",
    "function",
    "returns",
    "error",
    "value",
    "because",
    "test",
    "fails",
    "when",
    "config",
    "is",
    "missing",
    "a",
    "of",
    "to",
    "and",
    "in",
    "that",
    "it",
    "for",
    "on",
    "with",
    "this",
    "compaction",
    "threshold",
    "model",
    "request",
    "response",
    "cache",
    "parser",
    "build",
    "module",
    "change",
    "fix",
    "let's",
    "I'll",
    "don't",
    "it's",
    "README",
    "JSON",
    "HTTP",
    "API",
    "Rust",
    "Python",
    "performance",
    "memory",
    "benchmark",
    "throughput",
    "latency",
    "refactor",
    "dependency",
];

const UNICODE: &[&str] = &[
    "日本語のテキスト",
    "中文内容测试",
    "한국어 문장",
    "Ünïcödé façade",
    "naïve café",
    "Привет, мир",
    "مرحبا بالعالم",
    "שלום עולם",
    "🚀✨",
    "👍🏽",
    "∑∫√∞≠≈",
    "ταχύτητα",
    "e\u{301}",
    "ﬁnal ligature",
    "\u{200b}zero\u{200b}width",
];

const CODE_LINES: &[&str] = &[
    "fn parse_line(line: &str) -> Result<Record, Error> {",
    "    let value: serde_json::Value = serde_json::from_str(line)?;",
    "    for (i, item) in items.iter().enumerate() {",
    "        if item.kind == Kind::ToolCall && !seen.contains(&item.id) {",
    "            return Err(Error::Orphan { index: i, id: item.id.clone() });",
    "    }",
    "}",
    "def count_tokens(messages: list[dict]) -> int:",
    "    total = sum(len(enc.encode(m[\"content\"])) for m in messages)",
    "    return total + 3 * len(messages)",
    "class Condenser:",
    "    async def condense(self, events: list[Event]) -> View:",
    "const result = await fetch(`${baseUrl}/v1/chat/completions`, { method: 'POST' });",
    "import { useState, useEffect } from 'react';",
    "#include <stdio.h>",
    "\tif (n <= 1) { return n; }",
    "    // TODO: handle the empty case",
    "SELECT id, name FROM users WHERE created_at > '2025-01-01' ORDER BY id;",
    "    x = np.array([[1.0, 2.5], [3.25, -4e-3]])",
];

const LOG_LEVELS: &[&str] = &["INFO", "DEBUG", "WARN", "ERROR", "TRACE"];

pub fn prose(rng: &mut Rng, words: usize) -> String {
    let mut out = String::with_capacity(words * 7);
    for i in 0..words {
        if i > 0 {
            out.push(if rng.chance(8) { '\n' } else { ' ' });
        }
        let word = rng.pick(WORDS);
        if i == 0 || out.ends_with(". ") {
            let mut chars = word.chars();
            if let Some(c) = chars.next() {
                out.extend(c.to_uppercase());
                out.push_str(chars.as_str());
            }
        } else {
            out.push_str(word);
        }
        if rng.chance(2) {
            out.push(' ');
            out.push_str(rng.pick(UNICODE).as_ref());
        }
        if rng.chance(9) {
            out.push_str(rng.pick(&[".", ",", ":", "?", "!", ";"]).as_ref());
        }
        if rng.chance(3) {
            out.push_str(&format!(" {}", rng.range(0, 100_000)));
        }
    }
    out
}

pub fn code(rng: &mut Rng, lines: usize) -> String {
    let mut out = String::new();
    for _ in 0..lines {
        let indent = rng.range(0, 4);
        out.push_str(&"    ".repeat(indent));
        out.push_str(rng.pick(CODE_LINES).as_ref());
        out.push('\n');
    }
    out
}

/// A tool call's arguments, as the JSON string the model sent.
pub fn json_args(rng: &mut Rng) -> String {
    let path = format!(
        "src/{}/{}_{}.rs",
        rng.pick(WORDS),
        rng.pick(WORDS),
        rng.range(0, 999)
    );
    let value = match rng.range(0, 4) {
        0 => {
            serde_json::json!({"command": format!("cargo test --release {}", rng.pick(WORDS)), "timeout": rng.range(1, 600)})
        }
        1 => serde_json::json!({"file_path": path, "offset": rng.range(0, 2000), "limit": 200}),
        2 => {
            serde_json::json!({"file_path": path, "old_string": code(rng, 2), "new_string": code(rng, 3), "replace_all": false})
        }
        _ => {
            serde_json::json!({"pattern": format!("fn {}", rng.pick(WORDS)), "glob": "**/*.rs", "output_mode": "content", "-n": true})
        }
    };
    value.to_string()
}

pub fn log(rng: &mut Rng, lines: usize) -> String {
    let mut out = String::new();
    for _ in 0..lines {
        let words = rng.range(2, 9);
        out.push_str(&format!(
            "2026-11-30T{:02}:{:02}:{:02}.{:03}Z {:5} [{}::{}] request_id={:016x} took {}ms {}\n",
            rng.range(0, 24),
            rng.range(0, 60),
            rng.range(0, 60),
            rng.range(0, 1000),
            rng.pick(LOG_LEVELS),
            rng.pick(WORDS),
            rng.pick(WORDS),
            rng.next(),
            rng.range(0, 5000),
            prose(rng, words),
        ));
    }
    out
}

/// A run of one character, the hostile case for BPE (one pre-token of `len` characters).
pub fn run_of(c: char, len: usize) -> String {
    std::iter::repeat_n(c, len).collect()
}

/// Base64 of a PNG of about `bytes` bytes: a real signature and IHDR (so its pixel size can be
/// read), then pseudo-random payload.
pub fn image_base64(rng: &mut Rng, bytes: usize) -> String {
    use base64::Engine;
    let (width, height) = (rng.range(200, 2000) as u32, rng.range(200, 1400) as u32);
    let mut png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
    png.extend_from_slice(&width.to_be_bytes());
    png.extend_from_slice(&height.to_be_bytes());
    png.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    while png.len() < bytes {
        png.extend_from_slice(&rng.next().to_le_bytes());
    }
    base64::engine::general_purpose::STANDARD.encode(png)
}

/// One text of a random kind and a size that spans short replies to long tool outputs.
pub fn any(rng: &mut Rng) -> String {
    match rng.range(0, 10) {
        0..=3 => {
            let n = rng.range(5, 300);
            prose(rng, n)
        }
        4..=5 => {
            let n = rng.range(3, 120);
            code(rng, n)
        }
        6 => json_args(rng),
        7..=8 => {
            let n = rng.range(5, 400);
            log(rng, n)
        }
        _ => {
            let n = rng.range(1, 40);
            rng.pick(UNICODE).repeat(n)
        }
    }
}
