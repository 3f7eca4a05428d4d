//! Claude Code's record tree, and the branches a rewind left in it.
//!
//! Owns: the tree the main chain's records make (`uuid` → `parentUuid`), the active leaf, the
//! plan of which records lie on abandoned branches, and saying when a record read later may
//! change that plan. Must not: build messages (the `Builder` does, from the records the plan
//! keeps) or touch sidechains (subagents are read as before, whatever branch started them).
//!
//! A rewind (an edited prompt, `/rewind`) writes the new prompt under an earlier parent; the
//! old branch stays in the file and is no longer sent to the model. The rules, after Claude
//! Code's own loader (`loadTranscriptFile`, `buildConversationChain`):
//!
//! - Nodes are the main chain's records (not `isSidechain`) that carry a `uuid`: the turns
//!   (`user` and `assistant` records with a `message`) and the records the chain passes through
//!   between them (`system` notes and compaction boundaries, `attachment`, the `progress` of
//!   older files). A record hangs from its `parentUuid`; one whose `parentUuid` is null (a
//!   compaction boundary) from its `logicalParentUuid`, so history before a compaction stays
//!   on the chain. `summary`, `file-history-snapshot` and the other metadata lines carry no
//!   `uuid` and are always read. A uuid read a second time (a copied record) is not a node.
//! - The leaf is the last turn in the file. Claude Code resumes from the newest leaf by
//!   timestamp; it appends as it goes, so the newest is the last one written.
//! - The chain runs from the leaf up its parents. At a boundary whose logical parent is
//!   missing or already on the chain (a compaction that kept a preserved segment re-parents
//!   the segment under its summary), it goes on from the segment's head
//!   (`compactMetadata.preservedSegment.headUuid`).
//! - A branch is abandoned when it hangs from a record of the chain, is not itself on the chain,
//!   and restarts the conversation: its first turns hold a prompt, or an answer that is not one
//!   more block of an answer on the chain. Newer files write one assistant record per content
//!   block and hang each tool result under the block that called it, so parallel calls fork
//!   the tree without any rewind; Claude Code splices those results and blocks back into the
//!   conversation (`recoverOrphanedParallelToolResults`), and they are kept here too.
//! - Everything else is kept: records under a parent no record carries (a file cut at its
//!   head), a second root, records beside the chain that do not restart the conversation. When
//!   the abandoned branches would hold more than half of the turns, the tree is not trusted and
//!   nothing is left out.

use std::collections::hash_map::Entry;

use foldhash::{HashMap, HashSet};
use serde_json::Value;

use crate::formats::common::{str_at, Item};
use crate::session::Abandoned;

/// How far a new turn's parents are followed through records that are not turns, looking for
/// the turn it answers; past this it is taken as a possible fork.
const NEAREST_TURN_STEPS: usize = 64;

/// The main chain's records as a tree, in file order.
#[derive(Debug, Default)]
pub(super) struct Tree {
    nodes: Vec<Node>,
    by_uuid: HashMap<Box<str>, u32>,
    /// Parents named before a record carrying their uuid was read.
    awaited: HashSet<Box<str>>,
    /// The last turn read.
    leaf: Option<u32>,
}

#[derive(Debug)]
struct Node {
    /// The record's 0-based line (or array index).
    line: usize,
    parent: Link,
    kind: Kind,
}

#[derive(Debug)]
enum Link {
    Root,
    Read(u32),
    /// A uuid that no record read before this one carries.
    Named(Box<str>),
}

#[derive(Debug)]
enum Kind {
    Prompt,
    ToolResult,
    /// An assistant record, with its `message.id`.
    Answer(Option<Box<str>>),
    /// A compaction boundary, with the head of the segment it preserved.
    Boundary(Option<Box<str>>),
    Other,
}

impl Kind {
    fn of(v: &Value) -> Kind {
        let message = v.get("message").filter(|m| m.is_object());
        match (str_at(v, "type"), message) {
            (Some("user"), Some(m)) if holds_tool_result(m) => Kind::ToolResult,
            (Some("user"), Some(_)) => Kind::Prompt,
            (Some("assistant"), Some(m)) => Kind::Answer(str_at(m, "id").map(Box::from)),
            (Some("system"), _) if str_at(v, "subtype") == Some("compact_boundary") => {
                let head = v.pointer("/compactMetadata/preservedSegment/headUuid");
                Kind::Boundary(head.and_then(Value::as_str).map(Box::from))
            }
            _ => Kind::Other,
        }
    }

    fn is_turn(&self) -> bool {
        matches!(self, Kind::Prompt | Kind::ToolResult | Kind::Answer(_))
    }

