//! Themes on real frames (TestBackend): the detail pane's highlighting of JSON and fenced code,
//! folding, and what a frame holds without colour and at 16 or 256 colours.

use std::collections::BTreeSet;

use ctxray::analysis::{Analysis, Options};
use ctxray::formats::load_path;
use ctxray::session::{Part, Session};
use ctxray::tokens::Registry;
use ctxray::tui::color_depth::ColorDepth;
use ctxray::tui::jobs::settled;
use ctxray::tui::state::AppState;
use ctxray::tui::theme::Theme;
use ctxray::tui::views;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;

fn demo() -> AppState {
    state_of(demo_session())
}

fn demo_session() -> Session {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/samples/claude-code-demo.jsonl");
    load_path(&path, None).unwrap()
}

fn state_of(session: Session) -> AppState {
    let analysis = Analysis::new(session, &Registry::bundled(), &Options::default());
    settled(AppState::new(analysis, None, Vec::new()))
}

fn frame(state: &AppState, theme: &Theme, w: u16, h: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| {
            views::render(f, state, theme);
        })
        .unwrap();
    terminal.backend().buffer().clone()
}

fn row_text(buf: &Buffer, y: u16) -> String {
    (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect()
}

fn text_of(buf: &Buffer) -> String {
    (0..buf.area.height)
        .map(|y| row_text(buf, y))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where `needle` starts on screen (column in cells, row).
fn find(buf: &Buffer, needle: &str) -> Option<(u16, u16)> {
    (0..buf.area.height).find_map(|y| {
        let row: Vec<&str> = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        let first = needle.chars().next()?.to_string();
        (0..row.len())
            .filter(|&x| row[x] == first)
            .find(|&x| row[x..].concat().starts_with(needle))
            .map(|x| (x as u16, y))
    })
}

/// The foreground colours of the non-blank cells of `len` cells from `at`.
fn colours_at(buf: &Buffer, (x, y): (u16, u16), len: u16) -> BTreeSet<String> {
    (x..x + len)
        .map(|x| &buf[(x, y)])
        .filter(|c| !c.symbol().trim().is_empty())
        .map(|c| format!("{:?}", c.fg))
        .collect()
}

fn select_part(state: &mut AppState, wanted: impl Fn(&Part) -> bool) {
    let found = state.analysis.session.messages.iter().find(|m| {
        m.parts.iter().any(|p| match p {
            Part::ToolResult { content, .. } => content.iter().any(&wanted),
            p => wanted(p),
        })
    });
    state.selected = found.expect("the demo session has such a part").index;
}

fn calls(name: &'static str) -> impl Fn(&Part) -> bool {
    move |p| matches!(p, Part::ToolCall { name: n, .. } if n == name)
}

fn text_with(needle: &'static str) -> impl Fn(&Part) -> bool {
    move |p| matches!(p, Part::Text { text } if text.contains(needle))
}

#[test]
fn tool_call_arguments_are_pretty_printed_json_in_several_colours() {
    let mut state = demo();
    select_part(&mut state, calls("Glob"));
    let buf = frame(&state, &Theme::dark(), 160, 50);
    let at = find(&buf, "\"pattern\": \"**/*.md\"").expect("pretty-printed arguments");
    let colours = colours_at(&buf, at, 21);
    assert!(colours.len() >= 2, "key and value differ: {colours:?}");

    let plain = frame(&state, &Theme::dark().with_depth(ColorDepth::None), 160, 50);
    assert_eq!(text_of(&plain), text_of(&buf), "colour changes no text");
    let colours = colours_at(&plain, at, 21);
    assert_eq!(colours, BTreeSet::from(["Reset".to_string()]));
}

#[test]
fn a_json_tool_result_is_pretty_printed_and_highlighted() {
    let is_json_result = text_with("{\"success\":true");
    let child = demo_session().children.into_iter().find(|c| {
        c.messages.iter().flat_map(|m| &m.parts).any(|p| {
            matches!(p, Part::ToolResult { content, .. } if content.iter().any(&is_json_result))
        })
    });
    let mut state = state_of(child.expect("a subagent's KillBash result"));
    select_part(&mut state, is_json_result);
    let buf = frame(&state, &Theme::dark(), 160, 50);
    let at = find(&buf, "\"success\": true").expect("the result pretty-printed");
    assert!(colours_at(&buf, at, 15).len() >= 2);
}

#[test]
fn fenced_code_in_text_is_highlighted_and_prose_is_not() {
    let mut state = demo();
    select_part(&mut state, text_with("```typescript"));
    let buf = frame(&state, &Theme::dark(), 160, 80);
    let code = find(&buf, "} = useTodos();").expect("the fenced block");
    assert!(
        colours_at(&buf, code, 15).len() >= 2,
        "{:?}",
        colours_at(&buf, code, 15)
    );
    let prose = find(&buf, "The hook provides a clean").expect("the prose before it");
    assert_eq!(colours_at(&buf, prose, 25).len(), 1);
}

#[test]
fn a_long_part_is_folded_with_the_count_of_hidden_lines() {
    let mut state = demo();
    select_part(&mut state, text_with("## Example Usage"));
    let buf = frame(&state, &Theme::dark(), 200, 120);
    let screen = text_of(&buf);
    assert!(
        screen.contains("… 23 more lines"),
        "83 lines, 60 shown:\n{screen}"
    );
    assert!(screen.contains("```text"), "line 52 is shown");
    assert!(!screen.contains("Key Benefits"), "line 73 is folded away");
}

#[test]
fn without_colour_a_frame_has_none_and_the_selection_is_reversed() {
    let mut state = demo();
    select_part(&mut state, calls("Glob"));
    let theme = Theme::load_with(Some("light"), None, ColorDepth::None).unwrap();
    let buf = frame(&state, &theme, 160, 50);
    for cell in buf.content() {
        assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset), "{cell:?}");
    }
    let reversed: Vec<u16> = (0..buf.area.height)
        .filter(|&y| (0..buf.area.width).any(|x| buf[(x, y)].modifier.contains(Modifier::REVERSED)))
        .collect();
    assert_eq!(reversed.len(), 1, "one selected row: {reversed:?}");
    let row = row_text(&buf, reversed[0]);
    let index = format!("{:>5}", state.selected);
    assert!(row.contains(&index) && row.contains("Glob"), "{row}");
}

