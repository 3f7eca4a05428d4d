//! The inspector without a terminal: `update` as a pure function of messages, and whole frames
//! rendered into ratatui's TestBackend.

use ctxray::analysis::{Analysis, Options};
use ctxray::formats::load_path;
use ctxray::tokens::Registry;
use ctxray::tui::jobs::{settled, step as update};
use ctxray::tui::msg::{Edit, PromptKind};
use ctxray::tui::state::{AppState, Fate, Focus};
use ctxray::tui::theme::Theme;
use ctxray::tui::{views, Effect, Msg};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn demo(preset: Option<&str>, sets: &[&str]) -> AppState {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/samples/claude-code-demo.jsonl");
    let session = load_path(&path, None).unwrap();
    let analysis = Analysis::new(session, &Registry::bundled(), &Options::default());
    settled(AppState::new(
        analysis,
        preset.map(str::to_string),
        sets.iter().map(|s| s.to_string()).collect(),
    ))
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
    // At the top Esc says how to quit and does not (the app takes it back to a picker).
    assert_eq!(update(&mut s, Msg::Back), vec![Effect::Leave]);
    assert!(s.notice.as_deref().unwrap().contains("q quits"));
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
    assert!(text.contains("5,077 / 6,000 in context (84.6%)"), "{text}");
    assert!(
        text.contains("dimos: fires · 5,956 tokens vs threshold 4,800"),
        "{text}"
    );
    assert!(
        text.contains("provider reported 21,562 at #22 · the file holds 5,077 of it · not in the file: system prompt, tools ≈ 16,485"),
        "{text}"
    );
    assert!(text.contains("#  role      tokens"), "{text}");
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
    let text = screen(&s, 100, 50);
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
    let mut s = settled(AppState::new(analysis_of(&part(12)), None, Vec::new()));
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

#[test]
fn a_followed_file_that_reads_well_again_clears_its_error_from_the_footer() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/samples/claude-code-demo.jsonl");
    let text = std::fs::read(path).unwrap();
    let mut s = settled(AppState::new(analysis_of(&text), None, Vec::new()));
    s.following = true;
    let fault = "session.jsonl:1: not a session: binary data";
    update(&mut s, Msg::SourceFault(fault.into()));
    assert!(screen(&s, 150, 40).contains(fault));
    // Polls that still fail keep it; a poll that reads the session again clears it.
    update(&mut s, Msg::SourceFault(fault.into()));
    update(&mut s, Msg::SessionUpdated(Box::new(analysis_of(&text))));
    assert!(
        !screen(&s, 150, 40).contains(fault),
        "{}",
        screen(&s, 150, 40)
    );
    // Another notice shown since is the user's to dismiss.
    update(&mut s, Msg::SourceFault(fault.into()));
    update(&mut s, Msg::Notice("<stdin>: end of input".into()));
    update(&mut s, Msg::SessionUpdated(Box::new(analysis_of(&text))));
    assert!(screen(&s, 150, 40).contains("end of input"));
}

fn type_prompt(s: &mut AppState, kind: PromptKind, text: &str) -> Vec<Effect> {
    update(s, Msg::Prompt(kind));
    for c in text.chars() {
        update(s, Msg::PromptEdit(Edit::Char(c)));
    }
    update(s, Msg::PromptEdit(Edit::Submit))
}

#[test]
fn search_jumps_to_matches_and_n_cycles_them() {
    let mut s = demo(None, &[]);
    type_prompt(&mut s, PromptKind::Search, "todowrite");
    let matches = s.search.as_ref().unwrap().matches.clone();
    let expected: Vec<usize> = s
        .analysis
        .session
        .messages
        .iter()
        .filter(|m| m.tool_names().iter().any(|t| t == "TodoWrite"))
        .map(|m| m.index)
        .collect();
    // Every message calling TodoWrite matches (results may mention it too).
    assert!(expected.iter().all(|i| matches.contains(i)), "{matches:?}");
    assert_eq!(s.selected, matches[0]);
    update(&mut s, Msg::SearchNext);
    assert_eq!(s.selected, matches[1]);
    update(&mut s, Msg::SearchPrev);
    update(&mut s, Msg::SearchPrev);
    assert_eq!(s.selected, *matches.last().unwrap(), "N wraps backwards");
    let text = screen(&s, 150, 40);
    assert!(
        text.contains(&format!(
            "/todowrite {} of {}",
            matches.len(),
            matches.len()
        )),
        "{text}"
    );
    // A query with a capital letter is case-sensitive.
    type_prompt(&mut s, PromptKind::Search, "TODOWRITE");
    assert!(s.search.as_ref().unwrap().matches.is_empty());
    assert!(s.notice.as_deref().unwrap().contains("no message holds it"));
    // Esc cancels a prompt without searching; Backspace on an empty prompt closes it.
    update(&mut s, Msg::Prompt(PromptKind::Search));
    update(&mut s, Msg::PromptEdit(Edit::Char('x')));
    update(&mut s, Msg::PromptEdit(Edit::Cancel));
    assert!(s.prompt.is_none());
    assert_eq!(s.search.as_ref().unwrap().query, "TODOWRITE");
}

