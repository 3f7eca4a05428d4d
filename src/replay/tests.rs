//! The quiet triggers against the full plans, step by step: wherever a preset says cheaply
//! that its trigger does not fire, its plan of the same history reports that same trigger —
//! value, threshold, measure, reason and estimator.

use super::check_points;
use super::history::History;
use crate::analysis::Analysis;
use crate::compaction::preset::Preset;
use crate::compaction::presets;
use crate::compaction::quiet::Memo;
use crate::compaction::Settings;

fn demo() -> Analysis {
    crate::testing::demo()
}

/// How many checks the quiet trigger answered, each checked against the plan.
fn quiet_answers(a: &Analysis, p: &dyn Preset, sets: &[&str]) -> usize {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let settings = Settings::resolve(p.name(), p.params(), &sets).unwrap();
    let mut history = History::new(a, true);
    let mut memo = Memo::new();
    let mut fed = 0;
    let mut answered = 0;
    for upto in check_points(&a.session, p.checks_at()) {
        history.append(a, fed, upto);
        fed = upto;
        let quiet = p.quiet_trigger(&history.quiet_input(a), &settings, &mut memo);
        let plan = p.plan(&history.input(a), &settings).unwrap();
        if let Some(t) = quiet {
            assert!(!t.fired, "{} at {upto}", p.name());
            assert_eq!(t, plan.trigger, "{} {sets:?} at {upto}", p.name());
            answered += 1;
        }
    }
    answered
}

#[test]
fn every_quiet_trigger_is_the_plan_s_trigger() {
    let a = demo();
    let cases: &[(&str, &[&str])] = &[
        ("custom", &["trigger_tokens=6500"]),
        ("custom", &["trigger_messages=30"]),
        ("custom", &["trigger_ratio=0.8", "context_window=12000"]),
        ("dimos", &["context_window=10000"]),
        ("claude-code", &["context_window=40000"]),
        ("claude-code", &["autocompact_pct_override=3"]),
        ("codex", &["model_auto_compact_token_limit=9000"]),
        ("hermes", &["config_context_length=30000"]),
        (
            "hermes",
            &[
                "config_context_length=16000",
                "ineffective_compression_count=2",
            ],
        ),
        ("openhands", &[]),
        ("openhands", &["max_size=12"]),
        ("openhands-fixed", &["max_size=30", "max_tokens=4000"]),
        ("agent-framework-truncation", &["max_n=12", "compact_to=6"]),
        (
            "agent-framework-truncation",
            &["max_n=200", "compact_to=100"],
        ),
        (
            "agent-framework-truncation",
            &[
                "max_n=3000",
                "compact_to=1500",
                "tokenizer=CharacterEstimatorTokenizer",
            ],
        ),
        ("agent-framework-token-budget", &["token_budget=4000"]),
        ("agent-framework-token-budget", &[]),
        (
            "agent-framework-context-window",
            &["max_context_window_tokens=12000", "max_output_tokens=1000"],
        ),
        (
            "agent-framework-context-window",
            &["max_output_tokens=4096"],
        ),
        ("pydantic-ai-harness", &["max_messages=40"]),
        ("pydantic-ai-harness", &["max_tokens=9000", "tokenizer=len"]),
        (
            "pydantic-ai-harness-sliding",
            &["max_fraction=0.05", "max_messages=60"],
        ),
    ];
    for (name, sets) in cases {
        let p = presets::find(name).unwrap();
        let answered = quiet_answers(&a, p, sets);
        assert!(
            answered > 0,
            "{name} {sets:?}: the quiet trigger never answered"
        );
    }
}

/// `at` stops the replay at a step and gives the history as the preset checked it there: at a
/// compaction, the history it left and the figures the whole replay records for it.
#[test]
fn a_step_of_the_replay_is_given_as_it_stood() {
    let a = demo();
    let p = crate::compaction::presets::find("custom").unwrap();
    let sets = vec!["trigger_tokens=1500".to_string()];
    let whole = super::replay(&a, p, &sets, &super::Options::default()).unwrap();
    assert!(whole.compactions.len() >= 2, "{}", whole.compactions.len());
    let second = &whole.compactions[1];
    let at = super::at(&a, p, &sets, &super::Options::default(), second.step)
        .unwrap()
        .unwrap();
    let (record, after, summary) = at.compaction.as_ref().unwrap();
    assert_eq!(record.tokens_before, second.tokens_before);
    assert_eq!(record.tokens_after, second.tokens_after);
    assert_eq!(record.input, second.input);
    assert_eq!(at.before.messages.len(), second.messages_before);
    assert_eq!(after.messages.len(), second.messages_after);
    assert!(summary.is_some());
    // A step that does not compact: the history checked there, nothing compacted.
    let quiet = (0..whole.steps.len())
        .find(|s| whole.compactions.iter().all(|c| c.step != *s))
        .unwrap();
    let at = super::at(&a, p, &sets, &super::Options::default(), quiet)
        .unwrap()
        .unwrap();
    assert!(at.compaction.is_none());
    assert!(
        super::at(&a, p, &sets, &super::Options::default(), whole.steps.len())
            .unwrap()
            .is_none()
    );
}

#[test]
fn a_watch_follows_every_check_and_its_flag_stops_the_replay() {
    use super::{replay, Options, Watch};
    use crate::compaction::preset::PlanError;
    use std::sync::Arc;
    let a = demo();
    let p = presets::find("custom").unwrap();
    let sets = vec!["trigger_tokens=2000".to_string()];
    let watch = Arc::new(Watch::default());
    let options = Options {
        watch: Some(Arc::clone(&watch)),
        ..Options::default()
    };
    let r = replay(&a, p, &sets, &options).unwrap();
    assert!(r.compactions.len() > 1, "{}", r.compactions.len());
    let done = watch.progress();
    assert_eq!(done.of, check_points(&a.session, p.checks_at()).len());
    assert_eq!(
        (done.checks, done.compactions),
        (done.of, r.compactions.len())
    );
    // Stopped: the replay ends at its next check point, before it makes any.
    watch.stop();
    assert!(matches!(
        replay(&a, p, &sets, &options),
        Err(PlanError::Stopped)
    ));
    assert_eq!(watch.progress().checks, 0);
    assert_eq!(watch.progress().of, done.of);
}
