//! Text hygiene for everything ctxray prints: session text, tool names, call ids and file names
//! are made visible and inert before they reach a terminal, a CI log or a Markdown file.
//!
//! Owns: the one convention for showing control characters (see [`sanitize`]), cutting to a
//! width after sanitising, neutralising GitHub workflow commands at the start of a line, and
//! the thousands separators every output writes numbers with.
//! Must not: do any IO, know about output formats or colours (the CLI decides where it applies).

pub mod sanitize;
pub mod wrap;

pub use sanitize::{block, clip, inline, neutralize_line, Mode};

/// One line of session content for a terminal screen: tabs as four spaces (indentation stays
/// indentation), every other control character shown as [`sanitize`] shows it.
pub fn screen_line(line: &str) -> std::borrow::Cow<'_, str> {
    if line.contains('\t') {
        let spaced = line.replace('\t', "    ");
        return std::borrow::Cow::Owned(inline(&spaced).into_owned());
    }
    inline(line)
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: impl std::fmt::Display) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_are_separated_from_the_right() {
        assert_eq!(super::thousands(0u64), "0");
        assert_eq!(super::thousands(999usize), "999");
        assert_eq!(super::thousands(1000u64), "1,000");
        assert_eq!(super::thousands(1234567usize), "1,234,567");
        assert_eq!(super::thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn a_screen_line_shows_escapes_and_keeps_tabs_as_indentation() {
        assert_eq!(super::screen_line("plain"), "plain");
        assert_eq!(
            super::screen_line("\tx\x1b[?25l\x1b[2Ky\rz"),
            "    x␛[?25l␛[2Ky␍z"
        );
    }
}
