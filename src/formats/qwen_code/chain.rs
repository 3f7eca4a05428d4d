//! Which of a Qwen Code chat's records its conversation holds.
//!
//! Owns: the record tree (`uuid` → `parentUuid`) and the active chain, after Qwen Code's own
//! `SessionService.reconstructHistory`: the leaf is the last record's `uuid`; the chain runs
//! from it up the `parentUuid` of the first record carrying each uuid; every record of a uuid
//! on the chain is read (Qwen Code merges them into one, `aggregateRecords`), in chain order.
//! A rewind re-roots the chain at an earlier record, so the records after it are left on a
//! branch; each such branch is reported as abandoned, from the chain record it hangs from.

use std::collections::{HashMap, HashSet};

use crate::formats::common::tree::{branches, nearest_on_path};
use crate::session::Abandoned;

/// A record's place in the file and in the tree.
#[derive(Debug, Clone, Copy)]
pub(super) struct Node<'a> {
    /// 0-based line.
    pub line: usize,
    pub uuid: &'a str,
    pub parent: Option<&'a str>,
}

/// The chain's records, grouped by uuid (positions in the list given, in chain order and,
/// within a uuid, file order), and the branches left.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Chain {
    pub groups: Vec<Vec<usize>>,
    pub abandoned: Vec<Abandoned>,
}

pub(super) fn active(nodes: &[Node<'_>]) -> Chain {
    let Some(leaf) = nodes.last() else {
        return Chain::default();
    };
    let mut by_uuid: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, n) in nodes.iter().enumerate() {
        by_uuid.entry(n.uuid).or_default().push(k);
    }
    let mut path: Vec<&str> = Vec::new();
    let mut on_path: HashSet<&str> = HashSet::new();
    let mut at = Some(leaf.uuid);
    while let Some(uuid) = at {
        let Some(first) = by_uuid.get(uuid).and_then(|ks| ks.first()) else {
            break;
        };
        if !on_path.insert(uuid) {
            break;
        }
        path.push(uuid);
        at = nodes[*first].parent;
    }
    path.reverse();
    let groups = path
        .iter()
        .filter_map(|uuid| by_uuid.get(uuid).cloned())
        .collect();
    // A record's parent is the first record of its parent uuid; a fork is the line of the last
    // record of the chain uuid a branch hangs from.
    let first = |uuid: &str| by_uuid.get(uuid).and_then(|ks| ks.first()).copied();
    let forks = nearest_on_path(
        nodes.len(),
        |k| nodes[k].parent.and_then(first),
        |k| on_path.contains(nodes[k].uuid),
    );
    let off_path = nodes
        .iter()
        .zip(forks)
        .filter(|(n, _)| !on_path.contains(n.uuid));
    let abandoned = branches(off_path.map(|(n, fork)| {
        let fork = fork
            .and_then(|j| by_uuid.get(nodes[j].uuid))
            .and_then(|ks| ks.last())
            .map_or(0, |&k| nodes[k].line);
        (fork, n.line)
    }));
    Chain { groups, abandoned }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node<'a>(line: usize, uuid: &'a str, parent: Option<&'a str>) -> Node<'a> {
        Node { line, uuid, parent }
    }

    #[test]
    fn a_rewind_leaves_the_turns_after_its_target_on_a_branch() {
        // u1 ← a1 ← u2 ← a2; then a rewind record r hangs from a1, and u3 from r.
        let nodes = [
            node(0, "u1", None),
            node(1, "a1", Some("u1")),
            node(2, "u2", Some("a1")),
            node(3, "a2", Some("u2")),
            node(4, "r", Some("a1")),
            node(5, "u3", Some("r")),
        ];
        let chain = active(&nodes);
        assert_eq!(chain.groups, vec![vec![0], vec![1], vec![4], vec![5]]);
        assert_eq!(
            chain.abandoned,
            vec![Abandoned {
                fork: 1,
                records: vec![2, 3]
            }]
        );
    }

    #[test]
    fn records_sharing_a_uuid_are_read_together_and_cycles_end() {
        let nodes = [
            node(0, "u1", Some("a1")),
            node(1, "a1", Some("u1")),
            node(2, "a1", Some("u1")),
        ];
        let chain = active(&nodes);
        assert_eq!(chain.groups, vec![vec![0], vec![1, 2]]);
        assert!(chain.abandoned.is_empty());
        assert_eq!(active(&[]), Chain::default());
    }
}
