//! The replay player (`r`) without a terminal: keys and clock ticks through the pure `update`,
//! a large session's replay arriving from apart, and frames rendered into ratatui's
//! TestBackend on a generated session whose compaction positions are known by construction.

use crate::support;

use std::time::Duration;

use ctxray::analysis::{Analysis, Options};
use ctxray::formats::load_bytes;
use ctxray::replay::Replay;
use ctxray::tokens::Registry;
use ctxray::tui::app::{self, App};
use ctxray::tui::jobs::{settled, step as update};
use ctxray::tui::state::AppState;
use ctxray::tui::theme::Theme;
use ctxray::tui::{views, Effect, Msg};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn analyse(json: &str) -> Analysis {
    let session = load_bytes(json.as_bytes().to_vec(), None, "generated.json", None).unwrap();
    let options = Options {
        window: Some(128_000),
        ..Options::default()
    };
    Analysis::new(session, &Registry::bundled(), &options)
}

/// The custom preset's trigger at 6,500 exact tokens over 1,000-token messages: checked before
/// each assistant message (15 check points for 14 exchanges), it first fires before message #7
/// (record 7, the fourth check point: 7 messages ≈ 7,000 tokens).
const SETS: [&str; 3] = ["trigger_tokens=6500", "keep_last=2", "keep_first=0"];

fn state(pairs: usize, preset: Option<&str>, sets: &[&str]) -> AppState {
    settled(AppState::new(
        analyse(&support::chat_session(pairs, 1000)),
        preset.map(str::to_string),
        sets.iter().map(|s| s.to_string()).collect(),
    ))
}

fn playing() -> AppState {
    let mut s = state(14, Some("custom"), &SETS);
    update(&mut s, Msg::Replay);
    s
}

/// (step shown, playing, speed).
fn at(s: &AppState) -> (usize, bool, u32) {
    let p = s.replay.as_ref().expect("the replay is open");
    (p.step(), p.playing, p.speed)
}

fn replay_of(s: &AppState) -> &Replay {
    s.replay.as_ref().unwrap().replay.as_deref().unwrap()
}

fn tick(s: &mut AppState, ms: u64) {
    update(s, Msg::Tick(Duration::from_millis(ms)));
}

#[test]
fn r_replays_under_the_selected_preset_and_plays_from_the_first_step() {
    let mut s = playing();
    assert_eq!(at(&s), (0, true, 2));
    let r = replay_of(&s);
    assert_eq!(r.preset, "custom");
    assert_eq!(r.steps.len(), 15);
    assert_eq!(r.compactions[0].at_source_index, 7);
    assert_eq!(r.compactions[0].step, 3);
    // The same replay `ctxray replay` makes with these settings.
    let direct = ctxray::replay::replay(
        &s.analysis,
        ctxray::compaction::presets::find("custom").unwrap(),
        &SETS.map(String::from),
        &ctxray::replay::Options::default(),
    )
    .unwrap();
    assert_eq!(r.steps, direct.steps);
    // The clock: 2 steps a second, so 1.2 s is 2.4 steps.
    tick(&mut s, 700);
    tick(&mut s, 500);
    assert_eq!(at(&s).0, 2);
    assert!(ctxray::tui::app::App::inspecting(s).ticks());
}

#[test]
fn space_pauses_and_a_paused_clock_does_not_move() {
    let mut s = playing();
    tick(&mut s, 1_000);
    update(&mut s, Msg::PlayPause);
    assert_eq!(at(&s), (2, false, 2));
    tick(&mut s, 5_000);
    assert_eq!(at(&s).0, 2, "ticks while paused are ignored");
    update(&mut s, Msg::PlayPause);
    assert!(at(&s).1);
    tick(&mut s, 500);
    assert_eq!(at(&s).0, 3);
}