#[test]
fn sixteen_and_256_colour_terminals_get_only_colours_they_have() {
    let mut state = demo();
    select_part(&mut state, calls("Glob"));
    for name in ["dark", "light", "high-contrast"] {
        let at16 = Theme::load_with(Some(name), None, ColorDepth::Ansi16).unwrap();
        let buf = frame(&state, &at16, 160, 50);
        let at = find(&buf, "\"pattern\"").unwrap();
        assert!(
            colours_at(&buf, at, 21).len() >= 2,
            "{name}: still highlighted"
        );
        for cell in buf.content() {
            for c in [cell.fg, cell.bg] {
                assert!(
                    !matches!(c, Color::Rgb(..) | Color::Indexed(_)),
                    "{name}: {c:?}"
                );
            }
        }
        let at256 = Theme::load_with(Some(name), None, ColorDepth::Ansi256).unwrap();
        let buf = frame(&state, &at256, 160, 50);
        let indexed = buf
            .content()
            .iter()
            .any(|c| matches!(c.fg, Color::Indexed(_)));
        assert!(indexed, "{name}: RGB became palette indices");
        for cell in buf.content() {
            assert!(!matches!(cell.fg, Color::Rgb(..)), "{name}: {:?}", cell.fg);
            assert!(!matches!(cell.bg, Color::Rgb(..)), "{name}: {:?}", cell.bg);
        }
    }
}
