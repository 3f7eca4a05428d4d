//! The timeline on real sessions: the exact series against the analysis' own counts, the file's
//! compactions resetting it, and the what-if fire point against `plan` on the session cut at
//! each request (parsed again from the truncated file, not sliced in memory).

use ctxray::compaction::presets;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset;
use ctxray::formats::{load_bytes, load_path};
use ctxray::session::{Format, Session};
use ctxray::timeline::{request_points, what_if, Timeline, WhatIfStatus};
use ctxray::tokens::Registry;
use ctxray::tui::jobs::{settled, step as update};
use ctxray::tui::state::{AppState, DetailMode};
use ctxray::tui::theme::Theme;
use ctxray::tui::{keymap, views, Msg};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

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
    let p = presets::find(name).unwrap();
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
    let dimos = presets::find("dimos").unwrap();
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
    let dimos = presets::find("dimos").unwrap();
    let w = what_if(&a, dimos, &sets(&["context_window=1000000"])).unwrap();
    assert!(w.fires.is_empty());
    assert_eq!(w.evaluated, w.points);
}

#[test]
fn the_what_if_search_stops_before_its_next_plan_when_told() {
    let a = analyse(&root().join(DEMO));
    let dimos = presets::find("dimos").unwrap();
    let asked = std::cell::Cell::new(0);
    let stopped = ctxray::timeline::what_if_until(&a, dimos, &sets(DEMO_SETS), &|| {
        asked.set(asked.get() + 1);
        asked.get() >= 4
    });
    assert_eq!(
        stopped.map(|w| w.evaluated).map_err(|e| e.to_string()),
        Err("stopped before the end".to_string())
    );
    assert_eq!(asked.get(), 4, "asked before each plan, none after");
    let whole = ctxray::timeline::what_if_until(&a, dimos, &sets(DEMO_SETS), &|| false).unwrap();
    assert_eq!(whole, what_if(&a, dimos, &sets(DEMO_SETS)).unwrap());
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

    let dimos = presets::find("dimos").unwrap();
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

fn inspector(path: &Path, preset: Option<&str>, list: &[&str]) -> AppState {
    settled(AppState::new(
        analyse(path),
        preset.map(str::to_string),
        sets(list),
    ))
}

fn screen(state: &AppState, w: u16, h: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| {
            views::render(f, state, &Theme::dark());
        })
        .unwrap();
    let buf = terminal.backend().buffer().clone();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect()
}

fn is_braille(c: char) -> bool {
    ('\u{2801}'..='\u{28ff}').contains(&c)
}

#[test]
fn t_shows_the_timeline_and_esc_goes_back_to_the_message() {
    let mut s = inspector(&root().join(DEMO), None, &[]);
    let t = KeyEvent::new(KeyCode::Char('t'), KeyModifiers::NONE);
    let msg = keymap::map_key(t, false).unwrap();
    assert!(matches!(msg, Msg::ShowTimeline));
    update(&mut s, msg);
    assert_eq!(s.detail_mode, DetailMode::Timeline);
    assert!(keymap::bindings().any(|b| b.keys == "t"));
    update(&mut s, Msg::Back);
    assert_eq!(s.detail_mode, DetailMode::Message);
}