#[test]
fn set_moves_the_cut_and_a_refused_value_is_put_back() {
    let mut s = demo(Some("dimos"), &["context_window=6000"]);
    assert_eq!(s.cut_before(), Some(16));
    type_prompt(&mut s, PromptKind::Command, "set keep_ratio=0.7");
    assert!(s.plan_error.is_none(), "{:?}", s.plan_error);
    let moved = s.cut_before().unwrap();
    assert!(moved < 16, "keeping more moves the cut up: {moved}");
    assert!(s.sets.contains(&"keep_ratio=0.7".to_string()));
    assert!(s.sets.contains(&"context_window=6000".to_string()));
    // Over the trigger ratio: dimos refuses it; the last good settings stay.
    type_prompt(&mut s, PromptKind::Command, "set keep_ratio=0.9");
    assert_eq!(s.cut_before(), Some(moved));
    assert!(
        s.notice.as_deref().unwrap().contains("keep_ratio"),
        "{:?}",
        s.notice
    );
    type_prompt(&mut s, PromptKind::Command, "set bogus=1");
    assert!(s.notice.as_deref().unwrap().contains("no setting `bogus`"));
    type_prompt(&mut s, PromptKind::Command, "unset keep_ratio");
    assert_eq!(s.cut_before(), Some(16));
    type_prompt(&mut s, PromptKind::Command, "preset hermes");
    assert_eq!(s.preset.as_deref(), Some("hermes"));
    assert_eq!(
        type_prompt(&mut s, PromptKind::Command, "q"),
        vec![Effect::Quit]
    );
}

#[test]
fn each_preset_keeps_its_settings_when_another_is_chosen() {
    let mut s = demo(Some("dimos"), &["context_window=6000"]);
    let fires = |s: &AppState| s.plan.as_ref().is_some_and(|p| p.trigger.fired);
    assert!(fires(&s));
    update(&mut s, Msg::NextPreset);
    s = settled(s);
    assert_ne!(s.preset.as_deref(), Some("dimos"));
    assert!(s.sets.is_empty(), "{:?}", s.sets);
    update(&mut s, Msg::PrevPreset);
    s = settled(s);
    assert_eq!(s.preset.as_deref(), Some("dimos"));
    assert_eq!(s.sets, vec!["context_window=6000".to_string()]);
    assert!(fires(&s), "dimos plans with its settings again");
    // The same through `:preset`, and settings given to the other preset meanwhile are its own.
    type_prompt(&mut s, PromptKind::Command, "preset hermes");
    type_prompt(&mut s, PromptKind::Command, "set protect_last_n=4");
    type_prompt(&mut s, PromptKind::Command, "preset dimos");
    assert_eq!(s.sets, vec!["context_window=6000".to_string()]);
    type_prompt(&mut s, PromptKind::Command, "preset hermes");
    assert_eq!(s.sets, vec!["protect_last_n=4".to_string()]);
}

#[test]
fn the_knob_turns_the_main_setting_and_moves_the_cut() {
    let mut s = demo(Some("dimos"), &["context_window=6000"]);
    for _ in 0..7 {
        update(&mut s, Msg::Knob(1));
    }
    assert!(
        s.sets.contains(&"keep_ratio=0.7".to_string()),
        "{:?}",
        s.sets
    );
    assert!(s.cut_before().unwrap() < 16);
    update(&mut s, Msg::Knob(1));
    update(&mut s, Msg::Knob(1));
    assert!(
        s.sets.contains(&"keep_ratio=0.75".to_string()),
        "0.8 is refused by dimos (keep below trigger): {:?} {:?}",
        s.sets,
        s.notice
    );
    let mut none = demo(None, &[]);
    update(&mut none, Msg::Knob(1));
    assert!(none.notice.as_deref().unwrap().contains("no preset"));
}

#[test]
fn clicks_select_the_row_under_the_mouse_and_focus_the_pane() {
    let mut s = demo(Some("dimos"), &["context_window=6000"]);
    let mut terminal = Terminal::new(TestBackend::new(150, 40)).unwrap();
    let mut layout = None;
    terminal
        .draw(|f| layout = Some(views::render(f, &s, &Theme::dark())))
        .unwrap();
    let layout = layout.unwrap();
    update(&mut s, Msg::Frame(layout.clone()));
    // The row that shows message 17 is one below the cut rule.
    let row = layout.rows.iter().position(|r| *r == Some(17)).unwrap();
    assert_eq!(layout.rows[row - 2], None, "the cut rule has no message");
    update(
        &mut s,
        Msg::Click {
            column: layout.list.x + 3,
            row: layout.list.y + row as u16,
        },
    );
    assert_eq!(s.selected, 17);
    update(
        &mut s,
        Msg::Click {
            column: layout.detail.x + 2,
            row: layout.detail.y + 2,
        },
    );
    assert_eq!(s.focus, Focus::Detail);
    update(
        &mut s,
        Msg::Wheel {
            column: layout.detail.x + 2,
            row: layout.detail.y + 2,
            down: true,
        },
    );
    assert_eq!(
        (s.selected, s.detail_scroll),
        (17, 1),
        "the wheel scrolls the pane under it"
    );
}

#[test]
fn subagents_open_in_place_and_esc_returns_to_the_parent() {
    let mut s = demo(None, &[]);
    let children = s.analysis.children.len();
    assert_eq!(children, 5);
    assert!(screen(&s, 160, 40).contains("5 subagents (a)"));
    update(&mut s, Msg::Subagents);
    update(&mut s, Msg::Down);
    let text = screen(&s, 150, 40);
    assert!(text.contains("subagents (5)"), "{text}");
    let title = s.analysis.children[1].session.title.clone().unwrap();
    assert!(text.contains(&title), "{text}");
    let child_len = s.analysis.children[1].session.messages.len();
    update(&mut s, Msg::ShowMessage);
    assert_eq!(s.len(), child_len);
    assert!(s.parent.is_some());
    assert!(screen(&s, 150, 40).contains("subagent (Esc: parent)"));
    assert!(
        update(&mut s, Msg::Back).is_empty(),
        "Esc leaves the child, not the app"
    );
    assert_eq!(s.len(), 23);
    assert_eq!(s.analysis.children.len(), children);
    assert_eq!(
        s.analysis.children[1].session.title.as_deref(),
        Some(title.as_str())
    );
}

