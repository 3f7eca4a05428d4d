//! The part of a text that is shown: JSON pretty-printed, the first lines only, each cut to
//! `MAX_LINE_BYTES`, copied out so that highlighting it never touches the whole text again.
//!
//! Owns: pretty-printing, the window, cutting long lines, recognising fences, and plain lines.
//! Must not use syntect (`syntax.rs` does) or keep anything between calls.

use std::borrow::Cow;

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::Kind;
use crate::text::thousands;

/// Bytes of one line that are highlighted and shown; the rest is counted, not drawn.
pub const MAX_LINE_BYTES: usize = 1_000;
/// Larger JSON is not parsed to be pretty-printed (that would cost every first frame showing it).
pub const PRETTY_LIMIT: usize = 256 * 1024;

/// The first lines of a text, ready to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Each shown line, cut, with the number of characters cut off it.
    pub lines: Vec<(String, usize)>,
    /// Lines in the whole text (after pretty-printing).
    pub total: usize,
    /// Highlight the window as JSON (otherwise as prose with fenced code).
    pub json: bool,
}

impl Window {
    pub fn new(text: &str, kind: Kind, max_lines: usize) -> Window {
        let (text, json) = prepare(text, kind);
        let lines = text
            .lines()
            .take(max_lines)
            .map(|l| {
                let (shown, hidden) = cut(l);
                // Session text never reaches the terminal raw: controls are shown, not run.
                (crate::text::screen_line(shown).into_owned(), hidden)
            })
            .collect();
        Window {
            lines,
            total: text.lines().count(),
            json,
        }
    }

    /// Whether highlighting could change anything: JSON, or prose with a fence in the window.
    pub fn has_code(&self) -> bool {
        self.json || self.lines.iter().any(|(l, _)| opens(l).is_some())
    }

    pub fn plain(&self, style: Style) -> Vec<Line<'static>> {
        self.lines
            .iter()
            .map(|(l, hidden)| {
                let mut spans = vec![Span::styled(l.clone(), style)];
                spans.extend(cut_marker(*hidden, style));
                Line::from(spans)
            })
            .collect()
    }
}

/// The text to show and whether it is JSON: arguments and JSON results are pretty-printed.
fn prepare(text: &str, kind: Kind) -> (Cow<'_, str>, bool) {
    if kind == Kind::Text {
        return (Cow::Borrowed(text), false);
    }
    let trimmed = text.trim();
    let structured = (trimmed.starts_with('{') && trimmed.ends_with('}'))
        || (trimmed.starts_with('[') && trimmed.ends_with(']'));
    if structured && text.len() <= PRETTY_LIMIT {
        let pretty = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| serde_json::to_string_pretty(&v).ok());
        if let Some(pretty) = pretty {
            return (Cow::Owned(pretty), true);
        }
    }
    (Cow::Borrowed(text), kind == Kind::Json || structured)
}

/// A line at most `MAX_LINE_BYTES` long (cut on a character boundary) and the chars cut off.
pub fn cut(line: &str) -> (&str, usize) {
    if line.len() <= MAX_LINE_BYTES {
        return (line, 0);
    }
    let mut end = MAX_LINE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    (&line[..end], line[end..].chars().count())
}

/// ` … +N chars` after a cut line, dimmed.
pub fn cut_marker(hidden: usize, style: Style) -> Option<Span<'static>> {
    (hidden > 0).then(|| {
        Span::styled(
            format!(" … +{} chars", thousands(hidden as u64)),
            style.add_modifier(Modifier::DIM),
        )
    })
}

/// A fence opening (```` ``` ```` or `~~~`, three or more): its marker and its language.
pub fn opens(line: &str) -> Option<(&str, &str)> {
    let body = line.trim_start();
    let fence = body.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let run = body.len() - body.trim_start_matches(fence).len();
    if run < 3 {
        return None;
    }
    let info = body[run..].trim();
    if fence == '`' && info.contains('`') {
        return None;
    }
    let language = info
        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .next()
        .unwrap_or("");
    Some((&body[..run], language))
}

/// A fence closing `marker`: the same character, at least as many, nothing else on the line.
pub fn closes(line: &str, marker: &str) -> bool {
    let body = line.trim();
    let Some(fence) = marker.chars().next() else {
        return false;
    };
    body.len() >= marker.len() && body.chars().all(|c| c == fence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_pretty_printed_and_counted_whole() {
        let w = Window::new(r#"{"pattern":"**/*.md","path":"~/x"}"#, Kind::Json, 2);
        assert_eq!(w.total, 4);
        assert!(w.json);
        let shown: Vec<&str> = w.lines.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(shown, ["{", r#"  "pattern": "**/*.md","#]);
    }

    #[test]
    fn results_are_json_only_when_structured() {
        assert!(Window::new("[1, 2]", Kind::MaybeJson, 60).json);
        assert!(!Window::new("42", Kind::MaybeJson, 60).json);
        assert!(!Window::new("total 8\ndrwxr-xr-x", Kind::MaybeJson, 60).json);
        assert!(Window::new("{\"cut\": \"mid", Kind::Json, 60).json);
        let broken = Window::new("{\"a\": 1,}", Kind::MaybeJson, 60);
        assert!(broken.json, "still lexically JSON");
        assert_eq!(broken.lines[0].0, "{\"a\": 1,}", "not pretty-printed");
        assert!(!Window::new("```json\n{}\n```", Kind::Text, 60).json);
    }

    #[test]
    fn long_lines_are_cut_on_a_character_boundary_and_counted() {
        let line = format!("{}é{}", "a".repeat(MAX_LINE_BYTES - 1), "b".repeat(2_000));
        let w = Window::new(&line, Kind::Text, 60);
        let (shown, hidden) = &w.lines[0];
        assert_eq!(shown.len(), MAX_LINE_BYTES - 1);
        assert_eq!(*hidden, 2_001);
        let text: String = w.plain(Style::default())[0]
            .spans
            .iter()
            .map(|s| s.content.to_string())
            .collect();
        assert!(text.ends_with("a … +2,001 chars"), "{text}");
    }

    #[test]
    fn fences_open_with_a_language_and_close_with_the_same_run() {
        assert_eq!(opens("```rust"), Some(("```", "rust")));
        assert_eq!(opens("  ~~~~ python title=x"), Some(("~~~~", "python")));
        assert_eq!(opens("```"), Some(("```", "")));
        assert_eq!(opens("```js{1,3}"), Some(("```", "js")));
        assert_eq!(opens("``x``"), None);
        assert_eq!(opens("```a`b"), None);
        assert!(closes("```", "```"));
        assert!(closes("  `````  ", "```"));
        assert!(!closes("``", "```"));
        assert!(!closes("~~~", "```"));
        assert!(!closes("``` rust", "```"));
        assert!(Window::new("see:\n```sh\nls\n```", Kind::Text, 60).has_code());
        assert!(!Window::new("no code here", Kind::Text, 60).has_code());
    }
}