    /// Whether a turn beside the chain belongs to the chain's own turns: a tool result, or
    /// another block of an answer on the chain (`answers` holds their `message.id`s).
    fn carried(&self, answers: &HashSet<&str>) -> bool {
        match self {
            Kind::ToolResult => true,
            Kind::Answer(Some(id)) => answers.contains(&**id),
            _ => false,
        }
    }
}

fn holds_tool_result(message: &Value) -> bool {
    let content = message.get("content").and_then(Value::as_array);
    content.is_some_and(|blocks| {
        blocks
            .iter()
            .any(|b| str_at(b, "type") == Some("tool_result"))
    })
}

/// What adding a record to the tree found.
#[derive(Debug)]
pub(super) struct Added {
    /// The line of the record it hangs from, when that record was read.
    pub parent: Option<usize>,
    /// It is a turn.
    pub turn: bool,
    /// It may change which records are abandoned: it is a turn that does not follow the last
    /// one, or a record that earlier records named as their parent.
    pub unsettled: bool,
}

impl Tree {
    /// Takes a main-chain record; `None` when it is not a node (no `uuid`, or one read before).
    pub(super) fn add(&mut self, item: &Item) -> Option<Added> {
        let v = item.value;
        let uuid = str_at(v, "uuid")?;
        let at = u32::try_from(self.nodes.len()).ok()?;
        match self.by_uuid.entry(uuid.into()) {
            Entry::Occupied(_) => return None,
            Entry::Vacant(slot) => slot.insert(at),
        };
        let kind = Kind::of(v);
        let parent_uuid = str_at(v, "parentUuid").or_else(|| str_at(v, "logicalParentUuid"));
        let parent = self.link(parent_uuid, at);
        let turn = kind.is_turn();
        let mut unsettled = !self.awaited.is_empty() && self.awaited.remove(uuid);
        if turn {
            unsettled |= self.nearest_turn(&parent) != self.leaf;
            self.leaf = Some(at);
        }
        let parent_line = match parent {
            Link::Read(p) => Some(self.nodes[p as usize].line),
            _ => None,
        };
        self.nodes.push(Node {
            line: item.index,
            parent,
            kind,
        });
        Some(Added {
            parent: parent_line,
            turn,
            unsettled,
        })
    }

    /// The link to `parent` of the record at `at` (a record that names itself hangs from none).
    fn link(&mut self, parent: Option<&str>, at: u32) -> Link {
        let Some(uuid) = parent else {
            return Link::Root;
        };
        match self.by_uuid.get(uuid) {
            Some(&p) if p == at => Link::Root,
            Some(&p) => Link::Read(p),
            None => {
                self.awaited.insert(uuid.into());
                Link::Named(uuid.into())
            }
        }
    }