#[test]
fn a_file_of_many_sessions_opens_on_its_list_of_sessions_and_esc_returns_to_it() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/openhands-eval/openagentsafety-v1.jsonl");
    let session = load_path(&path, None).unwrap();
    let analysis = Analysis::new(session, &Registry::bundled(), &Options::default());
    assert!(analysis.holds_sessions());
    let mut s = settled(AppState::new(analysis, None, Vec::new()));
    assert_eq!(s.subagents, Some(0), "the list of sessions is open at once");
    let text = screen(&s, 150, 40);
    assert!(text.contains("sessions (2) · Enter opens"), "{text}");
    assert!(text.contains("2 sessions (a)"), "{text}");
    assert!(!text.contains("subagent"), "{text}");
    update(&mut s, Msg::Down);
    let child_len = s.analysis.children[1].session.messages.len();
    assert!(child_len > 0);
    update(&mut s, Msg::ShowMessage);
    assert_eq!(s.len(), child_len);
    let text = screen(&s, 150, 40);
    assert!(text.contains("session 2 of 2 (Esc: sessions)"), "{text}");
    assert!(update(&mut s, Msg::Back).is_empty());
    assert_eq!(
        s.subagents,
        Some(1),
        "back on the list, at the session left"
    );
    update(&mut s, Msg::Back);
    assert_eq!(s.subagents, None);
    let text = screen(&s, 150, 40);
    assert!(
        text.contains("2 sessions in this file: a lists them"),
        "{text}"
    );
    assert!(text.contains("no messages · p preset"), "{text}");
}

#[test]
fn the_gauge_is_drawn_against_the_presets_own_window() {
    let s = demo(Some("dimos"), &["context_window=6000"]);
    assert_eq!(s.gauge_window().0, 6000);
    let text = screen(&s, 160, 40);
    assert!(text.contains("5,077 / 6,000 in context (84.6%)"), "{text}");
    let plain = demo(None, &[]);
    assert_eq!(plain.gauge_window().0, 200_000);
}

#[test]
fn the_app_loads_then_inspects_and_a_failed_load_fails() {
    use ctxray::tui::app::{self, App, Screen};
    let progress = std::sync::Arc::new(ctxray::progress::Progress::new());
    progress.start(ctxray::progress::Phase::Counting, 200);
    progress.advance(50);
    let analysis = (*demo(None, &[]).analysis).clone();
    let mut a = App::loading(
        analysis.session.source.path.clone(),
        progress.clone(),
        Some("dimos".into()),
        vec!["context_window=6000".into()],
        false,
    );
    assert!(a.animates());
    let mut terminal = Terminal::new(TestBackend::new(100, 20)).unwrap();
    terminal
        .draw(|f| {
            views::render_app(f, &a, &Theme::dark());
        })
        .unwrap();
    let buf = terminal.backend().buffer().clone();
    let text: String = buf.content().iter().map(|c| c.symbol()).collect();
    assert!(
        text.contains("counting tokens · 50 / 200 messages"),
        "{text}"
    );
    // A load abandoned earlier (another source) is not shown in its place.
    let mut stale = App::loading(
        "other.jsonl".into(),
        progress.clone(),
        None,
        Vec::new(),
        false,
    );
    app::update(
        &mut stale,
        Msg::Loaded(Box::new((*demo(None, &[]).analysis).clone())),
    );
    assert!(
        stale.animates(),
        "a stale result replaced the load in front"
    );
    let effects = app::update(&mut a, Msg::Loaded(Box::new(analysis)));
    assert!(
        effects.iter().any(|e| matches!(e, Effect::Run(_))),
        "the plan is asked for"
    );
    ctxray::tui::jobs::settle_app(&mut a, effects);
    let Screen::Inspect(state) = &a.screen else {
        panic!("still loading")
    };
    assert_eq!(state.preset.as_deref(), Some("dimos"));
    assert_eq!(state.cut_before(), Some(16));
    let mut b = App::loading("x".into(), progress, None, Vec::new(), false);
    assert_eq!(
        app::update(&mut b, Msg::LoadFailed("x: not a session".into())),
        vec![Effect::Fail("x: not a session".into())]
    );
}

#[test]
fn the_readme_key_table_is_the_keymap() {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    let table: Vec<&str> = readme
        .lines()
        .skip_while(|l| *l != "| keys | does |")
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    let expected: Vec<String> = ctxray::tui::keymap::bindings()
        .map(|b| format!("| `{}` | {} |", b.keys, b.help))
        .collect();
    assert_eq!(
        table, expected,
        "README's key table differs from the keymap"
    );
}

