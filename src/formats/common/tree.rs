//! Walks up a record tree (records naming their parent), as the formats that keep a session
//! as a tree read it: for every record at once, its nearest ancestor on the active path.
//!
//! Owns: that walk, made once per record whatever the depth (each record's answer is kept and
//! reused by the records below it), so a long branch a rewind left costs its length, not its
//! length squared; and the branches off the path, each record under the fork it hangs from.

use std::collections::HashMap;

use crate::session::Abandoned;

/// Where a record's walk up stands.
#[derive(Clone, Copy)]
enum Walk {
    Unknown,
    /// On the walk being made: met again, the walk is a cycle.
    Walking,
    Done(Option<usize>),
}

/// For each of `len` records, its nearest ancestor for which `on_path` holds (the record's
/// parent first, then the parent's, …): `None` when the walk up reaches a record without a
/// parent, or comes round a cycle, before one.
pub fn nearest_on_path(
    len: usize,
    parent: impl Fn(usize) -> Option<usize>,
    on_path: impl Fn(usize) -> bool,
) -> Vec<Option<usize>> {
    // `from[j]`: the answer for a walk that starts at `j` itself.
    let mut from = vec![Walk::Unknown; len];
    let mut stack: Vec<usize> = Vec::new();
    for start in 0..len {
        let mut at = Some(start);
        let found = loop {
            let Some(j) = at else { break None };
            match from[j] {
                Walk::Done(found) => break found,
                Walk::Walking => break None,
                Walk::Unknown if on_path(j) => {
                    from[j] = Walk::Done(Some(j));
                    break Some(j);
                }
                Walk::Unknown => {
                    from[j] = Walk::Walking;
                    stack.push(j);
                    at = parent(j);
                }
            }
        };
        for j in stack.drain(..) {
            from[j] = Walk::Done(found);
        }
    }
    (0..len)
        .map(|k| match parent(k).map(|p| from[p]) {
            Some(Walk::Done(found)) => found,
            _ => None,
        })
        .collect()
}

/// The records off the path as branches: `(fork, line)` pairs, in file order, gathered under
/// their fork line, branches in the order their first record comes.
pub fn branches(off_path: impl IntoIterator<Item = (usize, usize)>) -> Vec<Abandoned> {
    let mut out: Vec<Abandoned> = Vec::new();
    let mut branch_of: HashMap<usize, usize> = HashMap::new();
    for (fork, line) in off_path {
        let b = *branch_of.entry(fork).or_insert_with(|| {
            out.push(Abandoned {
                fork,
                records: Vec::new(),
            });
            out.len() - 1
        });
        out[b].records.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The walk made record by record, as the readers first made it.
    fn walked(parents: &[Option<usize>], on_path: &[bool], k: usize) -> Option<usize> {
        let mut seen = std::collections::HashSet::new();
        let mut at = parents[k];
        while let Some(j) = at {
            if on_path[j] {
                return Some(j);
            }
            if !seen.insert(j) {
                break;
            }
            at = parents[j];
        }
        None
    }

    proptest! {
        #[test]
        fn every_record_gets_the_ancestor_its_own_walk_finds(
            links in proptest::collection::vec((proptest::option::of(0usize..24), any::<bool>()), 0..24),
        ) {
            let len = links.len();
            let parents: Vec<Option<usize>> =
                links.iter().map(|(p, _)| p.filter(|&p| p < len)).collect();
            let on_path: Vec<bool> = links.iter().map(|&(_, on)| on).collect();
            let got = nearest_on_path(len, |k| parents[k], |k| on_path[k]);
            let want: Vec<Option<usize>> = (0..len).map(|k| walked(&parents, &on_path, k)).collect();
            prop_assert_eq!(got, want);
        }
    }
}