#[test]
fn demo_timeline_draws_legend_trigger_and_the_what_if_marker() {
    let mut s = inspector(&root().join(DEMO), Some("dimos"), DEMO_SETS);
    update(&mut s, Msg::ShowTimeline);
    for _ in 0..7 {
        update(&mut s, Msg::Down);
    }
    // Below 100 columns the detail pane spans the width, under the list.
    let rows = screen(&s, 99, 70);
    let all = rows.join("\n");
    for needle in [
        " timeline ",
        "peak 5,077 at #23 · no compaction in the file · dimos would first fire at #20 (5,054 ≥ 4,800)",
        "━ exact",
        "━ reported",
        "─ window 6,000",
        "─ dimos trigger 4,800 (its estimate)",
        "what-if  │ selected",
        "▲#7",
        "#23",
    ] {
        assert!(all.contains(needle), "{needle:?} missing:\n{all}");
    }
    // The trigger's value labels its line in the y gutter, and the line runs across the plot.
    let trigger_row = rows.iter().find(|r| r.starts_with("4.8k ")).expect(&all);
    let line = trigger_row.split("4.8k ").nth(1).unwrap();
    assert!(
        line.chars().filter(|&c| is_braille(c)).count() > 60,
        "{trigger_row}"
    );
    // The what-if marker: a vertical Braille line just left of its label, down the plot.
    let label_row = rows
        .iter()
        .position(|r| r.contains("dimos fires"))
        .expect(&all);
    let head = rows[label_row].split("dimos fires").next().unwrap();
    let col = head.chars().count() - 1;
    let marked = rows
        .iter()
        .filter(|r| r.chars().nth(col).is_some_and(is_braille))
        .count();
    assert!(marked > 20, "a vertical marker at column {col}:\n{all}");
}

#[test]
fn file_compactions_are_labelled_markers_and_the_exact_line_drops() {
    let mut s = inspector(
        &root().join("fixtures/claude-code/compaction.jsonl"),
        None,
        &[],
    );
    update(&mut s, Msg::ShowTimeline);
    let all = screen(&s, 200, 50).join("\n");
    for needle in [
        "3 compactions in the file",
        "what-if: no preset (p picks one)",
        "│ file compaction",
        "microcompact_boundary",
        "compact_boundary",
        "compact_summary",
    ] {
        assert!(all.contains(needle), "{needle:?} missing:\n{all}");
    }
}

#[test]
fn tiny_panes_empty_sessions_and_sessions_without_usage_do_not_panic() {
    let empty = Session::new(Format::OPENAI_CHAT, "empty", Arc::new(Vec::new()));
    let empty = Analysis::new(empty, &Registry::bundled(), &Options::default());
    let mut states = vec![
        settled(AppState::new(empty, Some("dimos".into()), Vec::new())),
        inspector(
            &root().join("fixtures/openai-chat/legacy-functions.jsonl"),
            Some("openhands"),
            &[],
        ),
        inspector(&root().join(DEMO), Some("pydantic-ai-harness"), &[]),
        inspector(&root().join(DEMO), Some("dimos"), DEMO_SETS),
    ];
    for s in &mut states {
        update(s, Msg::ShowTimeline);
        for (w, h) in [(1, 1), (8, 4), (20, 7), (40, 12), (80, 24), (200, 60)] {
            screen(s, w, h);
        }
    }
    let empty = screen(&states[0], 80, 30).join("\n");
    assert!(empty.contains("no messages"), "{empty}");
    let failed = screen(&states[2], 200, 40).join("\n");
    assert!(failed.contains("what-if: preset"), "{failed}");
}

#[test]
fn the_what_if_is_searched_apart_and_drawn_when_it_comes() {
    let demo = analyse(&root().join(DEMO)).session;
    let mut big = Session::new(demo.format, "demo×220", demo.buffer.clone());
    for _ in 0..220 {
        for m in &demo.messages {
            big.push(m.clone());
        }
    }
    let a = Analysis::new(big, &Registry::bundled(), &Options::default());
    let mut s = settled(AppState::new(a, Some("dimos".into()), sets(DEMO_SETS)));
    assert_eq!(s.timeline.what_if, WhatIfStatus::NotComputed);
    assert_eq!(s.timeline.points.len(), 220 * 9 + 1);
    let effects = ctxray::tui::update::update(&mut s, Msg::ShowTimeline);
    let all = screen(&s, 120, 40).join("\n");
    assert!(all.contains("what-if: computing apart"), "{all}");
    // Once the search the timeline asked for comes back, it is drawn.
    ctxray::tui::jobs::settle(&mut s, effects);
    assert!(matches!(s.timeline.what_if, WhatIfStatus::Done(_)));
    let all = screen(&s, 120, 40).join("\n");
    assert!(all.contains("dimos would first fire at #20"), "{all}");
}
