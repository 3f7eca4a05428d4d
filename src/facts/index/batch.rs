//! Longest occurring prefixes of many strings in one pass over a text, whatever the strings:
//! an Aho-Corasick automaton of the strings, the text read through it once, every state it
//! reaches marked — with the states their failure links lead to, since a string that ends
//! where a marked one ends occurs too — and each string's answer the deepest marked state on
//! its path. Linear in the text and the strings; strings are taken a few megabytes at a time
//! so the automaton stays small: an eighth of the text's bytes at a time (at least a megabyte,
//! at most eight), so that it takes no more memory than a few times the text it reads while
//! the text is read at most eight times per byte of strings.
//!
//! Owns: the automaton and that pass. Must not: know which strings are asked, or why.

use std::collections::HashMap;

/// Bytes of strings one automaton holds: an eighth of the text's, within these bounds (a state
/// takes about 30 bytes while the automaton is built).
const CHUNK_MIN: usize = 1 << 20;
const CHUNK_MAX: usize = 8 << 20;
const ROOT: u32 = 0;
/// Edges past which a state's are kept as a row of all 256 bytes.
const DENSE_MIN: usize = 2;
/// Rows of `dense` at most (a megabyte each 1,024).
const DENSE_ROWS: usize = 4096;
/// Pieces a text is read in at most (one per core), and the fewest bytes worth a piece.
const PIECES_MAX: usize = 4;
const PIECE_MIN: usize = 1 << 20;

/// Bytes of strings one automaton holds for a text of `text` bytes: the strings a pass over
/// the text answers.
pub fn chunk_bytes(text: usize) -> usize {
    (text / 8).clamp(CHUNK_MIN, CHUNK_MAX)
}

/// For each of `strings`, the bytes of its longest prefix that occurs in `text`; and the bytes
/// read doing it (the text once per automaton, the strings).
pub fn longest_prefixes(text: &[u8], strings: &[&[u8]]) -> (Vec<usize>, usize) {
    // Each distinct string once (found by hashing, as many are asked again and again), then
    // in byte order: the trie is built in one walk.
    let mut slot_of: HashMap<&[u8], u32, foldhash::fast::RandomState> =
        HashMap::with_capacity_and_hasher(strings.len() / 2, Default::default());
    let mut distinct: Vec<(&[u8], u32)> = Vec::new();
    let slots: Vec<u32> = strings
        .iter()
        .map(|&s| {
            *slot_of.entry(s).or_insert_with(|| {
                distinct.push((s, distinct.len() as u32));
                distinct.len() as u32 - 1
            })
        })
        .collect();
    drop(slot_of);
    distinct.sort_unstable_by(|a, b| a.0.cmp(b.0));
    // Where each distinct string stands in byte order.
    let mut rank = vec![0u32; distinct.len()];
    for (i, &(_, slot)) in distinct.iter().enumerate() {
        rank[slot as usize] = i as u32;
    }
    let distinct: Vec<&[u8]> = distinct.into_iter().map(|(s, _)| s).collect();
    let mut found: Vec<usize> = Vec::with_capacity(distinct.len());
    let mut read: usize = strings.iter().map(|s| s.len()).sum();
    let chunk = chunk_bytes(text.len());
    let mut from = 0;
    while from < distinct.len() {
        let mut to = from;
        let mut bytes = 0;
        while to < distinct.len() && (to == from || bytes + distinct[to].len() <= chunk) {
            bytes += distinct[to].len();
            to += 1;
        }
        found.extend(Automaton::new(&distinct[from..to]).answers(text, &distinct[from..to]));
        read += text.len();
        from = to;
    }
    let answers = slots
        .iter()
        .map(|&slot| found[rank[slot as usize] as usize])
        .collect();
    (answers, read)
}