#[test]
fn brackets_step_and_pause_within_the_bounds() {
    let mut s = playing();
    update(&mut s, Msg::Step(1));
    assert_eq!(at(&s), (1, false, 2));
    update(&mut s, Msg::Step(1));
    update(&mut s, Msg::Step(1));
    assert_eq!(at(&s).0, 3);
    update(&mut s, Msg::Step(-1));
    assert_eq!(at(&s).0, 2);
    for _ in 0..5 {
        update(&mut s, Msg::Step(-1));
    }
    assert_eq!(at(&s).0, 0, "no step before the first");
    update(&mut s, Msg::Bottom);
    assert_eq!(at(&s), (14, false, 2));
    update(&mut s, Msg::Step(1));
    assert_eq!(at(&s).0, 14, "no step after the last");
    update(&mut s, Msg::Top);
    assert_eq!(at(&s), (0, false, 2), "Home jumps and keeps the play state");
    // The selection of the list does not move while the replay has the keys.
    update(&mut s, Msg::Down);
    assert_eq!(s.selected, 0);
    assert!(s.notice.as_deref().unwrap().contains("space pause"));
}

#[test]
fn speed_doubles_and_halves_between_one_and_1024_steps_a_second() {
    let mut s = playing();
    update(&mut s, Msg::Speed(1));
    assert_eq!(at(&s).2, 4);
    tick(&mut s, 1_000);
    assert_eq!(at(&s).0, 4);
    update(&mut s, Msg::Speed(-1));
    update(&mut s, Msg::Speed(-1));
    assert_eq!(at(&s).2, 1);
    update(&mut s, Msg::Speed(-1));
    assert_eq!(at(&s).2, 1);
    assert!(s.notice.as_deref().unwrap().contains("as far as it goes"));
    for _ in 0..20 {
        update(&mut s, Msg::Speed(1));
    }
    assert_eq!(at(&s).2, 1024);
}

#[test]
fn the_clock_stops_at_the_last_step_and_space_there_plays_again() {
    let mut s = playing();
    tick(&mut s, 60_000);
    assert_eq!(at(&s), (14, false, 2));
    assert!(!App::inspecting(playing_at_end()).ticks());
    update(&mut s, Msg::PlayPause);
    assert_eq!(at(&s), (0, true, 2));
}

fn playing_at_end() -> AppState {
    let mut s = playing();
    tick(&mut s, 60_000);
    s
}

#[test]
fn esc_q_and_r_leave_the_replay_and_only_then_q_quits() {
    for leave in [Msg::Back, Msg::Replay] {
        let mut s = playing();
        assert!(update(&mut s, leave).is_empty());
        assert!(s.replay.is_none());
    }
    let mut a = App::inspecting(playing());
    assert!(
        app::update(&mut a, Msg::Quit).is_empty(),
        "q leaves the replay"
    );
    assert!(a.inspector().unwrap().replay.is_none());
    assert_eq!(app::update(&mut a, Msg::Quit), vec![Effect::Quit]);
}

#[test]
fn without_a_preset_or_when_the_preset_refuses_the_footer_says_why() {
    let mut s = state(14, None, &[]);
    update(&mut s, Msg::Replay);
    assert!(s.replay.is_none());
    assert!(s.notice.as_deref().unwrap().contains("no preset"));
    let mut s = state(14, Some("custom"), &["no_such_setting=1"]);
    update(&mut s, Msg::Replay);
    assert!(s.replay.is_none());
    let notice = s.notice.clone().unwrap();
    assert!(
        notice.starts_with("custom cannot replay this session:") && notice.contains("no_such"),
        "{notice}"
    );
    let screen = frame(&s, 120, 30);
    assert!(
        screen.contains("custom cannot replay this session"),
        "{screen}"
    );
    // Replay keys with no replay open say how to start one.
    update(&mut s, Msg::PlayPause);
    assert!(s.notice.as_deref().unwrap().contains("r starts one"));
}

