//! Whole frames of every inspector view on real sessions, kept as text snapshots (insta): a
//! change to any view shows up as a reviewed diff of the screen, not as a silent drift.

use ctxray::analysis::{Analysis, Options};
use ctxray::formats::load_path;
use ctxray::tokens::Registry;
use ctxray::tui::jobs::{settled, step as update};
use ctxray::tui::msg::{Edit, PromptKind};
use ctxray::tui::state::AppState;
use ctxray::tui::theme::Theme;
use ctxray::tui::{views, Msg};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// A session loaded by a path relative to the crate, so the header is the same on every machine.
fn open(path: &str, preset: Option<&str>, sets: &[&str]) -> AppState {
    let session = load_path(std::path::Path::new(path), None).unwrap();
    let analysis = Analysis::new(session, &Registry::bundled(), &Options::default());
    let sets = sets.iter().map(|s| s.to_string()).collect();
    let mut state = settled(AppState::new(analysis, preset.map(str::to_string), sets));
    // What the runtime does after the first frame: tell the state its real page height.
    let _ = frame(&mut state, 120, 32);
    state
}

fn frame(state: &mut AppState, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut layout = None;
    terminal
        .draw(|f| layout = Some(views::render(f, state, &Theme::dark())))
        .unwrap();
    update(state, Msg::Frame(layout.unwrap()));
    let buf = terminal.backend().buffer().clone();
    (0..h)
        .map(|y| {
            let row: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
            row.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn demo() -> AppState {
    open(
        "fixtures/samples/claude-code-demo.jsonl",
        Some("dimos"),
        &["context_window=6000"],
    )
}

#[test]
fn message_view_with_the_cut() {
    let mut s = demo();
    for _ in 0..7 {
        update(&mut s, Msg::Down);
    }
    insta::assert_snapshot!(frame(&mut s, 120, 32));
}

#[test]
fn summarizer_view() {
    let mut s = demo();
    update(&mut s, Msg::ShowSummarizer);
    insta::assert_snapshot!(frame(&mut s, 120, 32));
}

#[test]
fn diff_view() {
    let mut s = demo();
    update(&mut s, Msg::ShowDiff);
    insta::assert_snapshot!(frame(&mut s, 120, 40));
}

#[test]
fn help_overlay() {
    let mut s = demo();
    update(&mut s, Msg::ToggleHelp);
    insta::assert_snapshot!(frame(&mut s, 120, 36));
}

#[test]
fn subagent_chooser_and_a_subagent() {
    let mut s = demo();
    update(&mut s, Msg::Subagents);
    let chooser = frame(&mut s, 120, 32);
    update(&mut s, Msg::ShowMessage);
    let child = frame(&mut s, 120, 32);
    insta::assert_snapshot!(format!("{chooser}\n\n{child}"));
}

#[test]
fn search_and_command_prompts() {
    let mut s = demo();
    update(&mut s, Msg::Prompt(PromptKind::Search));
    for c in "Task".chars() {
        update(&mut s, Msg::PromptEdit(Edit::Char(c)));
    }
    let typing = frame(&mut s, 120, 32);
    update(&mut s, Msg::PromptEdit(Edit::Submit));
    let found = frame(&mut s, 120, 32);
    insta::assert_snapshot!(format!("{typing}\n\n{found}"));
}

#[test]
fn a_codex_session_with_its_compaction_marks() {
    let mut s = open(
        "fixtures/codex/local-compaction.jsonl",
        Some("codex"),
        &["context_window=2000"],
    );
    insta::assert_snapshot!(frame(&mut s, 120, 32));
}

#[test]
fn narrow_terminal_stacks_the_panes() {
    let mut s = demo();
    insta::assert_snapshot!(frame(&mut s, 80, 30));
}

#[test]
fn compaction_result() {
    let mut s = open(
        "fixtures/samples/claude-code-demo.jsonl",
        Some("custom"),
        &["trigger_tokens=1000", "keep_last=6"],
    );
    update(&mut s, Msg::Compact);
    insta::assert_snapshot!(frame(&mut s, 120, 40));
}

#[test]
fn timeline_view() {
    let mut s = demo();
    update(&mut s, Msg::ShowTimeline);
    update(&mut s, Msg::Bottom);
    insta::assert_snapshot!(frame(&mut s, 120, 32));
}
