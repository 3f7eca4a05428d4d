//! Word wrapping for text that must be read whole in a narrow place (help lines, findings):
//! lines are broken at spaces, and a word wider than the line is broken inside it. Widths are
//! terminal columns. Linear in the text.

use unicode_width::UnicodeWidthChar;

/// `s` broken into lines of at most `width` columns (at least one line, maybe empty).
pub fn words(s: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in s.split(' ').filter(|w| !w.is_empty()) {
        let w: usize = word.chars().map(|c| c.width().unwrap_or(0)).sum();
        if used > 0 && used + 1 + w <= width {
            line.push(' ');
            line.push_str(word);
            used += 1 + w;
            continue;
        }
        if used > 0 {
            lines.push(std::mem::take(&mut line));
            used = 0;
        }
        for c in word.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > width && used > 0 {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            line.push(c);
            used += cw;
        }
    }
    if used > 0 || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn lines_break_at_spaces_and_inside_words_too_long_for_a_line() {
        assert_eq!(words("open the diff view", 8), ["open the", "diff", "view"]);
        assert_eq!(words("abcdefghij k", 4), ["abcd", "efgh", "ij k"]);
        assert_eq!(words("", 5), [""]);
        assert_eq!(words("a  b", 10), ["a b"]);
        // Wide characters count two columns.
        assert_eq!(words("日本語 x", 4), ["日本", "語 x"]);
    }
}