/// A trie of sorted distinct strings with failure links; each state's edges are a sorted run
/// of `bytes`/`targets` (the root's, a table of 256). States are numbered in the order a walk
/// of the sorted strings creates them, so a state's first child (least byte) is the next
/// state: the step a read takes most often reads one `Node` only.
struct Automaton {
    root: [u32; 256],
    nodes: Vec<Node>,
    bytes: Vec<u8>,
    targets: Vec<u32>,
    /// Rows of 256 targets (`u32::MAX`: none) of the shallowest states with more than
    /// `DENSE_MIN` edges.
    dense: Vec<u32>,
    depth: Vec<u32>,
}

/// What a read needs of one state, in one place.
#[derive(Clone, Copy, Default)]
struct Node {
    fail: u32,
    /// The state's edges are `bytes`/`targets[start..start + count]`; for a `dense` one,
    /// `start` is the number of its row of `dense`.
    start: u32,
    count: u16,
    /// The byte of the first edge (to state + 1), when `count > 0`.
    first: u8,
    /// Whether the edges are a row of `dense`.
    dense: bool,
}

impl Automaton {
    /// `strings` sorted and distinct.
    fn new(strings: &[&[u8]]) -> Automaton {
        // States in the order a walk of the sorted strings creates them, each with its parent
        // and the byte into it.
        let mut into: Vec<(u32, u8)> = vec![(ROOT, 0)];
        let mut depth: Vec<u32> = vec![0];
        let mut path: Vec<u32> = vec![ROOT];
        let mut prev: &[u8] = &[];
        for s in strings {
            let shared = prev.iter().zip(*s).take_while(|(a, b)| a == b).count();
            path.truncate(shared + 1);
            for &b in &s[shared..] {
                let parent = *path.last().unwrap_or(&ROOT);
                let t = depth.len() as u32;
                depth.push(depth[parent as usize] + 1);
                into.push((parent, b));
                path.push(t);
            }
            prev = s;
        }
        // Edges grouped by parent (a stable counting sort keeps each parent's bytes sorted).
        let states = depth.len();
        let mut edges = vec![0u32; states + 1];
        for &(parent, _) in &into[1..] {
            edges[parent as usize + 1] += 1;
        }
        for i in 0..states {
            edges[i + 1] += edges[i];
        }
        let mut fill = edges.clone();
        let mut bytes = vec![0u8; states - 1];
        let mut targets = vec![ROOT; states - 1];
        let mut root = [u32::MAX; 256];
        for (t, &(parent, b)) in into.iter().enumerate().skip(1) {
            let e = fill[parent as usize] as usize;
            bytes[e] = b;
            targets[e] = t as u32;
            fill[parent as usize] += 1;
            if parent == ROOT {
                root[usize::from(b)] = t as u32;
            }
        }
        drop(fill);
        let nodes = (0..states)
            .map(|s| {
                let (start, end) = (edges[s], edges[s + 1]);
                Node {
                    fail: ROOT,
                    start,
                    // At most 256 edges: one per byte.
                    count: (end - start) as u16,
                    first: bytes.get(start as usize).copied().unwrap_or(0),
                    dense: false,
                }
            })
            .collect();
        drop(edges);
        let mut a = Automaton {
            root,
            nodes,
            bytes,
            targets,
            dense: Vec::new(),
            depth,
        };
        // The shallowest states of more than `DENSE_MIN` edges (which most bytes of a text
        // pass through) answer from a row of all 256 bytes, their `start` then the row's
        // number; at most `DENSE_ROWS` of them.
        let order = a.by_depth();
        let mut rows = 0;
        for &state in &order {
            let n = &mut a.nodes[state as usize];
            if usize::from(n.count) <= DENSE_MIN {
                continue;
            }
            if rows == DENSE_ROWS {
                break;
            }
            a.dense.resize((rows + 1) * 256, u32::MAX);
            let edges = n.start as usize..n.start as usize + usize::from(n.count);
            for (&b, &t) in a.bytes[edges.clone()].iter().zip(&a.targets[edges]) {
                a.dense[rows * 256 + usize::from(b)] = t;
            }
            n.start = rows as u32;
            n.dense = true;
            rows += 1;
        }
        for state in order {
            let (parent, b) = into[state as usize];
            if parent == ROOT {
                continue;
            }
            let mut f = a.nodes[parent as usize].fail;
            a.nodes[state as usize].fail = loop {
                if let Some(t) = a.child(f, b) {
                    break t;
                }
                if f == ROOT {
                    break ROOT;
                }
                f = a.nodes[f as usize].fail;
            };
        }
        a
    }

