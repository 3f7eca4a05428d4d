//! The session picker without a terminal: a fake home built at test time from real session
//! files in `fixtures/`, discovered with `Locations::under_home`, fed to `PickerState`, driven
//! through `update` and rendered into ratatui's TestBackend.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use ctxray::formats::load_path;
use ctxray::live::discover::{count, discover, DiscoverError, Discovery, Found, Locations};
use ctxray::session::Format;
use ctxray::tui::picker::{
    picker_input, picker_mouse, update, PickerInput, PickerOutcome, PickerState,
};
use ctxray::tui::theme::Theme;
use ctxray::tui::views::picker::{list_area, render};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::{Position, Rect};
use ratatui::style::Modifier;
use ratatui::Terminal;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// The reference "now" of every test.
fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_760_000_000)
}

fn ago(secs: u64) -> SystemTime {
    now() - Duration::from_secs(secs)
}

fn set_mtime(path: &Path, t: SystemTime) {
    File::options()
        .append(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// Copies `from` (a file or a directory tree) to `to`, every file stamped with `t`.
fn place(from: &Path, to: &Path, t: SystemTime) {
    if from.is_dir() {
        for entry in fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            place(&entry.path(), &to.join(entry.file_name()), t);
        }
        return;
    }
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(from, to).unwrap();
    set_mtime(to, t);
}

/// A home holding real sessions of all four tools, each with its own last-activity time.
fn fake_home() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    let copies: &[(&str, &str, u64)] = &[
        (
            "samples/claude-code-demo.jsonl",
            ".claude/projects/-home-dev-demo/5f1c2a34-0000-4000-8000-000000000001.jsonl",
            3 * 60,
        ),
        (
            "codex/older-cli.jsonl",
            ".codex/sessions/2025/08/14/rollout-2025-08-14T16-02-11-5973b6c0.jsonl",
            2 * 3600,
        ),
        (
            "openhands/conversation",
            ".openhands/conversations/7c1d2e3f",
            2 * 86_400,
        ),
        (
            "gemini-cli/chats",
            ".gemini/tmp/tinyparse/chats",
            5 * 86_400,
        ),
        (
            "codex/local-compaction.jsonl",
            ".codex/archived_sessions/rollout-2025-10-21T09-14-02-0199f1c2.jsonl",
            40 * 86_400,
        ),
    ];
    for (from, to, secs) in copies {
        place(&fixture(from), &h.join(to), ago(*secs));
    }
    tmp
}

fn picker(home: &Path) -> PickerState {
    let locations = Locations::under_home(home);
    let mut state = PickerState::new()
        .with_locations(locations.clone())
        .with_now(now());
    state.set_discovery(discover(&locations));
    state
}

/// Renders a frame; returns the buffer, the list rows reported and the cursor, if shown.
fn draw(state: &PickerState, w: u16, h: u16) -> (Buffer, u16, Option<Position>) {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut rows = 0;
    let mut cursor = None;
    terminal
        .draw(|f| {
            rows = render(f, f.area(), state, &Theme::dark());
        })
        .unwrap();
    if terminal.backend().cursor_visible() {
        cursor = Some(terminal.get_cursor_position().unwrap());
    }
    (terminal.backend().buffer().clone(), rows, cursor)
}

fn screen(state: &PickerState, w: u16, h: u16) -> String {
    text(&draw(state, w, h).0)
}