#[test]
fn f_jumps_through_the_findings_messages() {
    let mut s = demo(Some("dimos"), &["context_window=6000"]);
    let named: Vec<(usize, String)> = s
        .findings()
        .iter()
        .map(|f| (f.messages[0], f.code.to_string()))
        .collect();
    assert!(named.len() >= 2, "{named:?}");
    update(&mut s, Msg::NextFinding);
    assert_eq!(s.selected, named[0].0);
    assert!(s.notice.as_deref().unwrap().contains(&named[0].1));
    update(&mut s, Msg::NextFinding);
    assert_eq!(s.selected, named[1].0);
    update(&mut s, Msg::PrevFinding);
    update(&mut s, Msg::PrevFinding);
    assert_eq!(s.selected, named.last().unwrap().0, "F wraps backwards");
    update(&mut s, Msg::ShowDiff);
    let text = screen(&s, 150, 120);
    let marked = text
        .lines()
        .find(|l| l.contains('▶'))
        .expect("no finding marked");
    assert!(marked.contains(&named.last().unwrap().1), "{marked}");
}

#[test]
fn c_compacts_c_again_compacts_the_result_and_esc_walks_back() {
    let mut s = demo(Some("custom"), &["trigger_tokens=1000", "keep_last=6"]);
    let before = s.analysis.total_tokens();
    update(&mut s, Msg::Compact);
    let c = s.compaction.clone().expect("no compaction");
    assert_eq!(c.generation, 1);
    assert_eq!(c.tokens_before, before);
    assert_eq!(c.tokens_after, s.analysis.total_tokens());
    assert!(c.tokens_after < before);
    let at = c.summary_at.unwrap();
    assert_eq!(s.selected, at);
    assert!(matches!(
        s.analysis.session.messages[at].parts[0],
        ctxray::session::Part::Summary { .. }
    ));
    let text = screen(&s, 150, 50);
    assert!(text.contains("compaction 1 · custom"), "{text}");
    assert!(text.contains("freed"), "{text}");
    assert!(text.contains("Offline digest of"), "{text}");
    // Compacting the compacted history: the earlier summary is summarized in turn.
    update(&mut s, Msg::Compact);
    let c2 = s.compaction.clone().unwrap();
    assert_eq!(c2.generation, 2);
    assert_eq!(c2.tokens_before, c.tokens_after);
    // Esc: result view → message view, then back through the compactions.
    update(&mut s, Msg::Back);
    update(&mut s, Msg::Back);
    assert_eq!(s.compaction.as_ref().map(|c| c.generation), Some(1));
    update(&mut s, Msg::Back);
    update(&mut s, Msg::Back);
    assert!(s.compaction.is_none());
    assert_eq!(s.analysis.total_tokens(), before);
    // A plan that does not fire says so and changes nothing.
    let mut idle = demo(Some("dimos"), &[]);
    update(&mut idle, Msg::Compact);
    assert!(idle.compaction.is_none());
    assert!(idle.notice.as_deref().unwrap().contains("does not fire"));
}

#[test]
fn a_compaction_carried_out_apart_can_be_cancelled_and_its_late_result_is_dropped() {
    use ctxray::tui::jobs::{Kind, Work};
    use ctxray::tui::update::update as apply;
    let mut s = demo(Some("custom"), &["trigger_tokens=1000", "keep_last=6"]);
    let before = s.len();
    let (job, sent) = only_job(apply(&mut s, Msg::Compact));
    assert!(matches!(job.work, Work::Compact { .. }));
    assert!(screen(&s, 150, 40).contains("compacting (offline)… Esc cancels"));
    // A second `c` while it runs does not ask again.
    assert!(apply(&mut s, Msg::Compact).is_empty());
    assert!(s.notice.as_deref().unwrap().contains("still compacting"));
    // Esc cancels: the job is stopped, the history stays, and its result is dropped.
    assert_eq!(
        apply(&mut s, Msg::Back),
        vec![Effect::Cancel(Kind::Compact)]
    );
    assert!(s.notice.as_deref().unwrap().contains("cancelled"));
    for msg in sent {
        apply(&mut s, msg);
    }
    assert!(s.compaction.is_none());
    assert_eq!(s.len(), before);
    // Asked again, its result is shown.
    let (_, sent) = only_job(apply(&mut s, Msg::Compact));
    for msg in sent {
        let effects = apply(&mut s, msg);
        ctxray::tui::jobs::settle(&mut s, effects);
    }
    assert_eq!(s.compaction.as_ref().map(|c| c.generation), Some(1));
}

#[test]
fn a_new_plan_asked_while_compacting_cancels_the_compaction_of_the_plan_before() {
    use ctxray::tui::jobs::Kind;
    use ctxray::tui::update::update as apply;
    let mut s = demo(Some("custom"), &["trigger_tokens=1000", "keep_last=6"]);
    let before = s.len();
    let (_, sent) = only_job(apply(&mut s, Msg::Compact));
    // `p` while the offline compaction runs: the compaction is stopped, the next preset planned.
    let effects = apply(&mut s, Msg::NextPreset);
    assert!(
        effects.contains(&Effect::Cancel(Kind::Compact)),
        "{effects:?}"
    );
    assert_ne!(s.preset.as_deref(), Some("custom"));
    assert!(s.notice.as_deref().unwrap().contains("plan changed"));
    assert!(!screen(&s, 150, 40).contains("compacting (offline)"));
    // The old plan's compaction, arriving late, is not shown.
    for msg in sent {
        apply(&mut s, msg);
    }
    assert!(s.compaction.is_none());
    assert_eq!(s.len(), before);
}

/// The single job among `effects` (it must be one), with the message its run sends first.
fn only_job(effects: Vec<Effect>) -> (ctxray::tui::jobs::Job, Vec<Msg>) {
    let jobs: Vec<_> = effects
        .into_iter()
        .filter_map(|e| match e {
            Effect::Run(job) => Some(job),
            _ => None,
        })
        .collect();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    let job = jobs[0].clone();
    let mut sent = Vec::new();
    ctxray::tui::jobs::run(job.clone(), &Default::default(), &mut |m| sent.push(m));
    (job, sent)
}

