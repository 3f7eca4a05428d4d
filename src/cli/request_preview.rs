//! The text `plan` shows of one summarizer-request message: its characters, its first lines
//! (clipped) and how many lines it has, read from the message's pieces joined by line breaks
//! (`compaction::request`), so a message made of a whole transcript is never held whole.
//!
//! Owns: that reading, line for line what `str::lines` gives of the joined text.

/// Lines shown of a message, and the characters a line shows.
pub const LINES: usize = 12;
pub const WIDTH: usize = 140;

/// What `plan` shows of one message.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Preview {
    /// Characters of the message.
    pub chars: usize,
    /// Its first `LINES` lines, each clipped to `WIDTH` (sanitised).
    pub shown: Vec<String>,
    /// How many lines `str::lines` finds in it.
    pub lines: usize,
}

/// The preview of the text `pieces` make joined by line breaks.
pub fn of_pieces<S: AsRef<str>>(pieces: impl Iterator<Item = S>) -> Preview {
    let mut p = Preview::default();
    let mut breaks = 0usize;
    // The last segment of the pieces read so far (after their last line break): a line of
    // its own once a break follows it (`\r` then dropped before the break), else the last.
    let mut open: Option<String> = None;
    let mut open_empty = true;
    for (k, piece) in pieces.enumerate() {
        let piece = piece.as_ref();
        if k > 0 {
            p.chars += 1;
            breaks += 1;
            p.close(open.take(), true);
        }
        p.chars += piece.chars().count();
        let mut segments = piece.split('\n').peekable();
        while let Some(segment) = segments.next() {
            if segments.peek().is_some() {
                breaks += 1;
                let line = p.wants().then(|| segment.to_string());
                p.close(line, true);
            } else {
                open_empty = segment.is_empty();
                open = p.wants().then(|| segment.to_string());
            }
        }
    }
    if !open_empty {
        p.close(open, false);
    }
    p.lines = breaks + usize::from(!open_empty);
    p
}

impl Preview {
    fn wants(&self) -> bool {
        self.shown.len() < LINES
    }

    /// Takes `line` as the next line; `broken`: a line break followed it.
    fn close(&mut self, line: Option<String>, broken: bool) {
        let Some(line) = line.filter(|_| self.wants()) else {
            return;
        };
        let line = match broken {
            true => line.strip_suffix('\r').unwrap_or(&line),
            false => line.as_str(),
        };
        self.shown.push(crate::text::clip(line, WIDTH));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn whole(text: &str) -> Preview {
        Preview {
            chars: text.chars().count(),
            shown: text
                .lines()
                .take(LINES)
                .map(|l| crate::text::clip(l, WIDTH))
                .collect(),
            lines: text.lines().count(),
        }
    }

    proptest! {
        /// Read piece by piece, a text joined of pieces previews as the joined text does,
        /// whatever its line breaks, carriage returns and empty pieces. Fails when a `\r`
        /// before a join is kept, or a trailing empty line is counted.
        #[test]
        fn pieces_preview_as_the_joined_text(pieces in proptest::collection::vec("[ab\r\n]{0,6}", 0..30)) {
            let joined = pieces.join("\n");
            let want = whole(&joined);
            let got = of_pieces(pieces.iter());
            prop_assert_eq!(got, want, "{:?}", joined);
        }
    }

    #[test]
    fn a_long_transcript_shows_its_first_lines() {
        let pieces = ["prompt", "", "[user] a\r", "", "[assistant] b\nc\n"];
        let got = of_pieces(pieces.iter());
        assert_eq!(got, whole(&pieces.join("\n")));
        assert_eq!(got.lines, 6);
        assert_eq!(got.shown[2], "[user] a");
    }
}