#[test]
fn the_replay_is_run_apart_and_only_the_awaited_result_is_taken() {
    use ctxray::tui::jobs::Work;
    use ctxray::tui::update::update;
    let mut s = state(160, Some("custom"), &["trigger_tokens=20000"]);
    let effects = update(&mut s, Msg::Replay);
    let key = (
        "custom".to_string(),
        vec!["trigger_tokens=20000".to_string()],
        320,
    );
    assert!(
        matches!(effects.as_slice(), [Effect::Run(job)] if job.work == Work::Replay(key.clone())),
        "asks the runtime for the replay: {effects:?}"
    );
    assert!(!App::inspecting(state(1, None, &[])).ticks());
    assert!(frame(&s, 120, 30).contains("replaying custom over 320 messages apart"));
    // Keys while it is computed do nothing but say so.
    update(&mut s, Msg::Step(1));
    assert!(s.notice.as_deref().unwrap().contains("still replaying"));
    let result = ctxray::tui::replay::run(&s.analysis, &key, None);
    let steps = result.as_ref().unwrap().steps.len();
    let other = ("custom".to_string(), Vec::new(), 320);
    update(&mut s, Msg::Replayed(other, Box::new(result.clone())));
    assert!(s.replay.as_ref().unwrap().replay.is_none(), "another key");
    update(&mut s, Msg::Replayed(key.clone(), Box::new(result)));
    assert_eq!(
        steps, 161,
        "before each assistant message and the next request"
    );
    assert_eq!(at(&s), (0, true, 16), "161 steps in about 20 s");
    assert_eq!(replay_of(&s).steps.len(), steps);
    // A failure closes the replay and says why.
    let mut s = state(160, Some("custom"), &["trigger_tokens=20000"]);
    update(&mut s, Msg::Replay);
    update(&mut s, Msg::Replayed(key, Box::new(Err("boom".into()))));
    assert!(s.replay.is_none());
    assert_eq!(
        s.notice.as_deref(),
        Some("custom cannot replay this session: boom")
    );
}

#[test]
fn a_replay_computed_apart_shows_how_far_it_has_come_and_esc_stops_it() {
    use ctxray::replay::{Progress, Watch};
    use ctxray::tui::jobs::{self, Kind, Work};
    use ctxray::tui::update::update;
    let mut s = state(160, Some("custom"), &["trigger_tokens=20000"]);
    update(&mut s, Msg::Replay);
    let key = s.replay.as_ref().unwrap().key.clone();
    let progress = Progress {
        checks: 1_234,
        of: 12_000,
        compactions: 7,
    };
    // Progress of another replay is not shown; the awaited one's is.
    let other = ("custom".to_string(), Vec::new(), 320);
    assert!(update(&mut s, Msg::ReplayProgress(other, progress)).is_empty());
    assert!(!frame(&s, 120, 30).contains("check 1,234"));
    assert!(update(&mut s, Msg::ReplayProgress(key.clone(), progress)).is_empty());
    let screen = frame(&s, 120, 30);
    assert!(
        screen.contains("check 1,234 of 12,000 · 7 compactions so far"),
        "{screen}"
    );
    // Leaving before it comes back stops it; leaving a replay that came back stops nothing.
    let effects = update(&mut s, Msg::Back);
    assert!(s.replay.is_none());
    assert!(
        matches!(effects.as_slice(), [Effect::Cancel(Kind::Replay)]),
        "{effects:?}"
    );
    let mut s = playing();
    assert!(update(&mut s, Msg::Back).is_empty());
    // The job itself: run with its cancel flag set, the replay stops at its first check
    // point instead of running to the end (its result is not sent).
    let s = state(160, Some("custom"), &["trigger_tokens=20000"]);
    let cancel = jobs::Cancel::default();
    cancel.cancel();
    let watch = Watch::stopped_by(cancel.flag());
    assert!(watch.is_stopped());
    let job = jobs::Job {
        analysis: s.analysis.clone(),
        work: Work::Replay(key.clone()),
    };
    let mut sent = Vec::new();
    jobs::run(job, &cancel, &mut |m| sent.push(m));
    assert!(sent.is_empty(), "a cancelled job sends nothing");
    let stopped = ctxray::tui::replay::run(&s.analysis, &key, Some(std::sync::Arc::new(watch)));
    assert_eq!(stopped.unwrap_err(), "stopped before the end");
}

#[test]
fn a_tick_keeps_the_footer_notice() {
    let mut s = playing();
    update(&mut s, Msg::Speed(-1));
    update(&mut s, Msg::Speed(-1));
    assert!(s.notice.is_some());
    tick(&mut s, 100);
    assert!(s.notice.is_some());
}

