//! ctxray's counts equal Python tiktoken's on the same texts: every string in every real
//! sample session, and a set of hard texts. The golden is made by
//! `tools/oracle/tiktoken_golden.py` running the real tiktoken.

use std::path::{Path, PathBuf};

use ctxray::tokens::{Counter, Encoding};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn golden() -> Value {
    let text =
        std::fs::read_to_string(root().join("fixtures/tokens/tiktoken_golden.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn leaves<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Object(m) => m.values().for_each(|x| leaves(x, out)),
        Value::Array(a) => a.iter().for_each(|x| leaves(x, out)),
        _ => {}
    }
}

fn records(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if let Ok(v) = serde_json::from_str(text) {
        return vec![v];
    }
    text.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn every_sample_string_counts_as_tiktoken_counts_it() {
    let golden = golden();
    let samples = golden["samples"].as_object().unwrap();
    assert!(samples.len() >= 15, "golden covers too few samples");
    let mut checked = 0;
    for encoding in Encoding::ALL {
        let counter = Counter::new(encoding);
        for (rel, expected) in samples {
            let path = root().join("../shared/samples").join(rel);
            let recs = records(&path);
            let mut strings = Vec::new();
            recs.iter().for_each(|r| leaves(r, &mut strings));
            let want = expected[encoding.name()].as_array().unwrap();
            assert_eq!(strings.len(), want.len(), "{rel}: string count differs");
            for (i, (s, w)) in strings.iter().zip(want).enumerate() {
                if let Some(w) = w.as_u64() {
                    assert_eq!(
                        counter.count(s) as u64,
                        w,
                        "{rel} string #{i} ({encoding}): {s:.80?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 20_000, "only {checked} strings checked");
}

#[test]
fn hard_texts_count_as_tiktoken_counts_them() {
    let golden = golden();
    for entry in golden["texts"].as_array().unwrap() {
        let text = entry["text"].as_str().unwrap();
        for encoding in Encoding::ALL {
            let want = entry[encoding.name()].as_u64().unwrap();
            assert_eq!(
                Counter::new(encoding).count(text) as u64,
                want,
                "{encoding}: {text:.60?}"
            );
        }
    }
}
