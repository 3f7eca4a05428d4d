//! syntect: its syntax and theme sets (each loaded once, on first use), the syntect themes a
//! ctxray theme may name, and colouring a `Window` with one of them.
//!
//! Owns: the list of syntect's bundled themes, the `.tmTheme` files embedded from `themes/`,
//! language aliases for fence info strings, and syntect styles → ratatui styles at a colour
//! depth. Must not decide what is shown (`window.rs`) nor cache or schedule work (`highlight.rs`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::highlighting::{
    FontStyle, HighlightIterator, HighlightState, Highlighter, Theme as SyntectTheme, ThemeSet,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};

#[cfg(test)]
use super::window::MAX_LINE_BYTES;
use super::window::{closes, cut_marker, opens, Window};
use crate::tui::color_depth::ColorDepth;

/// syntect's bundled themes (its `default-themes` feature).
const SYNTECT_THEMES: &[&str] = &[
    "base16-ocean.dark",
    "base16-eighties.dark",
    "base16-mocha.dark",
    "base16-ocean.light",
    "InspiredGitHub",
    "Solarized (dark)",
    "Solarized (light)",
];

/// `.tmTheme` files bundled in `themes/`, named by their file name.
pub(super) const EMBEDDED_THEMES: &[(&str, &str)] = &[
    ("dark.tmTheme", include_str!("../../../themes/dark.tmTheme")),
    (
        "light.tmTheme",
        include_str!("../../../themes/light.tmTheme"),
    ),
    (
        "high-contrast.tmTheme",
        include_str!("../../../themes/high-contrast.tmTheme"),
    ),
];

/// Fence info strings syntect does not know by that name, and the syntax that fits them.
const LANGUAGE_ALIASES: &[(&str, &str)] = &[
    ("shell", "sh"),
    ("console", "sh"),
    ("zsh", "sh"),
    ("patch", "diff"),
    ("jsonc", "json"),
    ("json5", "json"),
    ("jsonl", "json"),
    ("ts", "js"),
    ("tsx", "js"),
    ("typescript", "js"),
    ("jsx", "js"),
    ("py3", "py"),
];

/// Whether `name` is a syntect theme a ctxray theme may use (no theme is loaded to answer).
pub fn syntax_theme_exists(name: &str) -> bool {
    SYNTECT_THEMES.contains(&name) || EMBEDDED_THEMES.iter().any(|(n, _)| *n == name)
}

/// Every name `syntax = "…"` accepts.
pub fn syntax_theme_names() -> Vec<&'static str> {
    let embedded = EMBEDDED_THEMES.iter().map(|(n, _)| *n);
    SYNTECT_THEMES.iter().copied().chain(embedded).collect()
}

/// The background a syntect theme was drawn for, to check it suits a light or dark theme.
pub fn syntax_theme_background(name: &str) -> Option<(u8, u8, u8)> {
    let bg = syntect_theme(name)?.settings.background?;
    Some((bg.r, bg.g, bg.b))
}

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

pub(super) fn syntect_theme(name: &str) -> Option<&'static SyntectTheme> {
    static THEMES: OnceLock<BTreeMap<String, SyntectTheme>> = OnceLock::new();
    let themes = THEMES.get_or_init(|| {
        let mut themes = ThemeSet::load_defaults().themes;
        for (file, text) in EMBEDDED_THEMES {
            let mut reader = std::io::Cursor::new(text.as_bytes());
            if let Ok(theme) = ThemeSet::load_from_reader(&mut reader) {
                themes.insert((*file).to_string(), theme);
            }
        }
        themes
    });
    themes.get(name)
}

fn syntax_for(language: &str) -> Option<&'static SyntaxReference> {
    if language.is_empty() {
        return None;
    }
    let language = language.to_ascii_lowercase();
    let token = LANGUAGE_ALIASES
        .iter()
        .find(|(alias, _)| *alias == language)
        .map_or(language.as_str(), |(_, to)| to);
    syntaxes().find_syntax_by_token(token)
}

