//! The source's lines by 0-based number, found without holding the source whole: one pass
//! records where each line starts, and a line's bytes are read (or borrowed) when asked for.
//!
//! Owns: the line table and reading one line. A line is what splitting the source at `\n`
//! gives, after a leading byte-order mark, without its `\r`; a line that is not UTF-8 reads as
//! empty (no JSON parser would take it).

use std::borrow::Cow;

use super::Session;

/// Bytes scanned for line breaks at a time when the source is read again.
const CHUNK: usize = 1 << 20;

/// Where the bytes come from.
enum Bytes<'a> {
    Slice(&'a [u8]),
    Session(&'a Session),
}

/// A source's lines, each read on demand.
pub struct RawLines<'a> {
    bytes: Bytes<'a>,
    /// Byte offset each line starts at.
    starts: Vec<usize>,
    len: usize,
}

impl<'a> RawLines<'a> {
    /// The lines of bytes held in memory.
    pub fn of_bytes(bytes: &'a [u8]) -> RawLines<'a> {
        let mut starts = vec![bom(bytes)];
        starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        RawLines {
            bytes: Bytes::Slice(bytes),
            starts,
            len: bytes.len(),
        }
    }

    /// The lines of a session's source, a megabyte at a time when the source is read again;
    /// `None` when there are no source bytes or they can no longer be read.
    pub fn of_session(session: &'a Session) -> Option<RawLines<'a>> {
        let len = session.raw_len();
        if len == 0 {
            return None;
        }
        let head = session.raw_range(0..len.min(3))?;
        let mut starts = vec![bom(&head)];
        let mut at = 0;
        while at < len {
            let end = len.min(at + CHUNK);
            let chunk = session.raw_range(at..end)?;
            starts.extend(memchr::memchr_iter(b'\n', &chunk).map(|i| at + i + 1));
            at = end;
        }
        Some(RawLines {
            bytes: Bytes::Session(session),
            starts,
            len,
        })
    }

    /// How many lines there are (a final line break is followed by one empty line).
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Line `i`, without its line break; `None` past the last line or when the source can no
    /// longer be read.
    pub fn get(&self, i: usize) -> Option<Cow<'a, str>> {
        let (start, end) = self.span(i)?;
        Some(text(self.read(start..end)?))
    }

    /// The bytes line `i` takes, without its line break.
    fn span(&self, i: usize) -> Option<(usize, usize)> {
        let start = *self.starts.get(i)?;
        let end = self.starts.get(i + 1).map_or(self.len, |next| next - 1);
        Some((start, end.max(start)))
    }

    fn read(&self, range: std::ops::Range<usize>) -> Option<Cow<'a, [u8]>> {
        match self.bytes {
            Bytes::Slice(b) => Some(Cow::Borrowed(&b[range])),
            Bytes::Session(s) => s.raw_range(range),
        }
    }

    /// How many bytes lines `from..to` take together, their line breaks between them
    /// included (0 when there are none of them).
    pub fn bytes_of(&self, from: usize, to: usize) -> usize {
        let to = to.min(self.len());
        match (
            self.span(from),
            to.checked_sub(1).and_then(|last| self.span(last)),
        ) {
            (Some((start, _)), Some((_, end))) if from < to => end - start,
            _ => 0,
        }
    }

    /// Lines `from..to` (cut to the lines there are) read with one read of the source, each
    /// then got from it as [`RawLines::get`] gives it; `None` when the source can no longer be
    /// read.
    pub fn block(&self, from: usize, to: usize) -> Option<Block<'_, 'a>> {
        let to = to.min(self.len());
        if from >= to {
            return Some(Block {
                lines: self,
                from,
                to: from,
                base: 0,
                bytes: Cow::Borrowed(&[]),
            });
        }
        let (base, _) = self.span(from)?;
        let (_, end) = self.span(to - 1)?;
        Some(Block {
            lines: self,
            from,
            to,
            base,
            bytes: self.read(base..end)?,
        })
    }
}

/// Consecutive lines of a source, read at once (`RawLines::block`).
pub struct Block<'l, 'a> {
    lines: &'l RawLines<'a>,
    from: usize,
    to: usize,
    /// Where the bytes start in the source.
    base: usize,
    bytes: Cow<'a, [u8]>,
}