    /// The closest turn above `link`, through records that are not turns.
    fn nearest_turn<'a>(&'a self, mut link: &'a Link) -> Option<u32> {
        for _ in 0..NEAREST_TURN_STEPS {
            let Link::Read(at) = link else {
                return None;
            };
            let node = &self.nodes[*at as usize];
            if node.kind.is_turn() {
                return Some(*at);
            }
            link = &node.parent;
        }
        None
    }

    fn resolve(&self, link: &Link) -> Option<u32> {
        match link {
            Link::Root => None,
            Link::Read(at) => Some(*at),
            Link::Named(uuid) => self.by_uuid.get(uuid).copied(),
        }
    }

    /// The records on branches a rewind abandoned, as the records read so far say.
    pub(super) fn plan(&self) -> Plan {
        let Some(leaf) = self.leaf else {
            return Plan::default();
        };
        let parents: Vec<Option<u32>> =
            self.nodes.iter().map(|n| self.resolve(&n.parent)).collect();
        let Chain { on_chain, forks } = self.chain(leaf, &parents);
        let children = Children::of(&parents);
        let answers: HashSet<&str> = (self.nodes.iter().zip(&on_chain))
            .filter_map(|(node, &on)| match &node.kind {
                Kind::Answer(Some(id)) if on => Some(&**id),
                _ => None,
            })
            .collect();
        let mut seen = vec![false; self.nodes.len()];
        let mut branches = Vec::new();
        let mut abandoned_turns = 0;
        for (at, node) in self.nodes.iter().enumerate().filter(|&(at, _)| forks[at]) {
            for &child in children.under(at) {
                let Some((records, turns)) =
                    self.branch(child, &on_chain, &children, &answers, &mut seen)
                else {
                    continue;
                };
                abandoned_turns += turns;
                branches.push(Abandoned {
                    fork: node.line,
                    records,
                });
            }
        }
        let turns = self.nodes.iter().filter(|n| n.kind.is_turn()).count();
        if abandoned_turns * 2 > turns {
            return Plan {
                held_back: true,
                ..Plan::default()
            };
        }
        Plan::new(branches)
    }

    /// The chain from `leaf` to its root.
    fn chain(&self, leaf: u32, parents: &[Option<u32>]) -> Chain {
        let mut on_chain = vec![false; self.nodes.len()];
        let mut forks = vec![false; self.nodes.len()];
        let mut next = Some(leaf as usize);
        while let Some(at) = next {
            on_chain[at] = true;
            let parent = parents[at].map(|p| p as usize).filter(|&p| !on_chain[p]);
            let resume = match &self.nodes[at].kind {
                Kind::Boundary(Some(head)) => self.by_uuid.get(head).map(|&h| h as usize),
                _ => None,
            };
            if let Some(p) = parent {
                forks[p] = true;
            }
            next = parent.or(resume.filter(|&h| !on_chain[h]));
        }
        Chain { on_chain, forks }
    }

    /// The records under `root`, a child of a chain record that is not on the chain, when
    /// they restart the conversation: their lines, ascending, and how many are turns.
    fn branch(
        &self,
        root: u32,
        on_chain: &[bool],
        children: &Children,
        answers: &HashSet<&str>,
        seen: &mut [bool],
    ) -> Option<(Vec<usize>, usize)> {
        // Each entry: a node, and whether no turn lies between it and `root`.
        let mut stack = vec![(root as usize, true)];
        let mut lines = Vec::new();
        let mut turns = 0;
        let mut restarts = false;
        while let Some((at, first)) = stack.pop() {
            if on_chain[at] || seen[at] {
                continue;
            }
            seen[at] = true;
            let node = &self.nodes[at];
            lines.push(node.line);
            let turn = node.kind.is_turn();
            if turn {
                turns += 1;
                restarts |= first && !node.kind.carried(answers);
            }
            let below = first && !turn;
            stack.extend(children.under(at).iter().map(|&c| (c as usize, below)));
        }
        lines.sort_unstable();
        restarts.then_some((lines, turns))
    }
}

/// The nodes from the leaf to the root.
struct Chain {
    on_chain: Vec<bool>,
    /// The chain's records it reaches from one of their children: only there can a branch
    /// fork off beside it (a preserved segment's head, reached from its boundary, is not one).
    forks: Vec<bool>,
}

/// Every node's children, in file order, in one list.
struct Children {
    /// Where each node's children start in `list` (one more entry than nodes).
    start: Vec<usize>,
    list: Vec<u32>,
}

impl Children {
    fn of(parents: &[Option<u32>]) -> Children {
        let mut start = vec![0; parents.len() + 1];
        for p in parents.iter().flatten() {
            start[*p as usize + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut next = start.clone();
        let mut list = vec![0; start[parents.len()]];
        for (child, p) in parents.iter().enumerate() {
            if let Some(p) = p {
                list[next[*p as usize]] = child as u32;
                next[*p as usize] += 1;
            }
        }
        Children { start, list }
    }

    fn under(&self, at: usize) -> &[u32] {
        &self.list[self.start[at]..self.start[at + 1]]
    }
}

/// The records left out of the conversation: the branches a rewind abandoned.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Plan {
    branches: Vec<Abandoned>,
    /// Line → index of its branch.
    by_line: HashMap<usize, usize>,
    /// Branches were found, but they held most of the turns, so none is left out.
    held_back: bool,
}

impl Plan {
    fn new(branches: Vec<Abandoned>) -> Plan {
        let by_line = (branches.iter().enumerate())
            .flat_map(|(b, branch)| branch.records.iter().map(move |&line| (line, b)))
            .collect();
        Plan {
            branches,
            by_line,
            held_back: false,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.branches.is_empty()
    }

    /// Whether more turns may let the branches held back be left out after all.
    pub(super) fn held_back(&self) -> bool {
        self.held_back
    }

    /// Whether the record at `line` is left out: it is on a planned branch, or hangs from a
    /// record that is (a record read after the plan was made joins its parent's branch).
    pub(super) fn leaves_out(&mut self, line: usize, parent: Option<usize>) -> bool {
        if self.by_line.is_empty() {
            return false;
        }
        if self.by_line.contains_key(&line) {
            return true;
        }
        let Some(&branch) = parent.and_then(|p| self.by_line.get(&p)) else {
            return false;
        };
        self.branches[branch].records.push(line);
        self.by_line.insert(line, branch);
        true
    }

    pub(super) fn branches(&self) -> &[Abandoned] {
        &self.branches
    }
}
