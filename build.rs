//! The tokenizer tables ctxray embeds: `bpe-openai`'s, less what counting never reads.
//!
//! `bpe-openai` embeds each encoding's byte-pair tables, and deserializes them whole on first
//! use: three Aho-Corasick automata among them. Counting (`BytePairEncoding::count`, the
//! backtracking encoder) reads one, the longest-match searcher; the two overlapping searchers
//! serve other encoders and are about 16 MB of every process's memory for o200k. Here each
//! encoding's tables are serialized again with those two replaced by the automata of a
//! one-byte-token dictionary, and the executable embeds these instead (`tokens::encoding`).
//! The tests hold every count to tiktoken's.

use std::path::PathBuf;

use bpe_openai::byte_pair_encoding::BytePairEncoding;

/// Places of the two overlapping searchers among `BytePairEncoding`'s serialized fields.
const OVERLAPPING: [usize; 2] = [6, 7];

/// Pre-tokens the smaller tables must count as the whole ones do.
const CHECKED: &[&str] = &[
    "hello",
    " world",
    "tokenization",
    " antidisestablishmentarianism",
    "    ",
    "\n\n",
    "1234567890",
    "{\"key\":",
    "日本語のテキスト",
    "🙂🙂",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set during a build"));
    let small = fields(&BytePairEncoding::from_dictionary(
        (0..=255u8).map(|b| vec![b]),
        Some(17846336922010275747),
    ));
    for (name, tokenizer) in [
        ("o200k_base", bpe_openai::o200k_base()),
        ("cl100k_base", bpe_openai::cl100k_base()),
    ] {
        let mut lean = fields(&tokenizer.bpe);
        assert_eq!(lean.len(), small.len(), "the tables' fields changed");
        for at in OVERLAPPING {
            assert!(
                matches!(lean[at], rmpv::Value::Binary(_)),
                "field {at} is not an automaton"
            );
            lean[at] = small[at].clone();
        }
        let mut bytes = Vec::new();
        rmpv::encode::write_value(&mut bytes, &rmpv::Value::Array(lean))
            .expect("the tables encode");
        // The tables read back count as the whole ones do: had the fields moved, the wrong
        // automaton would have been replaced.
        let read: BytePairEncoding = rmp_serde::from_slice(&bytes).expect("the tables decode");
        for text in CHECKED {
            assert_eq!(
                read.count(text.as_bytes()),
                tokenizer.bpe.count(text.as_bytes()),
                "{name}: {text:?} counts differently"
            );
        }
        std::fs::write(out.join(format!("{name}.lean")), bytes).expect("the tables are written");
    }
}

/// The serialized fields of `bpe`, in order.
fn fields(bpe: &BytePairEncoding) -> Vec<rmpv::Value> {
    let bytes = rmp_serde::to_vec(bpe).expect("the tables serialize");
    match rmpv::decode::read_value(&mut bytes.as_slice()).expect("the tables decode") {
        rmpv::Value::Array(fields) => fields,
        other => panic!("the tables are not a sequence of fields: {other}"),
    }
}
