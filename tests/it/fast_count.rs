//! The fast counting backend (bpe-openai) and the reference (tiktoken-rs) agree token for token
//! on every string of every sample session, on generated prose, code, JSON, logs, unicode and
//! long runs of one character; and the sessions `tools/gen-session` writes load with ctxray's
//! own parsers, as their format, with what they were generated to hold.

use crate::text;
use crate::write;

use std::path::{Path, PathBuf};

use ctxray::formats::load_bytes;
use ctxray::session::Part;
use ctxray::tokens::{count_session, message_tokens, Counter, Encoding, ImageCosting};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "jsonl")
        ) {
            out.push(path);
        }
    }
}

fn leaves(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push(k.clone());
            leaves(x, out)
        }),
        Value::Array(a) => a.iter().for_each(|x| leaves(x, out)),
        _ => {}
    }
}

/// Every string in a JSON or JSONL file, plus each JSONL line and the whole file as text.
fn strings_of(path: &Path) -> Vec<String> {
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    let mut out = Vec::new();
    if let Ok(v) = serde_json::from_str::<Value>(&text) {
        leaves(&v, &mut out);
    } else {
        for line in text.lines() {
            if let Ok(v) = serde_json::from_str::<Value>(line) {
                leaves(&v, &mut out);
            }
            out.push(line.to_string());
        }
    }
    out.push(text);
    out
}

fn assert_agree(texts: &[String], what: &str) -> usize {
    let mut tokens = 0;
    for encoding in Encoding::ALL {
        let counter = Counter::new(encoding);
        for (i, t) in texts.iter().enumerate() {
            let fast = counter.count(t);
            let reference = counter.count_reference(t);
            assert_eq!(fast, reference, "{what} #{i} ({encoding}): {t:.80?}");
            tokens += fast;
        }
    }
    tokens
}

#[test]
fn every_sample_string_counts_the_same_on_both_backends() {
    let mut paths = Vec::new();
    files(&root().join("../shared/samples"), &mut paths);
    files(&root().join("fixtures/samples"), &mut paths);
    assert!(paths.len() >= 15, "too few samples: {}", paths.len());
    let mut strings = 0;
    for path in &paths {
        let texts = strings_of(path);
        strings += texts.len();
        assert_agree(&texts, &path.display().to_string());
    }
    assert!(strings > 20_000, "only {strings} strings checked");
}

#[test]
fn generated_texts_count_the_same_on_both_backends() {
    let mut rng = text::Rng::new(11);
    let mut texts = Vec::new();
    for _ in 0..400 {
        texts.push(text::any(&mut rng));
    }
    for n in [1, 50, 400] {
        texts.push(text::prose(&mut rng, n));
        texts.push(text::code(&mut rng, n));
        texts.push(text::log(&mut rng, n));
        texts.push(text::json_args(&mut rng));
    }
    texts.push(text::image_base64(&mut rng, 30_000));
    // Long runs of one character: one huge pre-token each (kept short enough for tiktoken-rs).
    for c in ['a', 'Z', ' ', '\n', '1', '.', 'é', '日', '🚀', '\t'] {
        texts.push(text::run_of(c, 20_000));
    }
    texts.push(format!("{}x", text::run_of(' ', 5_000)));
    texts.push(format!(
        "x{}\n\n{}",
        text::run_of(' ', 3_000),
        text::run_of('\n', 3_000)
    ));
    texts.push("ab".repeat(20_000));
    texts.push("<|endoftext|> <|im_start|>user\n".repeat(100));
    let tokens = assert_agree(&texts, "generated");
    assert!(tokens > 100_000, "only {tokens} tokens");
}

fn generated(shape: write::Shape, seed: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    let n = write::write_session(shape, 300_000, seed, &mut bytes).unwrap();
    assert_eq!(n as usize, bytes.len());
    assert!(bytes.len() >= 300_000);
    bytes
}