    #[inline]
    fn child(&self, state: u32, b: u8) -> Option<u32> {
        if state == ROOT {
            let t = self.root[usize::from(b)];
            return (t != u32::MAX).then_some(t);
        }
        let n = self.nodes[state as usize];
        if n.count == 0 {
            return None;
        }
        if n.first == b {
            return Some(state + 1);
        }
        if n.count == 1 {
            return None;
        }
        if n.dense {
            let t = self.dense[n.start as usize * 256 + usize::from(b)];
            return (t != u32::MAX).then_some(t);
        }
        let from = n.start as usize + 1;
        let to = n.start as usize + usize::from(n.count);
        let edges = &self.bytes[from..to];
        // A few edges are looked through in place; a call to memchr costs more than that.
        let i = if edges.len() <= 16 {
            edges.iter().position(|&e| e == b)?
        } else {
            memchr::memchr(b, edges)?
        };
        Some(self.targets[from + i])
    }

    /// Every state reading `text` reaches. A long text is read in pieces side by side, one per
    /// core: a piece is read from the root starting `deepest` bytes before it, which brings the
    /// automaton to the state a whole read has there (no state is deeper), and a state reached
    /// on the way in is an occurrence all the same.
    fn reached(&self, text: &[u8]) -> Vec<bool> {
        let deepest = self.depth.iter().copied().max().unwrap_or(0) as usize;
        let cores = crate::par::cores();
        let pieces = cores
            .min(PIECES_MAX)
            .min(text.len() / PIECE_MIN.max(deepest * 8));
        self.reached_in(text, pieces)
    }

    /// `reached`, the text read in `pieces` pieces side by side.
    fn reached_in(&self, text: &[u8], pieces: usize) -> Vec<bool> {
        let deepest = self.depth.iter().copied().max().unwrap_or(0) as usize;
        if pieces <= 1 {
            return self.read(text);
        }
        let size = text.len().div_ceil(pieces);
        let pieces: Vec<std::ops::Range<usize>> = (0..pieces)
            .map(|k| (k * size).saturating_sub(deepest)..((k + 1) * size).min(text.len()))
            .collect();
        let marks = crate::par::each(&pieces, |r| self.read(&text[r.clone()]));
        let mut all = vec![false; self.depth.len()];
        for m in marks {
            for (a, b) in all.iter_mut().zip(m) {
                *a |= b;
            }
        }
        all
    }

    /// The states reading `text` from the root reaches.
    fn read(&self, text: &[u8]) -> Vec<bool> {
        let mut marked = vec![false; self.depth.len()];
        let mut state = ROOT;
        for &b in text {
            state = loop {
                if let Some(t) = self.child(state, b) {
                    break t;
                }
                if state == ROOT {
                    break ROOT;
                }
                state = self.nodes[state as usize].fail;
            };
            marked[state as usize] = true;
        }
        marked
    }

    /// `marked` with every state whose string occurs wherever a marked one does: a state's
    /// longest proper suffix in the trie (its failure link).
    fn occurring(&self, mut marked: Vec<bool>) -> Vec<bool> {
        for &s in self.by_depth().iter().rev() {
            if marked[s as usize] {
                marked[self.nodes[s as usize].fail as usize] = true;
            }
        }
        marked
    }

    /// States other than the root, shallowest first (a counting sort by depth).
    fn by_depth(&self) -> Vec<u32> {
        let deepest = self.depth.iter().copied().max().unwrap_or(0) as usize;
        let mut starts = vec![0usize; deepest + 2];
        for &d in &self.depth[1..] {
            starts[d as usize + 1] += 1;
        }
        for d in 0..=deepest {
            starts[d + 1] += starts[d];
        }
        let mut order = vec![ROOT; self.depth.len() - 1];
        for (state, &d) in self.depth.iter().enumerate().skip(1) {
            order[starts[d as usize]] = state as u32;
            starts[d as usize] += 1;
        }
        order
    }