#[test]
fn a_what_if_run_apart_lands_only_on_the_plan_it_was_for() {
    use ctxray::timeline::WhatIfStatus;
    use ctxray::tui::jobs::Work;
    use ctxray::tui::update::update as apply;
    let mut s = demo(Some("dimos"), &["context_window=6000"]);
    // Not computed, and only asked for once the timeline is on screen.
    assert_eq!(s.timeline.what_if, WhatIfStatus::NotComputed);
    let (job, mut sent) = only_job(apply(&mut s, Msg::ShowTimeline));
    let key = (
        "dimos".to_string(),
        vec!["context_window=6000".to_string()],
        s.len(),
    );
    assert_eq!(job.work, Work::WhatIf(key.clone()));
    assert!(apply(&mut s, Msg::Down).is_empty(), "asked once, not twice");
    let Some(Msg::WhatIfDone(_, Ok(done))) = sent.pop() else {
        panic!("the job sends its search")
    };
    let stale = ("hermes".to_string(), Vec::new(), s.len());
    apply(&mut s, Msg::WhatIfDone(stale, Ok(done.clone())));
    assert_eq!(
        s.timeline.what_if,
        WhatIfStatus::NotComputed,
        "a stale result is dropped"
    );
    apply(&mut s, Msg::WhatIfDone(key, Ok(done.clone())));
    assert_eq!(s.timeline.what_if, WhatIfStatus::Done(done));
    assert!(screen(&s, 120, 40).contains("dimos would first fire at #20"));
}

fn network(s: &mut AppState) {
    s.summarizer = Some(ctxray::summarize::Choice {
        provider: ctxray::summarize::Provider::OpenAi,
        base_url: Some("http://127.0.0.1:9/v1".into()),
        model: Some("gpt-test".into()),
        timeout: None,
    });
}

#[test]
fn c_with_a_network_summarizer_asks_for_the_plans_messages_and_streams_the_summary_in() {
    let mut s = demo(Some("custom"), &["trigger_tokens=1000", "keep_last=6"]);
    network(&mut s);
    let before = s.analysis.total_tokens();
    let plan = s.plan.clone().unwrap();
    let effects = update(&mut s, Msg::Compact);
    let [Effect::Summarize {
        id,
        choice,
        messages,
    }] = effects.as_slice()
    else {
        panic!("asked for {effects:?}")
    };
    assert_eq!(
        messages, &plan.summarizer,
        "exactly the plan's summarizer input"
    );
    assert_eq!(choice.label(), "openai:gpt-test");
    assert!(
        s.compaction.is_none(),
        "nothing changes before the summary is in"
    );
    assert_eq!(
        update(&mut s, Msg::Compact),
        vec![],
        "a second c while writing starts nothing"
    );
    for text in ["The user wants ", "a TODO app.\nGlob ran", " twice."] {
        update(
            &mut s,
            Msg::SummaryDelta {
                id: *id,
                text: text.into(),
            },
        );
    }
    // A late delta of another call is not this summary.
    update(
        &mut s,
        Msg::SummaryDelta {
            id: id + 7,
            text: "STALE".into(),
        },
    );
    let text = screen(&s, 150, 50);
    assert!(
        text.contains("openai:gpt-test is writing the custom summary"),
        "{text}"
    );
    assert!(text.contains("a TODO app."), "{text}");
    assert!(!text.contains("STALE"), "{text}");
    let summary = ctxray::summarize::Summary {
        text: "The user wants a TODO app.\nGlob ran twice.".into(),
        model: "gpt-test-2025".into(),
        input_tokens: None,
        output_tokens: None,
        masked_secrets: 2,
    };
    update(
        &mut s,
        Msg::SummaryDone {
            id: *id,
            result: Ok(summary.clone()),
        },
    );
    assert!(s.summarizing.is_none());
    let c = s.compaction.clone().expect("compacted");
    assert_eq!(c.summarizer, "openai:gpt-test-2025");
    assert_eq!(c.summary.as_deref(), Some(summary.text.as_str()));
    assert_eq!(c.tokens_before, before);
    assert!(s.notice.as_deref().unwrap().contains("masked 2 secret"));
    let at = c.summary_at.unwrap();
    let ctxray::session::Part::Summary { text } = &s.analysis.session.messages[at].parts[0] else {
        panic!("no summary at {at}")
    };
    assert!(text.ends_with(&summary.text), "{text}");
    // The compacted history keeps the choice: c again asks the model again.
    assert!(matches!(
        update(&mut s, Msg::Compact).as_slice(),
        [Effect::Summarize { id: next, .. }] if next != id
    ));
}