/// The window coloured by `theme` at `depth`; text outside code in `style`.
pub fn highlight(
    window: &Window,
    theme: &SyntectTheme,
    depth: ColorDepth,
    style: Style,
) -> Vec<Line<'static>> {
    let painter = Painter { depth, style };
    if window.json {
        let mut code = syntax_for("json").map(|s| Code::new(s, theme));
        return window
            .lines
            .iter()
            .map(|(l, hidden)| painter.line(code.as_mut(), l, *hidden))
            .collect();
    }
    let mut out = Vec::with_capacity(window.lines.len());
    let mut fence: Option<(String, Option<Code>)> = None;
    for (line, hidden) in &window.lines {
        match fence.as_mut() {
            Some((marker, _)) if closes(line, marker) => {
                out.push(painter.line(None, line, *hidden));
                fence = None;
            }
            Some((_, code)) => out.push(painter.line(code.as_mut(), line, *hidden)),
            None => {
                if let Some((marker, language)) = opens(line) {
                    let code = syntax_for(language).map(|s| Code::new(s, theme));
                    fence = Some((marker.to_string(), code));
                }
                out.push(painter.line(None, line, *hidden));
            }
        }
    }
    out
}

/// syntect's state through one block of code.
struct Code<'t> {
    parse: ParseState,
    highlight: HighlightState,
    highlighter: Highlighter<'t>,
}

impl<'t> Code<'t> {
    fn new(syntax: &SyntaxReference, theme: &'t SyntectTheme) -> Code<'t> {
        let highlighter = Highlighter::new(theme);
        Code {
            parse: ParseState::new(syntax),
            highlight: HighlightState::new(&highlighter, ScopeStack::new()),
            highlighter,
        }
    }

    /// The styled pieces of `line` (which ends in a newline). A cut line leaves the state as it
    /// found it: its end was never read, so whatever it opened (a string, a comment) would
    /// otherwise swallow the lines after it; skipping it whole is the better guess.
    fn pieces<'l>(
        &mut self,
        line: &'l str,
        cut: bool,
    ) -> Option<Vec<(syntect::highlighting::Style, &'l str)>> {
        let saved = cut.then(|| (self.parse.clone(), self.highlight.clone()));
        let ops = self.parse.parse_line(line, syntaxes()).ok();
        let pieces = ops.map(|ops| {
            HighlightIterator::new(&mut self.highlight, &ops, line, &self.highlighter).collect()
        });
        if let Some((parse, highlight)) = saved {
            self.parse = parse;
            self.highlight = highlight;
        }
        pieces
    }
}

struct Painter {
    depth: ColorDepth,
    style: Style,
}

impl Painter {
    /// One line, coloured by `code` when there is one and it can; in the plain style otherwise.
    fn line(&self, code: Option<&mut Code<'_>>, line: &str, hidden: usize) -> Line<'static> {
        let with_newline = format!("{line}\n");
        let pieces = code.and_then(|c| c.pieces(&with_newline, hidden > 0));
        let mut spans: Vec<Span<'static>> = match pieces {
            Some(pieces) => pieces
                .into_iter()
                .map(|(s, piece)| (s, piece.trim_end_matches('\n')))
                .filter(|(_, piece)| !piece.is_empty())
                .map(|(s, piece)| Span::styled(piece.to_string(), self.style_of(s)))
                .collect(),
            None => vec![Span::styled(line.to_string(), self.style)],
        };
        spans.extend(cut_marker(hidden, self.style));
        Line::from(spans)
    }

    fn style_of(&self, s: syntect::highlighting::Style) -> Style {
        let rgb = Color::Rgb(s.foreground.r, s.foreground.g, s.foreground.b);
        let mut style = Style::default().fg(self.depth.degrade(rgb));
        for (font, modifier) in [
            (FontStyle::BOLD, Modifier::BOLD),
            (FontStyle::ITALIC, Modifier::ITALIC),
            (FontStyle::UNDERLINE, Modifier::UNDERLINED),
        ] {
            if s.font_style.contains(font) {
                style = style.add_modifier(modifier);
            }
        }
        style
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::highlight::Kind;

    fn colours(lines: &[Line]) -> std::collections::BTreeSet<String> {
        lines
            .iter()
            .flat_map(|l| &l.spans)
            .filter_map(|s| s.style.fg.map(|c| c.to_string()))
            .collect()
    }

    #[test]
    fn every_listed_theme_loads_and_the_embedded_ones_are_listed() {
        for name in syntax_theme_names() {
            assert!(syntect_theme(name).is_some(), "{name}");
        }
        let bundled = ThemeSet::load_defaults().themes.len();
        assert_eq!(syntax_theme_names().len(), bundled + EMBEDDED_THEMES.len());
        assert!(!syntax_theme_exists("Monokai"));
    }

    #[test]
    fn the_high_contrast_theme_keeps_every_colour_readable_on_black() {
        let theme = syntect_theme("high-contrast.tmTheme").unwrap();
        let luminance = |c: syntect::highlighting::Color| {
            let lin = |v: u8| {
                let v = f64::from(v) / 255.0;
                if v <= 0.03928 {
                    v / 12.92
                } else {
                    ((v + 0.055) / 1.055).powf(2.4)
                }
            };
            0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b)
        };
        assert!(theme.scopes.len() >= 10);
        for item in &theme.scopes {
            if let Some(fg) = item.style.foreground {
                let ratio = (luminance(fg) + 0.05) / 0.05;
                assert!(ratio >= 7.0, "{:?}: {ratio:.1}", item.scope);
            }
        }
    }

