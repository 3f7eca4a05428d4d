//! The inspector without a terminal: `update` as a pure function of messages, and whole frames
//! rendered into ratatui's TestBackend.

use ctxray::analysis::{Analysis, Options};
use ctxray::formats::load_path;
use ctxray::tokens::Registry;
use ctxray::tui::state::{AppState, Fate, Focus};
use ctxray::tui::theme::Theme;
use ctxray::tui::update::update;
use ctxray::tui::{views, Effect, Msg};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn demo(preset: Option<&str>, sets: &[&str]) -> AppState {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/samples/claude-code-demo.jsonl");
    let session = load_path(&path, None).unwrap();
    let analysis = Analysis::new(session, &Registry::bundled(), &Options::default());
    AppState::new(
        analysis,
        preset.map(str::to_string),
        sets.iter().map(|s| s.to_string()).collect(),
    )
}

fn screen(state: &AppState, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| {
            views::render(f, state, &Theme::dark());
        })
        .unwrap();
    let buf = terminal.backend().buffer().clone();
    (0..h)
        .map(|y| {
            (0..w)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn moving_clamps_at_both_ends_and_pages_by_the_viewport() {
    let mut s = demo(None, &[]);
    assert_eq!(s.len(), 23);
    update(&mut s, Msg::Viewport(10));
    update(&mut s, Msg::Up);
    assert_eq!(s.selected, 0);
    update(&mut s, Msg::PageDown);
    assert_eq!(s.selected, 9);
    update(&mut s, Msg::PageDown);
    update(&mut s, Msg::PageDown);
    assert_eq!(s.selected, 22);
    assert_eq!(s.offset, 13, "the selection stays on screen");
    update(&mut s, Msg::Top);
    assert_eq!((s.selected, s.offset), (0, 0));
    update(&mut s, Msg::Bottom);
    assert_eq!(s.selected, 22);
}

#[test]
fn focus_help_and_quit() {
    let mut s = demo(None, &[]);
    update(&mut s, Msg::FocusNext);
    assert_eq!(s.focus, Focus::Detail);
    update(&mut s, Msg::Down);
    assert_eq!(
        (s.selected, s.detail_scroll),
        (0, 1),
        "j scrolls the detail when it has focus"
    );
    assert!(update(&mut s, Msg::Back).is_empty());
    assert_eq!(s.focus, Focus::List);
    update(&mut s, Msg::ToggleHelp);
    assert!(s.show_help);
    assert!(
        update(&mut s, Msg::Back).is_empty(),
        "Esc closes help first"
    );
    assert!(!s.show_help);
    assert_eq!(update(&mut s, Msg::Quit), vec![Effect::Quit]);
}

#[test]
fn the_preset_key_cycles_and_the_split_follows() {
    let mut s = demo(None, &[]);
    assert!(s.plan.is_none());
    update(&mut s, Msg::NextPreset);
    assert!(s.preset.is_some());
    assert!(s.plan.is_some() || s.plan_error.is_some());
    let mut d = demo(Some("dimos"), &["context_window=6000"]);
    let plan = d.plan.as_ref().unwrap();
    assert!(plan.trigger.fired);
    assert_eq!(d.fate(0), Fate::Summarized);
    assert_eq!(d.fate(22), Fate::Kept);
    assert_eq!(d.cut_before(), Some(16));
    update(&mut d, Msg::Bottom);
    assert_eq!(d.fate(d.selected), Fate::Kept);
}

#[test]
fn a_frame_shows_the_gauge_the_list_the_cut_and_the_detail() {
    let s = demo(Some("dimos"), &["context_window=6000"]);
    let text = screen(&s, 150, 40);
    assert!(
        text.contains("claude-code · claude-sonnet-4-20250514"),
        "{text}"
    );
    assert!(text.contains("5,077 / 200,000 (2.5%)"), "{text}");
    assert!(
        text.contains("dimos: 5,956 tokens by its estimator vs threshold 4,800"),
        "{text}"
    );
    assert!(
        text.contains("──── cut: summarized above · kept below ────"),
        "{text}"
    );
    assert!(text.contains("2┌ assistant"), "{text}");
    assert!(text.contains("4└ tool"), "{text}");
    assert!(text.contains("#0 user"), "{text}");
    assert!(
        text.contains("dimos fires: 0 pinned · 16 summarized · 7 kept"),
        "{text}"
    );
}

#[test]
fn help_lists_the_live_keymap_and_small_terminals_do_not_panic() {
    let mut s = demo(None, &[]);
    update(&mut s, Msg::ToggleHelp);
    let text = screen(&s, 100, 30);
    for b in ctxray::tui::keymap::bindings() {
        assert!(text.contains(b.help), "help lacks {}", b.help);
    }
    for (w, h) in [(20, 8), (60, 12), (1, 1)] {
        let _ = screen(&s, w, h);
    }
}

#[test]
fn summarizer_and_diff_views_show_the_plan() {
    let mut s = demo(Some("dimos"), &["context_window=6000"]);
    update(&mut s, Msg::ShowSummarizer);
    let text = screen(&s, 150, 40);
    assert!(
        text.contains("summarizer request of dimos (1 message(s))"),
        "{text}"
    );
    assert!(text.contains("▸ user ·"), "{text}");
    assert!(text.contains("Summarise the following portion"), "{text}");
    update(&mut s, Msg::ShowDiff);
    let text = screen(&s, 150, 120);
    assert!(text.contains("16 summarized ·"), "{text}");
    assert!(text.contains("evidence survival"), "{text}");
    assert!(text.contains("tool-arguments-dropped"), "{text}");
    // Esc goes back to the message before it would quit.
    assert!(update(&mut s, Msg::Back).is_empty());
    assert_eq!(s.detail_mode, ctxray::tui::state::DetailMode::Message);
    let none = demo(None, &[]);
    let mut none = none;
    update(&mut none, Msg::ShowSummarizer);
    assert!(screen(&none, 120, 30).contains("no preset: p picks one"));
}

fn analysis_of(bytes: &[u8]) -> Analysis {
    let session = ctxray::formats::load_bytes(bytes.to_vec(), None, "live.jsonl", None).unwrap();
    Analysis::new(session, &Registry::bundled(), &Options::default())
}

#[test]
fn a_followed_session_scrolls_along_at_the_bottom_and_counts_unseen_elsewhere() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/samples/claude-code-demo.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let part = |n: usize| lines[..n].join("\n").into_bytes();
    let mut s = AppState::new(analysis_of(&part(12)), None, Vec::new());
    s.following = true;
    let first = s.len();
    update(&mut s, Msg::Bottom);
    update(
        &mut s,
        Msg::SessionUpdated(Box::new(analysis_of(&part(40)))),
    );
    assert!(s.len() > first);
    assert_eq!(s.selected, s.len() - 1, "at the bottom, the view follows");
    assert_eq!(s.unseen, 0);
    update(&mut s, Msg::Top);
    let before = s.len();
    update(
        &mut s,
        Msg::SessionUpdated(Box::new(analysis_of(text.as_bytes()))),
    );
    assert_eq!(s.selected, 0, "away from the bottom, the selection stays");
    assert_eq!(s.unseen, s.len() - before);
    assert!(screen(&s, 150, 40).contains(&format!("● {} new (G)", s.unseen)));
    update(&mut s, Msg::Bottom);
    assert_eq!(s.unseen, 0);
}