#[test]
fn esc_cancels_a_summary_being_written_and_errors_leave_the_history_alone() {
    let mut s = demo(Some("custom"), &["trigger_tokens=1000", "keep_last=6"]);
    network(&mut s);
    let len = s.len();
    let effects = update(&mut s, Msg::Compact);
    let [Effect::Summarize { id, .. }] = effects.as_slice() else {
        panic!("no call")
    };
    let id = *id;
    update(
        &mut s,
        Msg::SummaryDelta {
            id,
            text: "partial".into(),
        },
    );
    assert_eq!(update(&mut s, Msg::Back), vec![Effect::CancelSummary(id)]);
    assert!(s.summarizing.is_none());
    assert!(s.notice.as_deref().unwrap().contains("cancelled"));
    // What the cancelled call still sends is dropped.
    update(
        &mut s,
        Msg::SummaryDone {
            id,
            result: Ok(ctxray::summarize::Summary {
                text: "late".into(),
                model: "m".into(),
                input_tokens: None,
                output_tokens: None,
                masked_secrets: 0,
            }),
        },
    );
    assert!(s.compaction.is_none());
    assert_eq!(s.len(), len);
    // A failed call: the error in the footer, the history unchanged.
    let effects = update(&mut s, Msg::Compact);
    let [Effect::Summarize { id, .. }] = effects.as_slice() else {
        panic!("no call")
    };
    let id = *id;
    update(
        &mut s,
        Msg::SummaryDone {
            id,
            result: Err("HTTP 401 Unauthorized: Incorrect API key provided".into()),
        },
    );
    assert!(s.compaction.is_none());
    assert_eq!(s.len(), len);
    let notice = s.notice.clone().unwrap();
    assert!(
        notice.contains("401") && notice.contains("unchanged"),
        "{notice}"
    );
    // A strategy without a summarizer call compacts offline at once, even with a network choice.
    let mut drop_only = demo(Some("agent-framework-sliding"), &["keep_last_groups=2"]);
    network(&mut drop_only);
    assert!(drop_only.plan.as_ref().unwrap().trigger.fired);
    assert_eq!(update(&mut drop_only, Msg::Compact), vec![]);
    assert_eq!(drop_only.compaction.unwrap().summarizer, "offline");
}

#[test]
fn a_plan_is_asked_for_apart_and_the_last_plan_stays_meanwhile() {
    use ctxray::tui::jobs::Work;
    use ctxray::tui::state::plan_of;
    use ctxray::tui::update::update as apply;
    let messages: Vec<serde_json::Value> = (0..42)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            serde_json::json!({"role": role, "content": format!("message {i} about the build")})
        })
        .collect();
    let bytes = serde_json::to_vec(&serde_json::json!({ "messages": messages })).unwrap();
    let analysis = analysis_of(&bytes);
    let sets = vec!["trigger_tokens=100".to_string(), "keep_last=6".to_string()];
    let mut s = AppState::new(analysis, Some("custom".into()), sets.clone());
    // Nothing planned yet: the plan is asked for, once.
    assert!(s.plan.is_none());
    let jobs = s.take_jobs();
    assert_eq!(jobs.len(), 1);
    let key = ("custom".to_string(), sets.clone(), s.len());
    assert_eq!(jobs[0].work, Work::Plan(key.clone()));
    assert!(s.take_jobs().is_empty());
    assert!(screen(&s, 120, 30).contains("planning…"));
    assert_eq!(apply(&mut s, Msg::Compact), vec![]);
    assert!(s.notice.as_deref().unwrap().contains("still planning"));
    // A result for another plan is dropped; the one awaited lands with its fates.
    let stale = ("dimos".to_string(), Vec::new(), s.len());
    let other = plan_of(&s.analysis, "dimos", &[], false);
    apply(&mut s, Msg::Planned(stale, Box::new(other)));
    assert!(s.plan.is_none());
    let done = plan_of(&s.analysis, "custom", &sets, false);
    apply(&mut s, Msg::Planned(key.clone(), Box::new(done)));
    let plan = s.plan.clone().expect("planned");
    assert!(plan.trigger.fired);
    assert_eq!(s.fate(s.len() - 1), Fate::Kept);
    assert_eq!(s.fate(1), Fate::Summarized);
    // The diff follows the plan; until then the diff view says it is coming.
    apply(&mut s, Msg::ShowDiff);
    assert!(screen(&s, 120, 30).contains("comparing the summarized range"));
    let diff = ctxray::diff::diff(&s.analysis.session, &plan);
    let stale = ("custom".to_string(), Vec::new(), s.len());
    apply(&mut s, Msg::Diffed(stale, Box::new(diff.clone())));
    assert!(s.diff.is_none(), "a diff of another plan is dropped");
    apply(&mut s, Msg::Diffed(key, Box::new(diff)));
    assert!(screen(&s, 120, 30).contains("evidence survival"));
    apply(&mut s, Msg::ShowMessage);
    // Turning the knob asks for a new plan; the last one stays on screen until it comes.
    let (job, sent) = only_job(apply(&mut s, Msg::Knob(1)));
    let Work::Plan(next) = job.work else {
        panic!("a plan is asked for")
    };
    assert_ne!(next.1, sets);
    assert_eq!(s.plan.as_ref().map(|p| p.preset), Some("custom"));
    assert!(screen(&s, 120, 30).contains("showing the last plan meanwhile"));
    // The job sends the plan, then its diff.
    assert!(matches!(
        sent.as_slice(),
        [Msg::Planned(a, _), Msg::Diffed(b, _)] if *a == next && *b == next
    ));
}

#[test]
fn escape_sequences_in_session_text_are_shown_not_dropped() {
    let id = "call\u{1b}[2J1";
    let doc = serde_json::json!({"messages": [
        {"role": "user", "content": "build it"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function",
            "function": {"name": "run\u{1b}]0;t\u{7}", "arguments": "{\"cmd\": \"npm i\"}"}}]},
        {"role": "tool", "tool_call_id": id,
            "content": "\u{1b}[?25l\u{1b}[2Kprogress\r\tdone"},
    ]});
    let analysis = analysis_of(doc.to_string().as_bytes());
    let mut s = settled(AppState::new(analysis, None, Vec::new()));
    update(&mut s, Msg::Down);
    let call = screen(&s, 150, 30);
    // The list's row and the detail's call line both show the name's escape, not its tail.
    assert_eq!(call.matches("run␛]0;t␇").count(), 2, "{call}");
    assert!(call.contains("[call␛[2J1]"), "{call}");
    update(&mut s, Msg::Down);
    let result = screen(&s, 150, 30);
    assert!(result.contains("␛[?25l␛[2Kprogress␍    done"), "{result}");
    assert!(!result.contains(" [?25l"), "{result}");
}

