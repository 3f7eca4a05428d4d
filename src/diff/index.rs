//! An index of one text (a summarizer input, a summary) that answers, in time linear in the
//! query and independent of the text's size, whether a string occurs in the text and how long
//! the longest prefix of a string that occurs in it is: a suffix automaton over the text's
//! bytes, built in one pass.
//!
//! Owns: the automaton and those two questions. Must not: know about messages, lines or
//! evidence (`diff` asks the questions).

/// No state / no edge.
const NONE: u32 = u32::MAX;

/// Bytes of a text the index covers: its states and edges are counted in `u32`.
const MAX_TEXT: usize = (u32::MAX / 4) as usize;

/// A suffix automaton of one text.
#[derive(Debug, Clone)]
pub struct TextIndex {
    /// Per state: the length of its longest string, its suffix link, its first edge.
    len: Vec<u32>,
    link: Vec<u32>,
    head: Vec<u32>,
    /// The root's edges, one slot a byte (the root has the most edges and every query starts
    /// there); other states keep theirs in the lists below.
    root: Box<[u32; 256]>,
    /// Per edge: the byte it reads, the state it leads to, the next edge of the same state.
    byte: Vec<u8>,
    target: Vec<u32>,
    next: Vec<u32>,
    /// Characters of the text.
    chars: usize,
}

impl TextIndex {
    /// Indexes `text` (its first `MAX_TEXT` bytes: about a gigabyte, far beyond any
    /// summarizer input).
    pub fn new(text: &str) -> TextIndex {
        let bytes = &text.as_bytes()[..text.len().min(MAX_TEXT)];
        let mut ix = TextIndex {
            len: Vec::with_capacity(bytes.len() * 3 / 2 + 1),
            link: Vec::with_capacity(bytes.len() * 3 / 2 + 1),
            head: Vec::with_capacity(bytes.len() * 3 / 2 + 1),
            root: Box::new([NONE; 256]),
            byte: Vec::with_capacity(bytes.len() * 2),
            target: Vec::with_capacity(bytes.len() * 2),
            next: Vec::with_capacity(bytes.len() * 2),
            chars: text.chars().count(),
        };
        ix.add_state(0, NONE);
        let mut last = 0;
        for &b in bytes {
            last = ix.extend(last, b);
        }
        ix
    }

    /// Characters of the whole text.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// Whether `s` occurs in the text (the empty string always does).
    pub fn contains(&self, s: &str) -> bool {
        self.longest_prefix(s) == s.len()
    }

    /// Bytes of the longest prefix of `s` that occurs in the text (it may end inside a
    /// character).
    pub fn longest_prefix(&self, s: &str) -> usize {
        let mut state = 0;
        for (i, &b) in s.as_bytes().iter().enumerate() {
            match self.get(state, b) {
                Some(t) => state = t,
                None => return i,
            }
        }
        s.len()
    }

    fn add_state(&mut self, len: u32, link: u32) -> u32 {
        let id = self.len.len() as u32;
        self.len.push(len);
        self.link.push(link);
        self.head.push(NONE);
        id
    }

    fn get(&self, state: u32, b: u8) -> Option<u32> {
        if state == 0 {
            let t = self.root[usize::from(b)];
            return (t != NONE).then_some(t);
        }
        let mut e = self.head[state as usize];
        while e != NONE {
            if self.byte[e as usize] == b {
                return Some(self.target[e as usize]);
            }
            e = self.next[e as usize];
        }
        None
    }

    /// Adds or redirects the edge of `state` on `b`.
    fn set(&mut self, state: u32, b: u8, to: u32) {
        if state == 0 {
            self.root[usize::from(b)] = to;
            return;
        }
        let mut e = self.head[state as usize];
        while e != NONE {
            if self.byte[e as usize] == b {
                self.target[e as usize] = to;
                return;
            }
            e = self.next[e as usize];
        }
        self.push_edge(state, b, to);
    }

    /// Adds an edge `state` does not have yet.
    fn add_edge(&mut self, state: u32, b: u8, to: u32) {
        if state == 0 {
            self.root[usize::from(b)] = to;
        } else {
            self.push_edge(state, b, to);
        }
    }

    fn push_edge(&mut self, state: u32, b: u8, to: u32) {
        let id = self.byte.len() as u32;
        self.byte.push(b);
        self.target.push(to);
        self.next.push(self.head[state as usize]);
        self.head[state as usize] = id;
    }

    /// The automaton of the text read so far (ending in state `last`) extended by `b`; the new
    /// last state.
    fn extend(&mut self, last: u32, b: u8) -> u32 {
        let cur = self.add_state(self.len[last as usize] + 1, NONE);
        let mut p = last;
        while p != NONE && self.get(p, b).is_none() {
            self.add_edge(p, b, cur);
            p = self.link[p as usize];
        }
        if p == NONE {
            self.link[cur as usize] = 0;
            return cur;
        }
        let Some(q) = self.get(p, b) else {
            return cur;
        };
        if self.len[p as usize] + 1 == self.len[q as usize] {
            self.link[cur as usize] = q;
            return cur;
        }
        let clone = self.add_state(self.len[p as usize] + 1, self.link[q as usize]);
        let mut e = self.head[q as usize];
        while e != NONE {
            let (eb, et) = (self.byte[e as usize], self.target[e as usize]);
            self.add_edge(clone, eb, et);
            e = self.next[e as usize];
        }
        while p != NONE && self.get(p, b) == Some(q) {
            self.set(p, b, clone);
            p = self.link[p as usize];
        }
        self.link[q as usize] = clone;
        self.link[cur as usize] = clone;
        cur
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive_prefix(text: &str, s: &str) -> usize {
        (0..=s.len())
            .rev()
            .find(|&k| {
                let b = &s.as_bytes()[..k];
                b.is_empty() || text.as_bytes().windows(k).any(|w| w == b)
            })
            .unwrap_or(0)
    }

    #[test]
    fn answers_occurrence_and_the_longest_occurring_prefix() {
        let ix = TextIndex::new("the cat sat on the mat; édition");
        assert!(ix.contains("cat sat"));
        assert!(ix.contains("the mat"));
        assert!(ix.contains(""));
        assert!(!ix.contains("the dog"));
        assert_eq!(ix.longest_prefix("the matrix"), "the mat".len());
        assert_eq!(ix.longest_prefix("édito"), "édit".len());
        assert_eq!(ix.longest_prefix("xyz"), 0);
        assert_eq!(ix.chars(), 31);
    }

    #[test]
    fn a_long_run_of_one_byte_is_indexed_whole() {
        let text = "a".repeat(200_000);
        let ix = TextIndex::new(&text);
        assert!(ix.contains(&text));
        assert_eq!(ix.longest_prefix(&format!("{text}a")), text.len());
        assert!(ix.len.len() <= 2 * text.len());
    }

    proptest! {
        #[test]
        fn agrees_with_a_naive_search(text in "[abc\\n é]{0,60}", queries in proptest::collection::vec("[abc é]{0,12}", 1..8)) {
            let ix = TextIndex::new(&text);
            for q in &queries {
                prop_assert_eq!(ix.longest_prefix(q), naive_prefix(&text, q), "{:?} in {:?}", q, text);
                prop_assert_eq!(ix.contains(q), text.contains(q.as_str()));
            }
        }
    }
}
