//! The timeline on real sessions: the exact series against the analysis' own counts, the file's
//! compactions resetting it, and the what-if fire point against `plan` on the session cut at
//! each request (parsed again from the truncated file, not sliced in memory).

use std::path::{Path, PathBuf};

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset;
use ctxray::formats::{load_bytes, load_path};
use ctxray::timeline::{request_points, what_if, Timeline};
use ctxray::tokens::Registry;

const DEMO: &str = "fixtures/samples/claude-code-demo.jsonl";
const DEMO_SETS: &[&str] = &["context_window=6000"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn analyse(path: &Path) -> Analysis {
    let session = load_path(path, None).unwrap();
    Analysis::new(session, &Registry::bundled(), &Options::default())
}

fn sets(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The session as the file stood when the request producing message `upto` was sent: every
/// line before that message's first record (the whole file for the next request).
fn analyse_file_prefix(path: &Path, a: &Analysis, upto: usize) -> Analysis {
    let text = std::fs::read_to_string(path).unwrap();
    let keep = a
        .session
        .messages
        .get(upto)
        .map_or(usize::MAX, |m| m.source_index);
    let lines: Vec<&str> = text.lines().take(keep).collect();
    let bytes = format!("{}\n", lines.join("\n")).into_bytes();
    let session = load_bytes(bytes, None, "prefix", Some(a.session.format)).unwrap();
    Analysis::new(session, &Registry::bundled(), &Options::default())
}

fn plan_fires(a: &Analysis, name: &str, list: &[&str]) -> (bool, u64, u64) {
    let p = preset::find(name).unwrap();
    let plan = preset::run(p, &preset::PlanInput::new(a), &sets(list)).unwrap();
    (
        plan.trigger.fired,
        plan.trigger.value,
        plan.trigger.threshold,
    )
}

#[test]
fn demo_exact_series_is_the_history_before_each_request() {
    let a = analyse(&root().join(DEMO));
    let t = Timeline::build(&a, None);
    let requests = a
        .session
        .messages
        .iter()
        .filter(|m| m.role == ctxray::session::Role::Assistant)
        .count();
    assert_eq!(
        t.points.len(),
        requests + 1,
        "a point per request, then the end"
    );
    let end = t.points.last().unwrap();
    assert_eq!((end.upto, end.message), (a.session.messages.len(), None));
    assert_eq!(end.whole, a.total_tokens() as u64);
    assert_eq!(
        end.exact, 5_077,
        "no compaction in the file: the whole history"
    );
    for p in &t.points {
        let sum: usize = a.counts.messages[..p.upto].iter().map(|c| c.total()).sum();
        assert_eq!((p.exact, p.whole), (sum as u64, sum as u64), "#{}", p.upto);
        let reported = p
            .message
            .and_then(|i| a.session.messages[i].usage.as_ref())
            .and_then(|u| u.context_input());
        assert_eq!(p.reported, reported);
    }
    assert!(t.points.iter().any(|p| p.reported.is_some()));
    assert!(t.points.windows(2).all(|w| w[0].exact <= w[1].exact));
    assert_eq!(t.peak().unwrap().upto, 23);
    assert_eq!(t.window, a.window);
}

#[test]
fn claude_code_boundary_and_summary_reset_the_exact_line_but_microcompact_does_not() {
    let a = analyse(&root().join("fixtures/claude-code/compaction.jsonl"));
    let t = Timeline::build(&a, None);
    let kinds: Vec<(&str, usize, bool)> = t
        .marks
        .iter()
        .map(|k| (k.kind.as_str(), k.at, k.resets))
        .collect();
    assert_eq!(
        kinds,
        [
            ("microcompact_boundary", 5, false),
            ("compact_boundary", 6, true),
            ("compact_summary", 10, true)
        ]
    );
    assert_eq!(t.marks[1].pre_tokens, Some(171_873));
    assert_eq!(t.marks[1].post_tokens, Some(9_310));
    let c = |i: usize| a.counts.messages[i].total() as u64;
    let at = |upto: usize| t.points.iter().find(|p| p.upto == upto).unwrap();
    let before: u64 = (0..5).map(c).sum();
    assert_eq!(at(5).exact, before, "microcompact keeps the history");
    assert_eq!(
        at(7).exact,
        c(6),
        "after the boundary: the summary message only"
    );
    assert_eq!(at(9).exact, c(6) + c(7) + c(8));
    assert_eq!(at(11).exact, c(10), "the later summary starts afresh");
    assert!(at(7).exact < at(5).exact, "a sawtooth");
    assert_eq!(at(11).whole, (0..11).map(c).sum::<u64>());
    assert_eq!(t.points.last().unwrap().whole, a.total_tokens() as u64);
}

#[test]
fn codex_compacted_keeps_instructions_and_counts_the_summary_it_holds() {
    let a = analyse(&root().join("fixtures/codex/local-compaction.jsonl"));
    let t = Timeline::build(&a, None);
    assert_eq!(t.marks.len(), 1);
    let mark = &a.session.marks[0];
    assert_eq!((mark.kind.as_str(), mark.before_message), ("compacted", 11));
    let summary = a.counter.count(mark.summary.as_deref().unwrap()) as u64;
    assert!(summary > 0);
    let c = |i: usize| a.counts.messages[i].total() as u64;
    let after = t.points.iter().find(|p| p.upto == 13).unwrap();
    assert_eq!(after.exact, c(0) + c(1) + summary + c(11) + c(12));
    let before = t.points.iter().find(|p| p.upto == 10).unwrap();
    assert_eq!(before.exact, (0..10).map(c).sum::<u64>());
    assert!(after.reported.unwrap() < before.reported.unwrap());
}

#[test]
fn demo_dimos_first_fires_where_plan_on_the_cut_file_starts_firing() {
    let path = root().join(DEMO);
    let a = analyse(&path);
    let dimos = preset::find("dimos").unwrap();
    let w = what_if(&a, dimos, &sets(DEMO_SETS)).unwrap();
    assert!(w.exhaustive, "ten request points are all planned");
    assert_eq!(w.evaluated, w.points);
    assert_eq!(w.fires.len(), 1);
    let fire = w.first().unwrap();
    assert_eq!(fire.measure, "tokens");
    assert_eq!(fire.threshold, 4_800);

    let points = request_points(&a.session);
    let k = points.iter().position(|&p| p == fire.upto).unwrap();
    assert!(k > 0, "the first request does not fire");
    let (fired, value, threshold) = plan_fires(
        &analyse_file_prefix(&path, &a, fire.upto),
        "dimos",
        DEMO_SETS,
    );
    assert!(fired, "plan on the file cut at #{} fires", fire.upto);
    assert_eq!((value, threshold), (fire.value, fire.threshold));
    assert!(value > threshold);
    for &earlier in &points[..k] {
        let (fired, value, _) =
            plan_fires(&analyse_file_prefix(&path, &a, earlier), "dimos", DEMO_SETS);
        assert!(!fired, "the file cut at #{earlier} does not fire ({value})");
    }
    let whole = plan_fires(&a, "dimos", DEMO_SETS);
    assert!(
        whole.0 && whole.1 >= fire.value,
        "the whole session fires too"
    );
}

#[test]
fn a_preset_that_never_fires_has_no_fire_point() {
    let a = analyse(&root().join(DEMO));
    let dimos = preset::find("dimos").unwrap();
    let w = what_if(&a, dimos, &sets(&["context_window=1000000"])).unwrap();
    assert!(w.fires.is_empty());
    assert_eq!(w.evaluated, w.points);
}

fn samples() -> PathBuf {
    root().join("../shared/samples")
}

#[test]
fn long_codex_session_is_sampled_and_the_fire_point_is_a_real_transition() {
    let path = samples()
        .join("codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl");
    let a = analyse(&path);
    let t = Timeline::build(&a, None);
    let mark = t.marks.iter().find(|k| k.kind == "compacted").unwrap();
    let last_before = t.points.iter().rfind(|p| p.upto < mark.at).unwrap();
    let first_after = t.points.iter().find(|p| p.upto > mark.at).unwrap();
    assert!(
        first_after.exact < last_before.exact,
        "the compaction drops the exact line ({} → {})",
        last_before.exact,
        first_after.exact
    );
    assert!(first_after.reported.unwrap() < last_before.reported.unwrap());

    let dimos = preset::find("dimos").unwrap();
    let list = ["context_window=20000"];
    let w = what_if(&a, dimos, &sets(&list)).unwrap();
    assert!(!w.exhaustive && w.points > 64);
    assert!(
        w.evaluated < w.points / 2,
        "{} of {} planned",
        w.evaluated,
        w.points
    );
    let fire = w.first().expect("16,000 estimated tokens are reached");
    let points = request_points(&a.session);
    let k = points.iter().position(|&p| p == fire.upto).unwrap();
    assert!(plan_fires(&analyse_file_prefix(&path, &a, fire.upto), "dimos", &list).0);
    assert!(
        !plan_fires(
            &analyse_file_prefix(&path, &a, points[k - 1]),
            "dimos",
            &list
        )
        .0
    );
}