#[test]
fn help_is_modal_scrolls_and_closes() {
    let mut s = demo(Some("dimos"), &["context_window=6000"]);
    update(&mut s, Msg::ToggleHelp);
    // Drawn small, the help says where it is and how to scroll and leave.
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let mut layout = None;
    terminal
        .draw(|f| layout = Some(views::render(f, &s, &Theme::dark())))
        .unwrap();
    let layout = layout.unwrap();
    let (total, shown) = layout.help;
    assert!(total > shown, "{total} lines fit in {shown}");
    let text = screen(&s, 80, 24);
    assert!(text.contains(&format!("1–{shown} of {total}")), "{text}");
    assert!(text.contains("Esc closes"), "{text}");
    update(&mut s, Msg::Frame(layout));
    // Keys scroll the help and reach nothing under it.
    update(&mut s, Msg::Down);
    assert_eq!((s.help_scroll, s.selected), (1, 0));
    update(&mut s, Msg::NextPreset);
    assert_eq!(s.preset.as_deref(), Some("dimos"));
    assert!(s.notice.as_deref().unwrap().contains("Esc closes"));
    update(&mut s, Msg::Bottom);
    assert_eq!(s.help_scroll, total - shown);
    assert!(screen(&s, 80, 24).contains(&format!("of {total}")));
    update(&mut s, Msg::Back);
    assert!(!s.show_help);
    assert_eq!(s.help_scroll, 0);
    // In a replay, help shows the replay's keys.
    update(&mut s, Msg::Replay);
    update(&mut s, Msg::ToggleHelp);
    let text = screen(&s, 120, 40);
    assert!(
        text.contains("replay keys") && text.contains("slower / faster"),
        "{text}"
    );
}

/// `w` adds the settings that make the preset fire, `p` keeps them with their preset and
/// scales the next one, and `w` again takes away exactly what it added, leaving the user's.
#[test]
fn demo_mode_adds_settings_per_preset_and_takes_away_only_its_own() {
    let mut s = demo(Some("dimos"), &["keep_ratio=0.4"]);
    assert!(!s.plan.as_ref().unwrap().trigger.fired);
    update(&mut s, Msg::Demo);
    assert!(s.plan.as_ref().unwrap().trigger.fired, "{:?}", s.notice);
    assert_eq!(s.sets[0], "keep_ratio=0.4");
    assert!(s.sets[1].starts_with("context_window="), "{:?}", s.sets);
    let dimos_sets = s.sets.clone();
    update(&mut s, Msg::NextPreset);
    assert_eq!(s.preset.as_deref(), Some("codex"));
    assert!(s.plan.as_ref().unwrap().trigger.fired, "{:?}", s.notice);
    assert!(s.demo_added().is_some());
    update(&mut s, Msg::PrevPreset);
    assert_eq!(s.sets, dimos_sets);
    update(&mut s, Msg::Demo);
    assert_eq!(s.sets, vec!["keep_ratio=0.4".to_string()]);
    assert!(!s.plan.as_ref().unwrap().trigger.fired);
    update(&mut s, Msg::NextPreset);
    assert!(
        s.sets.is_empty(),
        "codex keeps no demo setting: {:?}",
        s.sets
    );
    assert!(!s.plan.as_ref().unwrap().trigger.fired);
}

/// `:` completes with Tab (command, preset and setting names, candidates shown when several
/// fit) and Up/Down walk the lines given before.
#[test]
fn the_command_prompt_completes_names_and_keeps_a_history() {
    let mut s = demo(Some("dimos"), &[]);
    let typed = |s: &mut AppState, text: &str| {
        for c in text.chars() {
            update(s, Msg::PromptEdit(Edit::Char(c)));
        }
    };
    update(&mut s, Msg::Prompt(PromptKind::Command));
    typed(&mut s, "se");
    update(&mut s, Msg::PromptEdit(Edit::Complete));
    typed(&mut s, "keep_r");
    update(&mut s, Msg::PromptEdit(Edit::Complete));
    assert_eq!(s.prompt.as_ref().unwrap().1, "set keep_ratio=");
    typed(&mut s, "0.5");
    update(&mut s, Msg::PromptEdit(Edit::Submit));
    assert!(
        s.sets.contains(&"keep_ratio=0.5".to_string()),
        "{:?}",
        s.sets
    );
    update(&mut s, Msg::Prompt(PromptKind::Command));
    typed(&mut s, "preset agent-framework-t");
    update(&mut s, Msg::PromptEdit(Edit::Complete));
    let text = screen(&s, 160, 40);
    assert!(
        text.contains("agent-framework-truncation  agent-framework-tool-result"),
        "{text}"
    );
    update(&mut s, Msg::PromptEdit(Edit::Clear));
    update(&mut s, Msg::PromptEdit(Edit::Older));
    assert_eq!(s.prompt.as_ref().unwrap().1, "set keep_ratio=0.5");
    update(&mut s, Msg::PromptEdit(Edit::Newer));
    assert_eq!(s.prompt.as_ref().unwrap().1, "");
}