impl Block<'_, '_> {
    /// Line `i` of the source, when the block holds it.
    pub fn get(&self, i: usize) -> Option<Cow<'_, str>> {
        if !(self.from..self.to).contains(&i) {
            return None;
        }
        let (start, end) = self.lines.span(i)?;
        Some(text(Cow::Borrowed(
            &self.bytes[start - self.base..end - self.base],
        )))
    }
}

/// Bytes a leading UTF-8 byte-order mark takes.
fn bom(head: &[u8]) -> usize {
    if head.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    }
}

/// A line's text without a trailing `\r`; empty when it is not UTF-8.
fn text(raw: Cow<'_, [u8]>) -> Cow<'_, str> {
    match raw {
        Cow::Borrowed(b) => {
            let b = b.strip_suffix(b"\r").unwrap_or(b);
            Cow::Borrowed(std::str::from_utf8(b).unwrap_or(""))
        }
        Cow::Owned(mut v) => {
            if v.last() == Some(&b'\r') {
                v.pop();
            }
            Cow::Owned(String::from_utf8(v).unwrap_or_default())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What splitting the whole source at `\n` gives, the reference the table must match.
    fn split(bytes: &[u8]) -> Vec<String> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        bytes
            .split(|&b| b == b'\n')
            .map(|l| {
                let l = l.strip_suffix(b"\r").unwrap_or(l);
                std::str::from_utf8(l).unwrap_or("").to_string()
            })
            .collect()
    }

    fn all(lines: &RawLines) -> Vec<String> {
        (0..lines.len())
            .map(|i| lines.get(i).unwrap().into_owned())
            .collect()
    }

    proptest! {
        #[test]
        fn the_lines_are_the_source_split_at_line_breaks(
            bom in any::<bool>(),
            body in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), Just(0xC3u8), Just(0xA9u8), Just(b'{')],
                0..60,
            ),
        ) {
            let mut bytes = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
            bytes.extend(body);
            let lines = RawLines::of_bytes(&bytes);
            prop_assert_eq!(all(&lines), split(&bytes));
            prop_assert!(lines.get(lines.len()).is_none());
        }

        /// A block's lines are the lines read one at a time, and only its own; the bytes of
        /// a run of lines are what the block holds of them.
        #[test]
        fn a_blocks_lines_are_the_lines_read_alone(
            bom in any::<bool>(),
            body in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), Just(0xC3u8), Just(0xA9u8)],
                0..60,
            ),
            from in 0usize..25,
            width in 0usize..25,
        ) {
            let mut bytes = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
            bytes.extend(body);
            let lines = RawLines::of_bytes(&bytes);
            let to = from + width;
            let block = lines.block(from, to).unwrap();
            for i in 0..to + 2 {
                let want = (from..to).contains(&i).then(|| lines.get(i)).flatten();
                prop_assert_eq!(block.get(i), want, "line {}", i);
            }
            // The raw lines, `\r` and bytes that are not UTF-8 included.
            let raw: Vec<usize> = bytes[if bom { 3 } else { 0 }..]
                .split(|&b| b == b'\n')
                .map(<[u8]>::len)
                .collect();
            let end = to.min(raw.len());
            let want = if from < end { raw[from..end].iter().sum::<usize>() + end - from - 1 } else { 0 };
            prop_assert_eq!(lines.bytes_of(from, to), want);
        }
    }

    /// A source read again, from bytes held elsewhere.
    #[derive(Debug)]
    struct Held(Vec<u8>);
    impl crate::session::RecordSource for Held {
        fn bytes(&self) -> usize {
            self.0.len()
        }
        fn read(&self, range: std::ops::Range<usize>) -> Option<Vec<u8>> {
            self.0.get(range).map(<[u8]>::to_vec)
        }
    }

    #[test]
    fn a_session_read_again_gives_the_same_lines_as_its_bytes() {
        let mut body = Vec::new();
        for i in 0..40_000 {
            body.extend_from_slice(
                format!("{{\"n\":{i},\"pad\":\"{}\"}}\r\n", "x".repeat(i % 97)).as_bytes(),
            );
        }
        body.extend_from_slice(b"tail without break");
        let mut session = Session::new(
            crate::session::Format::CLAUDE_CODE,
            "s.jsonl",
            Default::default(),
        );
        session.records = Some(std::sync::Arc::new(Held(body.clone())));
        let lines = RawLines::of_session(&session).unwrap();
        assert!(body.len() > 2 * CHUNK, "lines must cross chunk bounds");
        assert_eq!(all(&lines), split(&body));
    }
}
