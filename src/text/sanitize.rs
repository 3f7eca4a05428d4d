//! The sanitiser: control characters and escape sequences are shown, never executed.
//!
//! Convention (the same in every text output, Markdown and error message):
//! - C0 controls and DEL become their Unicode Control Pictures: ESC → `␛`, BEL → `␇`,
//!   BS → `␈`, CR → `␍`, NUL → `␀`, DEL → `␡` (U+2400 + code, DEL U+2421). A whole escape
//!   sequence such as `ESC]0;title BEL` therefore reads `␛]0;title␇`: every byte stays visible.
//! - C1 controls (U+0080–U+009F), bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
//!   U+061C) and the line/paragraph separators U+2028/U+2029 become `\u{…}`, e.g. `\u{9b}`,
//!   `\u{202e}`.
//! - `\n` and `\t` are kept in a multi-line [`block`] and shown as `␊` and `␉` in an [`inline`]
//!   field.
//! - A line whose first non-blank characters are `::` or `##[` (a GitHub Actions workflow
//!   command) gets a visible `·` in front of them: `·::error::…` ([`neutralize_line`]).
//!
//! Owns: those rules. Must not: do IO or cut text before it is sanitised (a cut may not leave
//! half a sequence, so [`clip`] sanitises first).

use std::borrow::Cow;

/// Whether line breaks and tabs are part of the text (a block) or must be shown (one field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Inline,
    Block,
}

/// The marker put in front of a workflow-command prefix at the start of a line.
pub const WORKFLOW_MARK: char = '·';

fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// True when `c` must not reach an output as itself in `mode`.
pub fn is_unsafe(c: char, mode: Mode) -> bool {
    match c {
        '\n' | '\t' => mode == Mode::Inline,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' => true,
        _ => is_bidi(c),
    }
}

fn push_visible(out: &mut String, c: char) {
    let code = u32::from(c);
    match code {
        0..=0x1f => out.push(char::from_u32(0x2400 + code).unwrap_or('?')),
        0x7f => out.push('\u{2421}'),
        _ => out.push_str(&format!("\\u{{{code:x}}}")),
    }
}

/// Shows every unsafe character of `s` in `mode`; borrows when there is none.
pub fn sanitize(s: &str, mode: Mode) -> Cow<'_, str> {
    if !s.chars().any(|c| is_unsafe(c, mode)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c, mode) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One field on one line (a tool name, a call id, a file name, a preview).
pub fn inline(s: &str) -> Cow<'_, str> {
    sanitize(s, Mode::Inline)
}

/// Multi-line text: line breaks and tabs kept, every line neutralised for workflow commands.
pub fn block(s: &str) -> Cow<'_, str> {
    let clean = sanitize(s, Mode::Block);
    if !clean.split('\n').any(needs_mark) {
        return clean;
    }
    let lines: Vec<Cow<'_, str>> = clean.split('\n').map(neutralize_line).collect();
    Cow::Owned(lines.join("\n"))
}

fn needs_mark(line: &str) -> bool {
    let rest = line.trim_start();
    rest.starts_with("::") || rest.starts_with("##[")
}

/// Puts [`WORKFLOW_MARK`] in front of a workflow-command prefix that starts `line` (after blanks,
/// which the runner skips).
pub fn neutralize_line(line: &str) -> Cow<'_, str> {
    if !needs_mark(line) {
        return Cow::Borrowed(line);
    }
    let blanks = line.len() - line.trim_start().len();
    let mut out = String::with_capacity(line.len() + 2);
    out.push_str(&line[..blanks]);
    out.push(WORKFLOW_MARK);
    out.push_str(&line[blanks..]);
    Cow::Owned(out)
}

/// Sanitises `s` as one field, then cuts it to `width` characters with `…`.
///
/// Each character is shown as one or more, and on its own, so only the first `width + 1` of
/// `s` can reach the result: the rest is never read (a preview of a 5 MB text costs what a
/// short one does).
pub fn clip(s: &str, width: usize) -> String {
    // Printable ASCII is shown as itself, a character a byte: a head of it needs no reading
    // character by character.
    let look = s.len().min(width + 1);
    if s.as_bytes()[..look]
        .iter()
        .all(|b| (0x20..0x7f).contains(b))
    {
        if s.len() <= width {
            return s.to_string();
        }
        let mut out = String::with_capacity(width + 2);
        out.push_str(&s[..width.saturating_sub(1)]);
        out.push('…');
        return out;
    }
    let head = s
        .char_indices()
        .nth(width + 1)
        .map_or(s, |(at, _)| &s[..at]);
    cut(inline(head), width)
}

/// A sanitised field cut to `width` characters, the last of them `…` when it is longer.
fn cut(clean: Cow<'_, str>, width: usize) -> String {
    if clean.chars().count() <= width {
        return clean.into_owned();
    }
    let mut out: String = clean.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What `clip` was before it read only the head: the whole text sanitised, then cut.
    fn clip_whole(s: &str, width: usize) -> String {
        cut(inline(s), width)
    }

    proptest! {
        /// Reading only the head gives what sanitising the whole text and cutting it gives,
        /// on texts of plain and unsafe characters around every width.
        #[test]
        fn clipping_the_head_equals_clipping_the_whole(
            s in "[a\\n\\t\\x1b\\x7f\\u{9b}\\u{202e}é…]{0,24}",
            width in 0usize..20,
        ) {
            prop_assert_eq!(clip(&s, width), clip_whole(&s, width));
        }

        /// The same on texts of printable ASCII (read a byte at a time) with at most one
        /// character that is not, next to either end of that range, anywhere.
        #[test]
        fn clipping_printable_ascii_equals_clipping_the_whole(
            s in "[ a~]{0,22}[\\x1f\\x7fé…\\x1b]?[ a~]{0,4}",
            width in 0usize..28,
        ) {
            prop_assert_eq!(clip(&s, width), clip_whole(&s, width));
        }
    }

    #[test]
    fn escape_sequences_are_shown_byte_for_byte() {
        assert_eq!(inline("a\x1b]0;pwned\x07b"), "a␛]0;pwned␇b");
        assert_eq!(inline("\x1b[2J\x1b[?1049h"), "␛[2J␛[?1049h");
        assert_eq!(inline("x\u{9b}31m"), "x\\u{9b}31m");
        assert_eq!(inline("a\x08b\rc\x7f"), "a␈b␍c␡");
    }

    #[test]
    fn bidi_controls_are_shown() {
        assert_eq!(
            inline("a\u{202e}b\u{2066}c\u{200f}\u{61c}"),
            "a\\u{202e}b\\u{2066}c\\u{200f}\\u{61c}"
        );
    }

    #[test]
    fn inline_shows_line_breaks_block_keeps_them() {
        assert_eq!(inline("a\nb\tc"), "a␊b␉c");
        assert_eq!(block("a\nb\tc"), "a\nb\tc");
        assert!(matches!(inline("plain ünïcode"), Cow::Borrowed(_)));
    }

    #[test]
    fn workflow_commands_are_neutralised_at_line_start_only() {
        assert_eq!(
            block("ok\n::error::x\n  ::stop-commands::t\n##[group]g"),
            "ok\n·::error::x\n  ·::stop-commands::t\n·##[group]g"
        );
        assert_eq!(block("a ::error::x"), "a ::error::x");
        assert_eq!(neutralize_line("::warning::w"), "·::warning::w");
    }

    #[test]
    fn clip_cuts_after_sanitising() {
        let cut = clip("ab\x1b]8;;http://x\x07link", 6);
        assert_eq!(cut, "ab␛]8…");
        assert!(!cut.contains('\x1b'));
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
    }
}
