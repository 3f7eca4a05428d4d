//! ctxray's Python `repr()` equals real Python's on every record of every sample and on a set
//! of hard values. The golden is made by `tools/oracle/pyrepr_golden.py` running CPython.

use std::path::{Path, PathBuf};

use ctxray::pyrepr::repr;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn golden() -> Value {
    let text = std::fs::read_to_string(root().join("fixtures/pyrepr/golden.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
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
fn hard_values_repr_as_python_does() {
    for entry in golden()["hard"].as_array().unwrap() {
        assert_eq!(
            repr(&entry["value"]),
            entry["repr"].as_str().unwrap(),
            "{}",
            entry["value"]
        );
    }
}

#[test]
fn every_sample_record_reprs_as_python_does() {
    let golden = golden();
    let mut checked = 0;
    for (rel, want) in golden["samples"].as_object().unwrap() {
        let recs = records(&root().join("../shared/samples").join(rel));
        let want = want.as_array().unwrap();
        assert_eq!(recs.len(), want.len(), "{rel}: record count");
        for (i, (r, w)) in recs.iter().zip(want).enumerate() {
            let got = repr(r);
            assert_eq!(
                got.chars().count() as u64,
                w[0].as_u64().unwrap(),
                "{rel} record {i}: length"
            );
            assert_eq!(
                fnv(&got),
                w[1].as_u64().unwrap(),
                "{rel} record {i}: text differs"
            );
            checked += 1;
        }
    }
    assert!(checked > 3_000, "only {checked} records checked");
}