/// Enter on a `Task` call opens the subagent it started (Esc comes back), and a search names
/// the subagents that also hold what it looked for.
#[test]
fn enter_on_a_task_call_opens_its_subagent_and_search_looks_inside_subagents() {
    let mut s = demo(None, &[]);
    for _ in 0..13 {
        update(&mut s, Msg::Down);
    }
    assert_eq!(s.selected, 13);
    update(&mut s, Msg::ShowMessage);
    assert!(s.parent.is_some(), "{:?}", s.notice);
    let first = s.analysis.session.messages[0].parts[0].plain_text();
    assert!(first.contains("TODO"), "{first}");
    update(&mut s, Msg::Back);
    assert!(s.parent.is_none());
    assert_eq!(s.selected, 13);
    // A message with no call that started one: Enter just shows it.
    update(&mut s, Msg::Up);
    update(&mut s, Msg::ShowMessage);
    assert!(s.parent.is_none());
    update(&mut s, Msg::Prompt(PromptKind::Search));
    for c in "npm".chars() {
        update(&mut s, Msg::PromptEdit(Edit::Char(c)));
    }
    update(&mut s, Msg::PromptEdit(Edit::Submit));
    let n = s.search.as_ref().unwrap().in_children;
    assert!(n > 0);
    let text = screen(&s, 200, 40);
    assert!(text.contains(&format!("{n} in subagents (a)")), "{text}");
}

/// Codex renders the user turns it keeps to its summarizer too: the footer counts each
/// message once, as the list shades it, and says how many kept ones were also summarized.
#[test]
fn the_footer_counts_each_message_once_when_kept_ones_are_also_summarized() {
    let s = demo(Some("codex"), &["context_window=5600"]);
    let split = &s.plan.as_ref().unwrap().split;
    let listed =
        split.pinned.len() + split.summarized.len() + split.kept.len() + split.dropped.len();
    assert!(
        listed > s.len(),
        "the split overlaps: {listed} of {}",
        s.len()
    );
    let (counts, also) = s.fate_counts();
    assert_eq!(counts.iter().sum::<usize>(), s.len());
    assert_eq!(counts[2] + also, split.summarized.len());
    let text = screen(&s, 160, 40);
    assert!(
        text.contains(&format!("(+{also} kept also summarized)")),
        "{text}"
    );
}

/// At 80 columns and narrower every key's help is read whole: a line too long for the popup
/// goes on under itself rather than being cut.
#[test]
fn help_lines_wrap_whole_at_80_columns() {
    let mut s = demo(Some("dimos"), &[]);
    update(&mut s, Msg::ToggleHelp);
    for width in [80u16, 60] {
        let text = screen(&s, width, 120);
        // The popup's rows, between its borders (found on its top row).
        let rows: Vec<Vec<char>> = text.lines().map(|l| l.chars().collect()).collect();
        let top = rows
            .iter()
            .position(|r| r.iter().collect::<String>().contains("┌ keys"))
            .expect("help popup");
        let left = rows[top].iter().position(|&c| c == '┌').unwrap();
        let right = rows[top].iter().position(|&c| c == '┐').unwrap();
        let inside: Vec<String> = rows[top + 1..]
            .iter()
            .take_while(|r| r.get(left) == Some(&'│'))
            .map(|r| r[left + 1..right].iter().collect::<String>())
            .collect();
        let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let joined = words(&inside.join(" "));
        let mut wrapped = 0;
        for b in ctxray::tui::keymap::bindings() {
            assert!(
                joined.contains(&words(b.help)),
                "{:?} not whole in\n{text}",
                b.help
            );
            wrapped += usize::from(!inside.iter().any(|l| l.contains(b.help)));
        }
        // At 80 columns every line fits; at 60 some go on under themselves.
        assert_eq!(wrapped > 0, width < 80, "{text}");
    }
}

/// A notice is read above the hints, which keep `? help · q quit` on the last row.
#[test]
fn a_notice_leaves_the_hints_on_screen() {
    let mut s = demo(Some("dimos"), &[]);
    s.notice = Some("a notice long enough to wrap: ".repeat(6));
    let text = screen(&s, 80, 24);
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[23].contains("? help · q quit"), "{text}");
    assert!(
        rows[22].contains("a notice") || rows[21].contains("a notice"),
        "{text}"
    );
}

#[test]
fn the_detail_of_a_message_of_many_rows_scrolls_to_its_last_part() {
    // One assistant message of 20,000 calls: four rows each, past what a paragraph's own
    // scroll (a u16) reaches.
    let calls: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"type":"tool_use","id":"toolu_{i}","name":"Read","input":{{"file_path":"/f{i}"}}}}"#))
        .collect();
    let lines = [
        r#"{"type":"user","uuid":"u0","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}"#.to_string(),
        format!(
            r#"{{"type":"assistant","uuid":"a1","parentUuid":"u0","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{{"id":"m1","role":"assistant","model":"claude-sonnet-4","content":[{}]}}}}"#,
            calls.join(",")
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many-calls.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let session = load_path(&path, None).unwrap();
    let analysis = Analysis::new(session, &Registry::bundled(), &Options::default());
    let mut s = settled(AppState::new(analysis, None, Vec::new()));
    update(&mut s, Msg::Bottom);
    update(&mut s, Msg::FocusNext);
    update(&mut s, Msg::Bottom);
    let text = screen(&s, 120, 30);
    assert!(text.contains("toolu_19999"), "{text}");
    assert!(text.contains("of 80,00"), "{text}");
}