fn frame(state: &AppState, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| {
            views::render(f, state, &Theme::dark());
        })
        .unwrap();
    let buf = terminal.backend().buffer().clone();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `7.0k` as the chart's labels write token counts between 1,000 and 9,999.
fn short(n: u64) -> String {
    assert!((1_000..10_000).contains(&n), "{n}");
    format!("{:.1}k", n as f64 / 1e3)
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    match s.len() {
        4..=6 => format!("{},{}", &s[..s.len() - 3], &s[s.len() - 3..]),
        _ => s,
    }
}

#[test]
fn the_screen_marks_a_compaction_where_it_fired_and_reads_out_the_step() {
    let mut s = playing();
    let r = replay_of(&s).clone();
    let first = &r.compactions[0];
    let second = &r.compactions[1];
    let label = format!(
        "{}→{}",
        short(first.tokens_before),
        short(first.tokens_after)
    );
    // One step before the compaction: no mark yet.
    for _ in 0..first.step - 1 {
        update(&mut s, Msg::Step(1));
    }
    // Any terminal size draws (what does not fit is left out).
    for (w, h) in [(20, 5), (40, 10), (80, 8), (1, 1)] {
        frame(&s, w, h);
    }
    let before = frame(&s, 160, 45);
    assert!(before.contains("step 3/15 · record #5 · "), "{before}");
    assert!(before.contains("0 compactions so far"), "{before}");
    assert!(!before.contains(&label), "{before}");
    assert!(!before.contains("⇣ compaction"), "{before}");

    update(&mut s, Msg::Step(1));
    let screen = frame(&s, 160, 45);
    let step = &r.steps[first.step];
    assert!(
        screen.contains(&format!(
            "step 4/15 · record #7 · {} tokens · 1 compaction so far",
            thousands(step.tokens)
        )),
        "{screen}"
    );
    assert!(screen.contains("‖ paused · 2 steps/s"), "{screen}");
    assert!(
        screen.contains(&format!(
            "compacted here: {} → {}",
            thousands(first.tokens_before),
            thousands(first.tokens_after)
        )),
        "{screen}"
    );
    assert!(
        screen.contains(&format!(
            "⇣ compaction 1 · step 4 · record #7 · {} → {} tokens · {} summarized",
            thousands(first.tokens_before),
            thousands(first.tokens_after),
            first.summarized
        )),
        "{screen}"
    );
    // The label sits just right of its marker, a quarter of the way along the plot (step 3
    // of 0..14), and the next compaction is not drawn yet.
    let row = screen.lines().find(|l| l.contains(&label)).unwrap();
    let col = row[..row.find(&label).unwrap()].chars().count();
    let plot = 160.0 - 5.0;
    let expected = 5.0 + plot * 3.0 / 14.0;
    assert!(
        (col as f64 - expected).abs() <= 2.0,
        "label at column {col}, marker expected near {expected}\n{screen}"
    );
    let next = format!(
        "{}→{}",
        short(second.tokens_before),
        short(second.tokens_after)
    );
    assert!(
        next == label || !screen.contains(&next),
        "a later compaction shown early\n{screen}"
    );
    assert!(!screen.contains("⇣ compaction 2"), "{screen}");
    // The gauge reads the window and the trigger of this step.
    assert!(
        screen.contains(&format!("{} / 128,000 (", thousands(step.tokens))),
        "{screen}"
    );
    assert!(
        screen.contains(&format!("· trigger {} / 6,500", thousands(step.value))),
        "{screen}"
    );
}

#[test]
fn r_waits_while_a_network_summary_is_being_written() {
    let mut s = state(14, Some("custom"), &SETS);
    let plan = s.plan.clone().expect("custom plans this session");
    s.summarizing = Some(ctxray::tui::state::Summarizing {
        id: 0,
        label: "openai:gpt-4o-mini".into(),
        provider: "openai",
        plan,
        messages: 1,
        tokens: 1,
        masked: 0,
        text: String::new(),
    });
    update(&mut s, Msg::Replay);
    assert!(s.replay.is_none());
    assert!(s.notice.as_deref().unwrap().contains("still writing"));
}