    #[test]
    fn json_keys_strings_and_numbers_get_their_own_colours() {
        let window = Window::new(r#"{"pattern": "**/*.md", "n": 3}"#, Kind::Json, 60);
        let theme = syntect_theme("base16-ocean.dark").unwrap();
        let lines = highlight(&window, theme, ColorDepth::TrueColor, Style::default());
        assert_eq!(lines.len(), 4);
        let text: String = lines[1].spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, r#"  "pattern": "**/*.md","#);
        assert!(colours(&lines).len() >= 3, "{:?}", colours(&lines));
        let at16 = highlight(&window, theme, ColorDepth::Ansi16, Style::default());
        for c in colours(&at16) {
            assert!(!c.starts_with('#'), "{c} is not one of the 16");
        }
    }

    #[test]
    fn fenced_code_is_coloured_in_its_language_and_prose_is_not() {
        let text = "Run this:\n```diff\n-old\n+new\n```\nthen `ls`.\n```shell\nls -la | wc -l\n```";
        let window = Window::new(text, Kind::Text, 60);
        let theme = syntect_theme("base16-ocean.dark").unwrap();
        let prose = Style::default().fg(Color::White);
        let lines = highlight(&window, theme, ColorDepth::TrueColor, prose);
        assert_eq!(lines.len(), 9);
        for i in [0, 1, 4, 5, 6, 8] {
            assert_eq!(
                lines[i].spans[0].style, prose,
                "line {i} is prose or a fence"
            );
        }
        let removed = lines[2].spans[0].style.fg;
        let added = lines[3].spans[0].style.fg;
        assert!(
            removed.is_some() && removed != added,
            "{removed:?} {added:?}"
        );
        assert!(colours(&lines[7..8]).len() >= 2, "shell is coloured");
    }

    #[test]
    fn a_cut_line_does_not_swallow_the_lines_after_it() {
        let long = "x".repeat(MAX_LINE_BYTES * 2);
        let text = format!(r#"{{"content": "{long}", "path": "src"}}"#);
        let window = Window::new(&text, Kind::Json, 60);
        let theme = syntect_theme("dark.tmTheme").unwrap();
        let lines = highlight(&window, theme, ColorDepth::TrueColor, Style::default());
        let style_of = |line: &Line, word: &str| {
            let span = line.spans.iter().find(|s| s.content == word);
            span.map(|s| s.style)
                .unwrap_or_else(|| panic!("{word} in {line:?}"))
        };
        let short = Window::new(r#"{"path": "src"}"#, Kind::Json, 60);
        let expected = highlight(&short, theme, ColorDepth::TrueColor, Style::default());
        assert_eq!(style_of(&lines[2], "path"), style_of(&expected[1], "path"));
        assert_eq!(style_of(&lines[2], ":"), style_of(&expected[1], ":"));
        assert_eq!(style_of(&lines[2], "src"), style_of(&expected[1], "src"));
    }

    #[test]
    fn an_unknown_language_stays_plain() {
        let window = Window::new("```brainfuck\n+++.\n```", Kind::Text, 60);
        let theme = syntect_theme("InspiredGitHub").unwrap();
        let lines = highlight(&window, theme, ColorDepth::TrueColor, Style::default());
        assert_eq!(lines[1].spans[0].style, Style::default());
    }
}
