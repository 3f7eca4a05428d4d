//! Which of a pi session's entries its conversation holds.
//!
//! Owns: the entry tree (`id`/`parentId`, written since session version 2) and the active
//! branch: pi reloads a session at its last entry and builds the context from there up its
//! parents (`buildSessionContext` in `session-manager.ts`), so the entries on that path are
//! read, in file order, and each branch off it is reported as abandoned. A version 1 file has
//! no ids (pi numbers it in file order when it migrates it): every entry is read, in order.

use std::collections::{HashMap, HashSet};

use crate::formats::common::tree::{branches, nearest_on_path};
use crate::session::Abandoned;

/// An entry's place in the file and in the tree.
#[derive(Debug, Clone, Copy)]
pub(super) struct Node<'a> {
    /// 0-based line.
    pub line: usize,
    pub id: Option<&'a str>,
    pub parent: Option<&'a str>,
}

/// The entries read (as positions in the list given) and the branches left.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Chain {
    pub active: Vec<usize>,
    pub abandoned: Vec<Abandoned>,
}

/// The active branch of `nodes` (in file order): from the last entry with an id up its
/// parents. Entries without an id are kept where they are.
pub(super) fn active(nodes: &[Node<'_>]) -> Chain {
    let Some(leaf) = nodes.iter().rposition(|n| n.id.is_some()) else {
        return Chain {
            active: (0..nodes.len()).collect(),
            abandoned: Vec::new(),
        };
    };
    let by_id: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .filter_map(|(k, n)| Some((n.id?, k)))
        .collect();
    let mut on_path = HashSet::new();
    let mut at = Some(leaf);
    while let Some(k) = at {
        if !on_path.insert(k) {
            break;
        }
        at = nodes[k].parent.and_then(|p| by_id.get(p).copied());
    }
    let parent = |k: usize| nodes[k].parent.and_then(|p| by_id.get(p).copied());
    let forks = nearest_on_path(nodes.len(), parent, |k| on_path.contains(&k));
    let mut active = Vec::new();
    let mut off_path = Vec::new();
    for (k, (node, fork)) in nodes.iter().zip(forks).enumerate() {
        if node.id.is_none() || on_path.contains(&k) {
            active.push(k);
            continue;
        }
        // The line of the nearest ancestor on the active path (0, the header's, when the
        // branch reaches no entry of it).
        off_path.push((fork.map_or(0, |j| nodes[j].line), node.line));
    }
    Chain {
        active,
        abandoned: branches(off_path),
    }
}