#[test]
fn generated_sessions_load_as_their_format_with_what_they_hold() {
    for shape in write::Shape::ALL {
        let bytes = generated(shape, 3);
        let session = load_bytes(bytes.clone(), None, shape.name(), None)
            .unwrap_or_else(|e| panic!("{}: {e}", shape.name()));
        assert_eq!(session.format.name(), shape.name());
        assert!(
            session.source.skipped.is_empty(),
            "{}: {:?}",
            shape.name(),
            session.source.skipped.first()
        );
        let parts = || session.messages.iter().flat_map(|m| m.parts.iter());
        let calls = parts()
            .filter(|p| matches!(p, Part::ToolCall { .. }))
            .count();
        let results = parts()
            .filter(|p| matches!(p, Part::ToolResult { .. }))
            .count();
        let images = parts().filter(|p| matches!(p, Part::Image(_))).count();
        let parallel = session.messages.iter().any(|m| {
            m.parts
                .iter()
                .filter(|p| matches!(p, Part::ToolCall { .. }))
                .count()
                > 1
        });
        let name = shape.name();
        assert!(
            calls > 20 && calls == results,
            "{name}: {calls} calls, {results} results"
        );
        assert!(images > 0, "{name}: no image");
        assert!(parallel, "{name}: no parallel tool calls in one message");
        // Same bytes for the same seed; every message counts the same on both backends.
        assert_eq!(generated(shape, 3), bytes, "{name}: not deterministic");
        let counter = Counter::new(Encoding::O200kBase);
        let counts = count_session(&session, &counter, ImageCosting::Openai);
        for (m, c) in session.messages.iter().zip(&counts.messages) {
            assert_eq!(c.tokens, message_tokens(m, &counter));
            let reference: usize = m.parts.iter().map(|p| reference_tokens(p, &counter)).sum();
            if m.role != ctxray::session::Role::Event {
                assert_eq!(c.tokens, reference, "{name} message {}", m.index);
            }
        }
        assert!(counts.total() > 20_000, "{name}: {}", counts.total());
    }
}

fn reference_tokens(part: &Part, counter: &Counter) -> usize {
    match part {
        Part::Text { text } | Part::Summary { text } | Part::Reasoning { text, .. } => {
            counter.count_reference(text)
        }
        Part::ToolCall {
            name, arguments, ..
        } => counter.count_reference(name) + counter.count_reference(arguments),
        Part::ToolResult { content, .. } => {
            content.iter().map(|p| reference_tokens(p, counter)).sum()
        }
        Part::Image(_) | Part::Opaque { .. } => 0,
    }
}

#[test]
fn a_grown_session_keeps_known_counts_and_counts_the_rest() {
    use ctxray::analysis::{Analysis, KnownCounts, Options};
    use ctxray::tokens::{MessageCount, Registry};
    let bytes = generated(write::Shape::ClaudeCode, 5);
    let text = String::from_utf8(bytes).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let head = lines[..lines.len() / 2].join("\n") + "\n";
    let (registry, options) = (Registry::bundled(), Options::default());
    let load = |s: &str| load_bytes(s.as_bytes().to_vec(), None, "grown", None).unwrap();
    let before = Analysis::new(load(&head), &registry, &options);
    let full = Analysis::new(load(&text), &registry, &options);
    // The head's last message may still grow (a streamed reply): it is recounted.
    let unchanged = before.counts.messages.len() - 1;
    let known = KnownCounts::of(&before, unchanged);
    let grown = Analysis::grown(load(&text), &registry, &options, None, &known);
    assert!(unchanged > 10 && full.counts.messages.len() > unchanged + 10);
    assert_eq!(grown.counts, full.counts);
    // Known counts are taken as given (so they are reused, not recounted) …
    let poisoned = |encoding| KnownCounts {
        encoding: Some(encoding),
        images: before.info.images,
        messages: vec![
            MessageCount {
                tokens: 999_999,
                overhead: 0
            };
            unchanged
        ],
    };
    let reused = Analysis::grown(
        load(&text),
        &registry,
        &options,
        None,
        &poisoned(Encoding::O200kBase),
    );
    assert_eq!(reused.counts.messages[unchanged - 1].tokens, 999_999);
    assert_eq!(
        reused.counts.messages[unchanged..],
        full.counts.messages[unchanged..]
    );
    // … but only under the encoding they were counted with.
    let other = Analysis::grown(
        load(&text),
        &registry,
        &options,
        None,
        &poisoned(Encoding::Cl100kBase),
    );
    assert_eq!(other.counts, full.counts);
}