fn text(buf: &Buffer) -> String {
    let (w, h) = (buf.area.width, buf.area.height);
    (0..h)
        .map(|y| {
            (0..w)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn lines(screen: &str) -> Vec<&str> {
    screen.lines().collect()
}

fn type_str(state: &mut PickerState, text: &str) {
    for c in text.chars() {
        assert_eq!(update(state, PickerInput::Type(c)), None);
    }
}

/// The titles on screen, in order (the rows between the header and the footer).
fn titles_shown(state: &PickerState) -> Vec<String> {
    state
        .matches()
        .iter()
        .map(|&i| state.found()[i].title.clone().unwrap_or_default())
        .collect()
}

#[test]
fn rows_show_each_session_newest_first_with_size_count_and_age() {
    let home = fake_home();
    let s = picker(home.path());
    let shot = screen(&s, 120, 16);
    let l = lines(&shot);
    assert_eq!(l[0], " ctxray · sessions  found 6 sessions in 4 roots");
    assert!(l[1].starts_with(">  type to filter"), "{}", l[1]);
    assert!(l[1].ends_with("6/6"), "{}", l[1]);
    let table = [
        "  tool        session                                                project                  size       msgs     active",
        "▌ claude-code Empty Repo Setup: CLAUDE.md Foundation Created         /path/to/Demo          756 KB ~437 lines  3 min ago",
        "  codex       CI is red since this morning, see the screenshot. Why? /srv/app                 6 KB   ~6 lines    2 h ago",
        "  openhands   tests/test_calc.py fails since yesterday. Please fix c 7c1d2e3f                23 KB          —    2 d ago",
        "  gemini-cli  Fix failing npm build                                  tinyparse                6 KB   ~9 lines    5 d ago",
        "  gemini-cli  Refactor the auth module to use async/await.           tinyparse                5 KB   ~8 lines    5 d ago",
        "  codex       The header test in src/parser.rs fails. Fix it.        /home/dev/tinyparse     15 KB   ~5 lines   1 mo ago",
    ];
    assert_eq!(l[2..9], table);
    assert!(l[9..14].iter().all(|l| l.is_empty()));
    let selected = &s.found()[0].path;
    assert_eq!(l[14], format!(" {}", selected.display()));
    assert!(l[15].contains("Enter open") && l[15].contains("Esc clear / quit"));
    // Sizes are the files' real sizes (the OpenHands one sums its conversation's files).
    let demo = fs::metadata(&s.found()[0].path).unwrap().len();
    assert_eq!((demo + 512) / 1024, 756);
}

#[test]
fn narrow_terminals_drop_the_project_column_then_the_numbers() {
    let home = fake_home();
    let s = picker(home.path());
    let shot = screen(&s, 70, 10);
    let l = lines(&shot);
    assert_eq!(
        l[2],
        "  tool        session                       size       msgs     active"
    );
    assert_eq!(
        l[3],
        "▌ claude-code Empty Repo Setup: CLAUDE.   756 KB ~437 lines  3 min ago"
    );
    let shot = screen(&s, 50, 10);
    assert_eq!(
        lines(&shot)[4],
        "  codex       CI is red since this morn    2 h ago"
    );
    let shot = screen(&s, 30, 10);
    assert_eq!(lines(&shot)[4], "  CI is red since this morning");
}

#[test]
fn typing_narrows_the_list_and_j_k_are_filter_text() {
    let home = fake_home();
    let mut s = picker(home.path());
    update(&mut s, PickerInput::Down);
    assert_eq!(s.selected(), 1);
    type_str(&mut s, "k");
    assert_eq!(s.query(), "k", "k is typed, not a move");
    assert_eq!(s.selected(), 0, "a new filter starts at its best match");
    update(&mut s, PickerInput::Backspace);
    type_str(&mut s, "codex");
    assert_eq!(
        titles_shown(&s),
        vec![
            "CI is red since this morning, see the screenshot. Why?",
            "The header test in src/parser.rs fails. Fix it.",
        ]
    );
    let shot = screen(&s, 120, 12);
    let l = lines(&shot);
    assert_eq!(l[1], format!("> codex{}2/6", " ".repeat(109)));
    assert!(l[3].contains("codex       CI is red since this morning"));
    assert!(l[4].contains("codex       The header test"));
    assert!(l[5].is_empty());
    // Several words must all match: "fix" alone also keeps OpenHands and Gemini sessions.
    update(&mut s, PickerInput::ClearFilter);
    type_str(&mut s, "fix");
    assert_eq!(s.matches().len(), 3);
    type_str(&mut s, " npm");
    assert_eq!(titles_shown(&s), vec!["Fix failing npm build"]);
    update(&mut s, PickerInput::DeleteWord);
    assert_eq!((s.query(), s.matches().len()), ("fix ", 3));
}

#[test]
fn matched_characters_are_highlighted() {
    let home = fake_home();
    let mut s = picker(home.path());
    type_str(&mut s, "npm tinyp");
    let (buf, _, _) = draw(&s, 120, 8);
    let row = lines(&text(&buf))[3].to_string();
    let theme = Theme::dark();
    let styled = |needle: &str| -> Vec<bool> {
        let start = row.find(needle).unwrap();
        let x0 = row[..start].chars().count() as u16;
        (0..needle.chars().count() as u16)
            .map(|dx| {
                let cell = &buf[(x0 + dx, 3)];
                cell.fg == theme.color("search") && cell.modifier.contains(Modifier::BOLD)
            })
            .collect()
    };
    assert_eq!(styled("npm"), vec![true; 3]);
    assert_eq!(styled(" build"), vec![false; 6]);
    assert_eq!(
        styled("tinyparse"),
        [vec![true; 5], vec![false; 4]].concat()
    );
    assert_eq!(
        buf[(2, 3)].fg,
        theme.color("agent_gemini"),
        "the tool is in its role's colour"
    );
    assert_ne!(theme.color("agent_gemini"), theme.color("agent_codex"));
    assert_eq!(buf[(20, 3)].bg, theme.color("selected_bg"));
}

/// `ctxray report --json`'s message count for `path`.
fn report_messages(path: &Path) -> usize {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(["report", path.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["messages"].as_array().unwrap().len()
}

#[test]
fn counts_shown_once_parsed_are_the_reports() {
    let home = fake_home();
    let mut s = picker(home.path());
    let row_of = |s: &PickerState, tool: &str| -> String {
        let shot = screen(s, 120, 12);
        let hit = lines(&shot).into_iter().find(|l| l.contains(tool));
        hit.map(str::to_string).unwrap_or_default()
    };
    assert!(
        row_of(&s, "claude-code").contains("~437 lines"),
        "an estimate says so"
    );
    let found: Vec<Found> = s.found().to_vec();
    for f in &found {
        if let Some(n) = count(f) {
            s.set_count(&f.path, n);
        }
    }
    for f in found.iter().filter(|f| f.tool != Format::OPENHANDS) {
        let shown = s.found().iter().find(|g| g.path == f.path).unwrap().exact;
        assert_eq!(
            shown,
            Some(report_messages(&f.path)),
            "{}",
            f.path.display()
        );
    }
    let claude = &found[0];
    let n = report_messages(&claude.path);
    assert_ne!(
        Some(n),
        claude.messages,
        "the record count is not the message count"
    );
    let row = row_of(&s, "claude-code");
    assert!(row.contains(&format!(" {n} ")), "{row}");
    assert!(!row.contains('~'), "{row}");
}

#[test]
fn the_project_is_the_sessions_working_directory() {
    let home = fake_home();
    let s = picker(home.path());
    let cwd = |tool: Format, needle: &str| {
        s.found()
            .iter()
            .find(|f| f.tool == tool && f.path.display().to_string().contains(needle))
            .and_then(|f| f.cwd.clone())
    };
    assert_eq!(
        cwd(Format::CLAUDE_CODE, "").as_deref(),
        Some("/path/to/Demo")
    );
    assert_eq!(
        cwd(Format::CODEX, "sessions/2025").as_deref(),
        Some("/srv/app")
    );
    let shot = screen(&s, 120, 12);
    assert!(shot.contains("/path/to/Demo"), "{shot}");
    assert!(!shot.contains("2025/08/14"), "{shot}");
    // A session without a cwd falls back to its folder, decoded; one under home shows as `~`.
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    let dir = h.join(".claude/projects/-home-user-other");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("a.jsonl"),
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    )
    .unwrap();
    let inside = h.join(".claude/projects/x");
    fs::create_dir_all(&inside).unwrap();
    let line = serde_json::json!({
        "type": "user",
        "cwd": h.join("code/app").display().to_string(),
        "message": {"role": "user", "content": "there"},
    });
    fs::write(inside.join("b.jsonl"), format!("{line}\n")).unwrap();
    let s = picker(h);
    let shot = screen(&s, 120, 8);
    assert!(shot.contains("/home/user/other"), "{shot}");
    assert!(shot.contains("~/code/app"), "{shot}");
    // The filter finds a session by its working directory, and marks it.
    let mut s = s;
    type_str(&mut s, "code/app");
    assert_eq!(s.matches().len(), 1);
}

#[test]
fn cursor_sits_after_the_query() {
    let home = fake_home();
    let mut s = picker(home.path());
    assert_eq!(draw(&s, 80, 10).2, Some(Position::new(2, 1)));
    type_str(&mut s, "gem");
    assert_eq!(draw(&s, 80, 10).2, Some(Position::new(5, 1)));
    // A query longer than the field shows its end, the cursor still after it.
    type_str(&mut s, &"x".repeat(100));
    let (buf, _, cursor) = draw(&s, 40, 10);
    let input = lines(&text(&buf))[1].to_string();
    assert!(
        input.starts_with("> xxxx") && input.ends_with("0/6"),
        "{input}"
    );
    assert!(cursor.unwrap().x < 40 - 5);
}

#[test]
fn enter_opens_each_session_in_the_format_it_was_found_as() {
    let home = fake_home();
    let mut s = picker(home.path());
    let expected: Vec<(PathBuf, Format)> =
        s.found().iter().map(|f| (f.path.clone(), f.tool)).collect();
    assert_eq!(
        expected.iter().map(|(_, t)| t.name()).collect::<Vec<_>>(),
        [
            "claude-code",
            "codex",
            "openhands",
            "gemini-cli",
            "gemini-cli",
            "codex"
        ]
    );
    for (i, (path, tool)) in expected.iter().enumerate() {
        update(&mut s, PickerInput::Home);
        for _ in 0..i {
            update(&mut s, PickerInput::Down);
        }
        let got = update(&mut s, PickerInput::Enter);
        assert_eq!(got, Some(PickerOutcome::Open(path.clone(), Some(*tool))));
        let session = load_path(path, Some(*tool)).unwrap();
        assert!(!session.messages.is_empty(), "{}", path.display());
    }
    update(&mut s, PickerInput::End);
    let Some(PickerOutcome::Open(last, _)) = update(&mut s, PickerInput::Enter) else {
        panic!("Enter on the last row opens it");
    };
    assert!(last.ends_with("archived_sessions/rollout-2025-10-21T09-14-02-0199f1c2.jsonl"));
    // The selection follows the filter: the only match is the one opened.
    type_str(&mut s, "auth async");
    let Some(PickerOutcome::Open(path, Some(Format::GEMINI_CLI))) =
        update(&mut s, PickerInput::Enter)
    else {
        panic!("a filtered row opens");
    };
    assert!(path.starts_with(home.path().join(".gemini/tmp/tinyparse/chats")));
}

#[test]
fn esc_clears_the_filter_first_then_quits() {
    let home = fake_home();
    let mut s = picker(home.path());
    type_str(&mut s, "zzzq");
    assert!(s.matches().is_empty());
    assert_eq!(update(&mut s, PickerInput::Enter), None, "nothing to open");
    let shot = screen(&s, 100, 10);
    assert!(shot.contains("No session matches “zzzq”"), "{shot}");
    assert!(shot.contains(" 0/6"));
    assert_eq!(update(&mut s, PickerInput::Esc), None);
    assert_eq!((s.query(), s.matches().len()), ("", 6));
    assert_eq!(update(&mut s, PickerInput::Esc), Some(PickerOutcome::Quit));
    type_str(&mut s, "codex");
    assert_eq!(update(&mut s, PickerInput::Quit), Some(PickerOutcome::Quit));
}

#[test]
fn an_empty_home_says_where_it_looked_and_how_to_look_elsewhere() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("nobody");
    let mut s = picker(&home);
    assert!(s.found().is_empty());
    let shot = screen(&s, 160, 20);
    assert!(shot.contains("found 0 sessions in 0 roots"), "{shot}");
    assert!(shot.contains("No sessions found. Looked in:"), "{shot}");
    for (tool, dir, how) in [
        (
            "Claude Code",
            ".claude",
            "set CLAUDE_CONFIG_DIR to look elsewhere",
        ),
        ("Codex", ".codex", "set CODEX_HOME to look elsewhere"),
        (
            "OpenHands",
            ".openhands",
            "set OPENHANDS_PERSISTENCE_DIR to look elsewhere",
        ),
        (
            "Gemini CLI",
            ".gemini",
            "set GEMINI_CLI_HOME (its parent) to look elsewhere",
        ),
    ] {
        let root = home.join(dir).display().to_string();
        let at = shot
            .lines()
            .position(|l| l.starts_with(&format!("  {tool:<12}{root}  ")))
            .unwrap_or_else(|| panic!("{tool} at {root} in\n{shot}"));
        assert!(shot.lines().nth(at + 1).unwrap().contains(how), "{shot}");
    }
    assert!(shot.contains("ctxray path/to/session.jsonl"));
    assert_eq!(update(&mut s, PickerInput::Enter), None);
    assert_eq!(update(&mut s, PickerInput::Down), None);
    assert_eq!(update(&mut s, PickerInput::Esc), Some(PickerOutcome::Quit));
}

#[test]
fn discovering_failed_and_skipped_statuses() {
    let s = PickerState::new();
    let shot = screen(&s, 100, 16);
    assert!(shot.starts_with(" ctxray · sessions  looking for sessions…"));
    assert!(shot.contains("Looking for sessions in:"));
    assert!(
        shot.contains("  Claude Code ~/.claude  projects/*/*.jsonl"),
        "{shot}"
    );

    let mut failed = PickerState::new();
    failed.set_error(DiscoverError::NoHome.to_string());
    let shot = screen(&failed, 100, 12);
    let first = lines(&shot)[0].to_string();
    assert_eq!(
        first,
        " ctxray · sessions  cannot find the home directory (needed for ~/.claude, ~/.codex, …)"
    );
    assert!(shot.contains("Or open one directly"));
    assert_eq!(
        update(&mut failed, PickerInput::Esc),
        Some(PickerOutcome::Quit)
    );

    let home = fake_home();
    let mut d = discover(&Locations::under_home(home.path()));
    d.skipped = 2;
    d.found.retain(|f| f.tool == Format::CODEX);
    let mut s = PickerState::new().with_now(now());
    s.set_discovery(d);
    assert_eq!(
        lines(&screen(&s, 100, 8))[0],
        " ctxray · sessions  found 2 sessions in 1 root · 2 unreadable dirs skipped"
    );
}

#[test]
fn a_new_discovery_keeps_the_filter_and_the_selected_session() {
    let home = fake_home();
    let mut s = picker(home.path());
    type_str(&mut s, "codex");
    update(&mut s, PickerInput::Down);
    let chosen = s.selected_found().unwrap().path.clone();
    // A new session appears (newest of all) while the picker is open.
    place(
        &fixture("codex/older-cli.jsonl"),
        &home
            .path()
            .join(".codex/sessions/2025/10/01/rollout-new.jsonl"),
        ago(10),
    );
    s.set_discovery(discover(&Locations::under_home(home.path())));
    assert_eq!(s.query(), "codex");
    assert_eq!(s.matches().len(), 3);
    assert_eq!(s.selected_found().unwrap().path, chosen);
    assert_eq!(s.selected(), 2);
    assert!(lines(&screen(&s, 120, 10))[3].contains("just now"));
}

/// Many sessions: only the visible window is drawn, paging moves by the viewport.
#[test]
fn long_lists_page_scroll_and_click() {
    let template = Found {
        path: PathBuf::new(),
        tool: Format::CLAUDE_CODE,
        size_bytes: 2048,
        modified: ago(90),
        title: None,
        messages: Some(1),
        exact: Some(1),
        cwd: None,
    };
    let found: Vec<Found> = (0..10_000)
        .map(|i| Found {
            path: PathBuf::from(format!("/h/.claude/projects/p{i}/s{i}.jsonl")),
            title: Some(format!("session number {i}")),
            ..template.clone()
        })
        .collect();
    let mut s = PickerState::new().with_now(now());
    s.set_discovery(Discovery { found, skipped: 0 });
    let (_, rows, _) = draw(&s, 100, 14);
    assert_eq!(rows, 9);
    update(&mut s, PickerInput::Viewport(rows));
    update(&mut s, PickerInput::PageDown);
    assert_eq!((s.selected(), s.offset()), (8, 0));
    update(&mut s, PickerInput::PageDown);
    assert_eq!((s.selected(), s.offset()), (16, 8));
    update(&mut s, PickerInput::End);
    assert_eq!((s.selected(), s.offset()), (9_999, 9_991));
    let shot = screen(&s, 100, 14);
    let l = lines(&shot);
    assert!(l[3].contains("session number 9991"), "{shot}");
    assert!(
        l[11].starts_with("▌ claude-code session number 9999"),
        "{shot}"
    );
    assert!(l[11].ends_with("2 KB          1  1 min ago"), "{shot}");
    update(&mut s, PickerInput::Down);
    assert_eq!(s.selected(), 9_999, "no wrap past the end");
    update(&mut s, PickerInput::Home);
    update(&mut s, PickerInput::Up);
    assert_eq!((s.selected(), s.offset()), (0, 0));
    // A click selects a row; a click on the selected row opens it; below the list, nothing.
    assert_eq!(update(&mut s, PickerInput::Click(4)), None);
    assert_eq!(
        s.selected_found().unwrap().title.as_deref(),
        Some("session number 4")
    );
    assert_eq!(
        update(&mut s, PickerInput::Click(4)),
        Some(PickerOutcome::Open(
            PathBuf::from("/h/.claude/projects/p4/s4.jsonl"),
            Some(Format::CLAUDE_CODE)
        ))
    );
    type_str(&mut s, "number 9999");
    assert_eq!(
        s.selected_found().unwrap().title.as_deref(),
        Some("session number 9999"),
        "the substring match ranks above subsequence ones"
    );
    update(&mut s, PickerInput::Viewport(9));
    assert_eq!(update(&mut s, PickerInput::Click(50)), None);
    assert_eq!(s.selected(), 0);
}

#[test]
fn mouse_events_map_to_rows_of_the_drawn_list() {
    let screen = Rect::new(0, 0, 100, 14);
    let list = list_area(screen);
    assert_eq!(list, Rect::new(0, 3, 100, 9));
    let click = |column, row| MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column,
        row,
        modifiers: KeyModifiers::NONE,
    };
    assert_eq!(
        picker_mouse(click(10, 3), list),
        Some(PickerInput::Click(0))
    );
    assert_eq!(
        picker_mouse(click(10, 11), list),
        Some(PickerInput::Click(8))
    );
    assert_eq!(picker_mouse(click(10, 2), list), None, "the header row");
    assert_eq!(picker_mouse(click(10, 12), list), None, "the footer");
    let wheel = MouseEvent {
        kind: MouseEventKind::ScrollDown,
        ..click(0, 0)
    };
    assert_eq!(picker_mouse(wheel, list), Some(PickerInput::Down));
}

#[test]
fn keys_map_to_picker_inputs() {
    let key = |code, modifiers| KeyEvent::new(code, modifiers);
    let none = KeyModifiers::NONE;
    let ctrl = KeyModifiers::CONTROL;
    let cases = [
        (key(KeyCode::Char('j'), none), Some(PickerInput::Type('j'))),
        (key(KeyCode::Char('k'), none), Some(PickerInput::Type('k'))),
        (
            key(KeyCode::Char('Q'), KeyModifiers::SHIFT),
            Some(PickerInput::Type('Q')),
        ),
        (key(KeyCode::Char('n'), ctrl), Some(PickerInput::Down)),
        (key(KeyCode::Char('p'), ctrl), Some(PickerInput::Up)),
        (
            key(KeyCode::Char('u'), ctrl),
            Some(PickerInput::ClearFilter),
        ),
        (key(KeyCode::Char('w'), ctrl), Some(PickerInput::DeleteWord)),
        (key(KeyCode::Char('c'), ctrl), Some(PickerInput::Quit)),
        (key(KeyCode::Char('x'), ctrl), None),
        (key(KeyCode::Down, none), Some(PickerInput::Down)),
        (key(KeyCode::Up, none), Some(PickerInput::Up)),
        (key(KeyCode::PageDown, none), Some(PickerInput::PageDown)),
        (key(KeyCode::PageUp, none), Some(PickerInput::PageUp)),
        (key(KeyCode::Home, none), Some(PickerInput::Home)),
        (key(KeyCode::End, none), Some(PickerInput::End)),
        (key(KeyCode::Backspace, none), Some(PickerInput::Backspace)),
        (key(KeyCode::Enter, none), Some(PickerInput::Enter)),
        (key(KeyCode::Esc, none), Some(PickerInput::Esc)),
        (key(KeyCode::Tab, none), None),
    ];
    for (event, want) in cases {
        assert_eq!(picker_input(event), want, "{event:?}");
    }
    let mut release = key(KeyCode::Char('a'), none);
    release.kind = KeyEventKind::Release;
    assert_eq!(picker_input(release), None);
}

#[test]
fn tiny_areas_never_panic() {
    let home = fake_home();
    let mut s = picker(home.path());
    type_str(&mut s, "a");
    let empty = PickerState::new();
    for w in 0..24 {
        for h in 0..8 {
            draw(&s, w, h);
            draw(&empty, w, h);
        }
    }
    // Title and filter first; a list row only once there is room for one.
    assert_eq!(draw(&s, 30, 2).1, 0);
    assert_eq!(draw(&s, 30, 3).1, 1);
    assert_eq!(
        lines(&screen(&s, 30, 3))[2],
        "▌ Empty Repo Setup: CLAUDE.md"
    );
}
