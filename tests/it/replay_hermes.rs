//! `replay` under `hermes` carries what hermes-agent 0.19.0 carries from one compaction to the
//! next: the list `compress()` returned (pruned outputs, the summary message, the system note),
//! `compression_count` (head decay, the auxiliary window's lowered threshold) and the
//! anti-thrashing counter. Seed 002: with a 272K main window and a 128K auxiliary summarizer,
//! 0.19 (`aux_fit=false`) compacts far more often than fitting the summarizer input
//! (`aux_fit=true`), and no compacted history overflows the window.

use crate::write;
use ctxray::compaction::presets;

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::plan::Trigger;
use ctxray::compaction::preset::{self, Done, PlanInput};
use ctxray::compaction::Settings;
use ctxray::formats::load_bytes;
use ctxray::replay::{self, Replay};
use ctxray::tokens::Registry;

fn analyse(bytes: Vec<u8>, window: Option<u64>) -> Analysis {
    let session = load_bytes(bytes, None, "generated.json", None).unwrap();
    let options = Options {
        window,
        ..Options::default()
    };
    Analysis::new(session, &Registry::bundled(), &options)
}

fn generated(size: u64, seed: u64) -> Analysis {
    let mut bytes = Vec::new();
    write::write_session(write::Shape::OpenAiChat, size, seed, &mut bytes).unwrap();
    analyse(bytes, None)
}

fn run(a: &Analysis, sets: &[&str], summary_tokens: Option<usize>) -> Replay {
    let p = presets::find("hermes").unwrap();
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    replay::replay(
        a,
        p,
        &sets,
        &replay::Options {
            summary_tokens,
            ..Default::default()
        },
    )
    .unwrap()
}

fn codes(r: &Replay) -> Vec<&str> {
    r.compactions
        .iter()
        .flat_map(|c| c.findings.iter().map(|f| f.code))
        .collect()
}

#[test]
fn seed_002_the_lowered_threshold_compacts_half_again_as_often_and_nothing_overflows() {
    // Scaled by half to run in seconds: 136,000 / 64,000 is the seed's 272,000 / 128,000 with
    // the same ratio of auxiliary window to threshold (64,000 / 102,000 = 128,000 / 204,000);
    // 64,000 is the smallest auxiliary window Hermes accepts.
    let a = generated(1_500_000, 2);
    let base = ["config_context_length=136000", "aux_context_length=64000"];
    let lowered = run(&a, &[base[0], base[1], "aux_fit=false"], None);
    let fitted = run(&a, &[base[0], base[1], "aux_fit=true"], None);
    let (l, f) = (lowered.compactions.len(), fitted.compactions.len());
    assert!(f >= 2, "the fitted run compacts too ({f})");
    assert!(2 * l >= 3 * f, "lowered {l} vs fitted {f}: not 1.5×");
    for (name, r) in [("lowered", &lowered), ("fitted", &fitted)] {
        assert_eq!(r.threshold, 102_000, "{name}: 0.75 of 136,000 at first");
        for c in &r.compactions {
            assert!(
                c.tokens_after <= 136_000,
                "{name}: {} after",
                c.tokens_after
            );
            assert!(c.tokens_after < c.tokens_before, "{name}");
        }
        assert!(
            r.peak_tokens() <= 136_000,
            "{name}: peak {}",
            r.peak_tokens()
        );
        // Hermes' own measure of the history it holds right after each compaction is below the
        // threshold in force: the carried (pruned) history does not fire again at once.
        assert!(!codes(r).contains(&"fires-again-at-once"), "{name}");
        for c in &r.compactions {
            let next = &r.steps[c.step + 1..];
            if let Some(s) = next.first() {
                assert!(
                    s.value < s.threshold,
                    "{name}: {} ≥ {}",
                    s.value,
                    s.threshold
                );
            }
        }
    }
    let thresholds = |r: &Replay| -> Vec<u64> {
        let mut t: Vec<u64> = r.steps.iter().map(|s| s.threshold).collect();
        t.dedup();
        t
    };
    assert_eq!(thresholds(&lowered), vec![102_000, 64_000]);
    assert_eq!(thresholds(&fitted), vec![102_000]);
}

/// Each step's value is Hermes' own estimate of the history it holds at that point: at the
/// check after the first compaction, the estimate of the list `compress()` returned (summary
/// flag and system note included) followed by the messages the session added since.
#[test]
fn the_value_after_a_compaction_is_hermes_estimate_of_the_carried_list() {
    let a = generated(600_000, 5);
    let sets = vec!["config_context_length=100000".to_string()];
    let hermes = presets::find("hermes").unwrap();
    let r = replay::replay(&a, hermes, &sets, &replay::Options::default()).unwrap();
    assert!(r.compactions.len() >= 2, "{}", r.compactions.len());
    let first = &r.compactions[0];
    let (from, to) = (
        first.message.unwrap(),
        r.steps[first.step + 1]
            .message
            .unwrap_or(a.session.messages.len()),
    );
    let prefix = analyse(records(&a, 0..from), None);
    let input = PlanInput::new(&prefix);
    let plan = preset::run(hermes, &input, &sets).unwrap();
    assert!(plan.trigger.fired);
    assert_eq!(plan.trigger.value, r.steps[first.step].value);
    let summary = preset::offline_summary(hermes, &input, &plan);
    let after = hermes.compacted(&input, &plan, Some(&summary));
    let mut list = after.history.as_array().unwrap().clone();
    assert!(list.iter().any(|m| m["_compressed_summary"] == true));
    let added: serde_json::Value = serde_json::from_slice(&records(&a, from..to)).unwrap();
    list.extend(added.as_array().unwrap().iter().cloned());
    let carried = analyse(serde_json::to_vec(&list).unwrap(), None);
    let again = preset::run(
        hermes,
        &PlanInput::new(&carried),
        &[sets.clone(), vec!["compression_count=1".into()]].concat(),
    )
    .unwrap();
    assert_eq!(r.steps[first.step + 1].value, again.trigger.value);
    assert_eq!(r.steps[first.step + 1].threshold, again.trigger.threshold);
}

