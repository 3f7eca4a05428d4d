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

/// The sRGB of a colour as a terminal with xterm's default palette shows it.
fn rgb(c: Color) -> (u8, u8, u8) {
    match c {
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Black => (0, 0, 0),
        Color::Red => (0xcd, 0, 0),
        Color::Green => (0, 0xcd, 0),
        Color::Yellow => (0xcd, 0xcd, 0),
        Color::Blue => (0, 0, 0xee),
        Color::Magenta => (0xcd, 0, 0xcd),
        Color::Cyan => (0, 0xcd, 0xcd),
        Color::Gray => (0xe5, 0xe5, 0xe5),
        Color::DarkGray => (0x7f, 0x7f, 0x7f),
        Color::LightRed => (0xff, 0, 0),
        Color::LightGreen => (0, 0xff, 0),
        Color::LightYellow => (0xff, 0xff, 0),
        Color::LightBlue => (0x5c, 0x5c, 0xff),
        Color::LightMagenta => (0xff, 0, 0xff),
        Color::LightCyan => (0, 0xff, 0xff),
        Color::White => (0xff, 0xff, 0xff),
        other => panic!("no fixed colour for {other:?}"),
    }
}

/// WCAG 2 contrast ratio of two colours (1 to 21).
fn contrast(a: Color, b: Color) -> f64 {
    let luminance = |c: Color| {
        let (r, g, b) = rgb(c);
        let lin = |v: u8| {
            let v = f64::from(v) / 255.0;
            if v <= 0.03928 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    };
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// Every role of every bundled theme can be read on the background the theme is for (white
/// for `light`, black for the others, named colours as xterm's palette shows them): text at
/// WCAG AA's 4.5:1, the bars and rules drawn as blocks at its 3:1 for graphics; and titles on
/// the selected row's background at 4.5:1.
#[test]
fn every_role_of_every_theme_has_the_contrast_to_be_read() {
    const GRAPHICS: &[&str] = &[
        "bar",
        "bar_overhead",
        "gauge",
        "gauge_high",
        "group",
        "group_broken",
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
    let mut failures = Vec::new();
    let mut checked = 0;
    for name in ["dark", "light", "high-contrast"] {
        let background = if name == "light" {
            Color::White
        } else {
            Color::Black
        };
        let text = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
        let mut roles = std::collections::BTreeMap::new();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let value = value.trim().trim_matches('"');
            if let Ok(color) = value.parse::<Color>() {
                roles.insert(key.trim().to_string(), color);
            }
        }
        let selected = roles.remove("selected_bg").expect("a selection background");
        for (role, color) in &roles {
            let least = if GRAPHICS.contains(&role.as_str()) {
                3.0
            } else {
                4.5
            };
            let ratio = contrast(*color, background);
            checked += 1;
            if ratio < least {
                failures.push(format!("{name} {role} {color:?}: {ratio:.2} < {least}"));
            }
        }
        let title = contrast(roles["title"], selected);
        if title < 4.5 {
            failures.push(format!("{name} title on selected_bg: {title:.2} < 4.5"));
        }
    }
    assert!(checked >= 90, "only {checked} roles read");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The measure itself: black on white is 21:1, and light grey on white fails.
    assert!((contrast(Color::Black, Color::White) - 21.0).abs() < 1e-9);
    assert!(contrast(Color::Gray, Color::White) < 1.5);
}

#[test]
fn without_colour_each_fate_and_each_count_keeps_a_glyph_of_its_own() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/samples/claude-code-demo.jsonl");
    let analysis = Analysis::new(
        load_path(&path, None).unwrap(),
        &Registry::bundled(),
        &Options::default(),
    );
    let sets = vec!["context_window=6000".to_string()];
    let mut state = settled(AppState::new(analysis, Some("dimos".into()), sets));
    let plain = Theme::load_with(Some("dark"), None, ColorDepth::None).unwrap();
    let edge = |state: &AppState, theme: &Theme| -> String {
        let buf = frame(state, theme, 160, 50);
        (0..buf.area.height)
            .map(|y| buf[(0, y)].symbol().to_string())
            .collect()
    };
    let shown = edge(&state, &plain);
    assert!(shown.contains('░') && shown.contains('▌'), "{shown}");
    let coloured = Theme::load_with(Some("dark"), None, ColorDepth::TrueColor).unwrap();
    assert!(!edge(&state, &coloured).contains('░'));
    // The timeline's two counts: a line and dots.
    ctxray::tui::jobs::step(&mut state, ctxray::tui::Msg::ShowTimeline);
    let text = text_of(&frame(&state, &plain, 160, 50));
    assert!(
        text.contains("━ exact") && text.contains("· reported"),
        "{text}"
    );
}