    /// Reads `text` once, marks every state that occurs in it, and answers each string.
    fn answers(&self, text: &[u8], strings: &[&[u8]]) -> Vec<usize> {
        let marked = self.occurring(self.reached(text));
        strings
            .iter()
            .map(|s| {
                let mut state = ROOT;
                let mut longest = 0;
                for (i, &b) in s.iter().enumerate() {
                    match self.child(state, b) {
                        Some(t) if marked[t as usize] => {
                            state = t;
                            longest = i + 1;
                        }
                        _ => break,
                    }
                }
                longest
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(text: &[u8], s: &[u8]) -> usize {
        (0..=s.len())
            .rev()
            .find(|&k| k == 0 || text.windows(k).any(|w| w == &s[..k]))
            .unwrap_or(0)
    }

    #[test]
    fn finds_prefixes_that_end_inside_other_matches() {
        let text = b"xxabcdexx";
        let strings: [&[u8]; 4] = [b"abcdef", b"bcd", b"cdx", b"zz"];
        assert_eq!(longest_prefixes(text, &strings).0, vec![5, 3, 2, 0]);
    }

    #[test]
    fn a_text_read_in_pieces_marks_what_one_read_marks() {
        let words = ["alpha ", "beta ", "gamma ", "delta\n", "alphabet ", "bet "];
        let mut text = crate::testing::drawn(7, &words, 1 << 16).into_bytes();
        text.truncate(1 << 16);
        // A string found only across where each piece starts.
        let markers: Vec<Vec<u8>> = [2usize, 3, 7]
            .iter()
            .map(|&pieces| {
                let at = text.len().div_ceil(pieces);
                let marker = format!("<{pieces}-only-here>").into_bytes();
                text[at - 5..at - 5 + marker.len()].copy_from_slice(&marker);
                marker
            })
            .collect();
        let strings: Vec<Vec<u8>> = (0..400)
            .map(|i| text[i * 997 % (text.len() - 40)..][..5 + i % 30].to_vec())
            .chain([
                b"alpha alpha alpha".to_vec(),
                b"delta\nbet bet bet zeta".to_vec(),
            ])
            .chain(markers)
            .collect();
        let mut sorted: Vec<&[u8]> = strings.iter().map(|s| s.as_slice()).collect();
        sorted.sort_unstable();
        sorted.dedup();
        let a = Automaton::new(&sorted);
        let whole = a.occurring(a.read(&text));
        for pieces in [2, 3, 7] {
            assert_eq!(a.occurring(a.reached_in(&text, pieces)), whole, "{pieces}");
        }
        let found = a.answers(&text, &sorted);
        assert!(found.iter().zip(&sorted).any(|(f, s)| f < &s.len()));
    }

    proptest! {
        #[test]
        fn a_state_s_first_child_is_the_next_state(strings in proptest::collection::vec("[abc]{0,10}", 0..30)) {
            let mut sorted: Vec<&[u8]> = strings.iter().map(|s| s.as_bytes()).collect();
            sorted.sort_unstable();
            sorted.dedup();
            let a = Automaton::new(&sorted);
            for (s, n) in a.nodes.iter().enumerate() {
                if n.count > 0 && !n.dense {
                    prop_assert_eq!(a.targets[n.start as usize] as usize, s + 1);
                    prop_assert_eq!(a.bytes[n.start as usize], n.first);
                }
            }
        }

        #[test]
        fn agrees_with_a_naive_search(text in "[abc]{0,80}", strings in proptest::collection::vec("[abcd]{0,12}", 0..12)) {
            let strings: Vec<&[u8]> = strings.iter().map(|s| s.as_bytes()).collect();
            let (got, _) = longest_prefixes(text.as_bytes(), &strings);
            for (s, g) in strings.iter().zip(got) {
                prop_assert_eq!(g, naive(text.as_bytes(), s), "{:?}", String::from_utf8_lossy(s));
            }
        }
    }
}