/// The session's messages `range` as an OpenAI chat JSON array of their own records.
fn records(a: &Analysis, range: std::ops::Range<usize>) -> Vec<u8> {
    let records: Vec<serde_json::Value> = a.session.messages[range]
        .iter()
        .map(|m| serde_json::from_slice(&a.session.raw_record(m).unwrap()).unwrap())
        .collect();
    serde_json::to_vec(&records).unwrap()
}

fn trigger(value: u64, threshold: u64) -> Trigger {
    Trigger {
        fired: value >= threshold,
        measure: "tokens",
        value,
        threshold,
        reason: String::new(),
        estimator: String::new(),
    }
}

/// The anti-thrashing counter: a compaction that leaves the history at or over the threshold
/// counts, one that gets under it resets; two in a row block automatic compression.
#[test]
fn compactions_that_leave_the_history_over_the_threshold_block_the_next_ones() {
    let hermes = presets::find("hermes").unwrap();
    let settings = Settings::resolve("hermes", hermes.params(), &[]).unwrap();
    let done = |after: &[u64]| -> Vec<Done> {
        after
            .iter()
            .map(|&v| Done {
                before: trigger(120, 100),
                after: trigger(v, 100),
            })
            .collect()
    };
    let carried = |after: &[u64]| hermes.carried_settings(&settings, &done(after));
    assert!(carried(&[100]).contains(&"ineffective_compression_count=1".to_string()));
    assert!(carried(&[100, 99]).contains(&"ineffective_compression_count=0".to_string()));
    assert!(carried(&[99, 150, 101]).contains(&"ineffective_compression_count=2".to_string()));
    assert!(carried(&[99, 150, 101]).contains(&"compression_count=3".to_string()));

    // Ten short exchanges, then messages so large that the protected tail alone (three of them
    // at least) is over the threshold (54,400: 85% of a 64,000 window): every compaction leaves
    // the history over it; after the second, Hermes stops compacting while the history keeps
    // growing. (The short start keeps the first compactions from being no-ops.)
    let sizes: Vec<usize> = [500; 20].into_iter().chain([20_000; 10]).collect();
    let a = analyse(chat(&sizes), Some(64_000));
    let r = run(&a, &[], Some(500));
    assert_eq!(r.compactions.len(), 2, "{:?}", codes(&r));
    assert!(codes(&r).iter().all(|c| *c == "fires-again-at-once"));
    let last = r.compactions[1].step;
    let later = &r.steps[last + 1..];
    assert!(!later.is_empty());
    for s in later {
        assert!(!s.fired && s.value >= s.threshold, "{s:?}");
    }
}

/// An OpenAI chat session alternating user and assistant, message i exactly `sizes[i]` tokens.
fn chat(sizes: &[usize]) -> Vec<u8> {
    use ctxray::tokens::{Counter, Encoding};
    let counter = Counter::new(Encoding::O200kBase);
    let messages: Vec<serde_json::Value> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            let text = replay::filler::summary_of(n, &counter);
            serde_json::json!({"role": role, "content": text})
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({"model": "gpt-4o", "messages": messages})).unwrap()
}

/// A replay keeps a fired plan's compression for its digest and its compaction: what they
/// give is what compressing again gives, with the digest, another text or no text, and when
/// the plan is carried out twice.
#[test]
fn a_kept_compression_serves_as_compressing_again_would() {
    let a = generated(600_000, 5);
    let hermes = presets::find("hermes").unwrap();
    let parsed = ctxray::compaction::parsed::Parsed::new();
    for sets in [
        vec!["config_context_length=100000".to_string()],
        vec![
            "config_context_length=100000".to_string(),
            "compression_count=1".to_string(),
        ],
    ] {
        let plain = PlanInput::new(&a);
        let kept = PlanInput {
            parsed: Some(&parsed),
            ..PlanInput::new(&a)
        };
        let fresh = preset::run(hermes, &plain, &sets).unwrap();
        let plan = preset::run(hermes, &kept, &sets).unwrap();
        assert!(plan.trigger.fired && plan.insertion.is_some(), "{sets:?}");
        let digest = preset::offline_summary(hermes, &kept, &plan);
        assert_eq!(digest, preset::offline_summary(hermes, &plain, &fresh));
        for text in [
            Some(digest.as_str()),
            Some("The user asked for a fix."),
            None,
        ] {
            let quick = hermes.compacted(&kept, &plan, text);
            let made = hermes.compacted(&plain, &fresh, text);
            assert_eq!(quick.history, made.history, "{sets:?} {text:?}");
            let twice = hermes.compacted(&kept, &plan, text);
            assert_eq!(twice.history, made.history, "{sets:?} {text:?}, twice");
        }
    }
}
