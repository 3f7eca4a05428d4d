//! Tool-call groups: an assistant message's client-side calls and the messages holding their
//! results (parallel calls included) form one group that a compaction must keep whole.
//!
//! Owns: pairing calls with results by id (a reused id pairs each result with the nearest
//! earlier call still unanswered, and is listed), merging groups that share a message, and
//! saying which groups are incomplete (a call without a result, a result without its call).
//! Calls the provider runs itself (`server`) belong to no group.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::session::{Part, Session};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub id: usize,
    /// Message indices, ascending.
    pub messages: Vec<usize>,
    /// Client-side call ids of the group, in call order (then orphan result ids).
    pub call_ids: Vec<String>,
    /// Calls with no result anywhere after them.
    pub unanswered: Vec<String>,
    /// Results whose call is not in the session.
    pub orphaned: Vec<String>,
}

impl Group {
    pub fn complete(&self) -> bool {
        self.unanswered.is_empty() && self.orphaned.is_empty()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grouping {
    pub groups: Vec<Group>,
    /// For each message, the group it belongs to.
    pub of_message: Vec<Option<usize>>,
    /// Call ids used by more than one client-side call, in the order their first call appears.
    pub duplicates: Vec<Duplicate>,
}

/// One call id shared by several client-side calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    pub id: String,
    /// How many calls use it.
    pub calls: usize,
    /// The messages holding those calls, ascending.
    pub messages: Vec<usize>,
}

/// Groups the messages of one session (children are grouped on their own).
///
/// A result is paired with the nearest preceding call of its id that has no result yet (with
/// the nearest preceding call when all have one, a repeated result): two calls sharing an id
/// then each get their own result, in order, and the id is listed in `duplicates`.
pub fn group_messages(session: &Session) -> Grouping {
    let n = session.messages.len();
    let mut parent: Vec<usize> = (0..n).collect();
    let mut calls: Vec<Call> = Vec::new();
    let mut calls_of: HashMap<&str, Vec<usize>> = HashMap::new();
    // Per id, its calls still without a result (a stack: the nearest is on top).
    let mut open_of: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut server_calls: HashSet<&str> = HashSet::new();
    let mut in_group = vec![false; n];
    let mut orphans: Vec<(usize, &str)> = Vec::new();

    for (i, message) in session.messages.iter().enumerate() {
        for part in &message.parts {
            match part {
                Part::ToolCall {
                    id, server: true, ..
                } => {
                    server_calls.insert(id);
                }
                Part::ToolCall { id, .. } => {
                    calls_of.entry(id).or_default().push(calls.len());
                    open_of.entry(id).or_default().push(calls.len());
                    calls.push(Call {
                        message: i,
                        id,
                        answered: false,
                    });
                    in_group[i] = true;
                }
                Part::ToolResult { call_id, .. } => {
                    if server_calls.contains(call_id.as_str()) {
                        continue;
                    }
                    let id = call_id.as_str();
                    let open = open_of.get_mut(id).and_then(Vec::pop);
                    let nearest = open.or_else(|| calls_of.get(id).and_then(|c| c.last().copied()));
                    match nearest.and_then(|c| calls.get_mut(c)) {
                        Some(call) => {
                            call.answered = true;
                            union(&mut parent, call.message, i);
                        }
                        None => orphans.push((i, call_id)),
                    }
                    in_group[i] = true;
                }
                _ => {}
            }
        }
    }

    let mut grouping = number_groups(&mut parent, &in_group);
    list_calls(&mut grouping, &calls, &orphans);
    grouping.duplicates = duplicates(&calls, &calls_of);
    grouping
}

/// Lists each group's call ids in call order and those still without a result, then the ids
/// of results without a call.
fn list_calls(grouping: &mut Grouping, calls: &[Call], orphans: &[(usize, &str)]) {
    let mut listed: HashSet<(usize, &str)> = HashSet::new();
    let mut unanswered: HashSet<(usize, &str)> = HashSet::new();
    for call in calls {
        let Some(gid) = grouping.of_message.get(call.message).copied().flatten() else {
            continue;
        };
        let Some(group) = grouping.groups.get_mut(gid) else {
            continue;
        };
        if listed.insert((gid, call.id)) {
            group.call_ids.push(call.id.to_string());
        }
        if !call.answered && unanswered.insert((gid, call.id)) {
            group.unanswered.push(call.id.to_string());
        }
    }
    for &(i, call_id) in orphans {
        let gid = grouping.of_message.get(i).copied().flatten();
        if let Some(group) = gid.and_then(|g| grouping.groups.get_mut(g)) {
            group.call_ids.push(call_id.to_string());
            group.orphaned.push(call_id.to_string());
        }
    }
}

/// One client-side tool call, in session order.
struct Call<'a> {
    message: usize,
    id: &'a str,
    answered: bool,
}

/// Ids shared by several calls, in the order their first call appears.
fn duplicates(calls: &[Call], calls_of: &HashMap<&str, Vec<usize>>) -> Vec<Duplicate> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for call in calls {
        let Some(all) = calls_of.get(call.id).filter(|all| all.len() > 1) else {
            continue;
        };
        if seen.insert(call.id) {
            let mut messages: Vec<usize> = all
                .iter()
                .filter_map(|&c| calls.get(c))
                .map(|c| c.message)
                .collect();
            messages.dedup();
            out.push(Duplicate {
                id: call.id.to_string(),
                calls: all.len(),
                messages,
            });
        }
    }
    out
}

/// Numbers the groups by their first message and lists each group's messages.
fn number_groups(parent: &mut [usize], in_group: &[bool]) -> Grouping {
    let mut root_to_group: HashMap<usize, usize> = HashMap::new();
    let mut grouping = Grouping {
        groups: Vec::new(),
        of_message: vec![None; in_group.len()],
        duplicates: Vec::new(),
    };
    for (i, _) in in_group.iter().enumerate().filter(|(_, grouped)| **grouped) {
        let root = find(parent, i);
        let gid = *root_to_group.entry(root).or_insert_with(|| {
            grouping.groups.push(Group {
                id: grouping.groups.len(),
                messages: Vec::new(),
                call_ids: Vec::new(),
                unanswered: Vec::new(),
                orphaned: Vec::new(),
            });
            grouping.groups.len() - 1
        });
        grouping.of_message[i] = Some(gid);
        grouping.groups[gid].messages.push(i);
    }
    grouping
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb)] = ra.min(rb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Format, Message, Role};
    use std::sync::Arc;

    fn call(id: &str) -> Part {
        Part::ToolCall {
            id: id.into(),
            name: "bash".into(),
            arguments: "{}".into(),
            server: false,
        }
    }

    fn result(id: &str) -> Part {
        Part::ToolResult {
            call_id: id.into(),
            content: vec![Part::text("ok")],
            is_error: None,
        }
    }

    fn session(messages: Vec<(Role, Vec<Part>)>) -> Session {
        let mut s = Session::new(Format::OPENAI_CHAT, "t", Arc::new(Vec::new()));
        for (i, (role, parts)) in messages.into_iter().enumerate() {
            let mut m = Message::new(role, i);
            m.parts = parts;
            s.push(m);
        }
        s
    }

    #[test]
    fn parallel_calls_and_their_results_form_one_group() {
        let s = session(vec![
            (Role::User, vec![Part::text("hi")]),
            (Role::Assistant, vec![call("a"), call("b")]),
            (Role::Tool, vec![result("a")]),
            (Role::Tool, vec![result("b")]),
            (Role::Assistant, vec![Part::text("done")]),
        ]);
        let g = group_messages(&s);
        assert_eq!(g.groups.len(), 1);
        assert_eq!(g.groups[0].messages, vec![1, 2, 3]);
        assert_eq!(g.groups[0].call_ids, vec!["a", "b"]);
        assert!(g.groups[0].complete());
        assert_eq!(g.of_message, vec![None, Some(0), Some(0), Some(0), None]);
    }

    #[test]
    fn missing_result_and_orphan_result_are_incomplete() {
        let s = session(vec![
            (Role::Assistant, vec![call("a"), call("b")]),
            (Role::Tool, vec![result("a")]),
            (Role::Tool, vec![result("zzz")]),
        ]);
        let g = group_messages(&s);
        assert_eq!(g.groups.len(), 2);
        assert_eq!(g.groups[0].unanswered, vec!["b"]);
        assert_eq!(g.groups[1].orphaned, vec!["zzz"]);
        assert_eq!(g.groups[1].messages, vec![2]);
        assert!(!g.groups[0].complete() && !g.groups[1].complete());
    }

    /// Two rounds reusing one call id: each result goes with its own round, and the id is
    /// reported as shared.
    #[test]
    fn a_reused_call_id_pairs_each_result_with_its_own_call() {
        let s = session(vec![
            (Role::Assistant, vec![call("a")]),
            (Role::Tool, vec![result("a")]),
            (Role::User, vec![Part::text("again")]),
            (Role::Assistant, vec![call("a")]),
            (Role::Tool, vec![result("a")]),
        ]);
        let g = group_messages(&s);
        let messages: Vec<Vec<usize>> = g.groups.iter().map(|g| g.messages.clone()).collect();
        assert_eq!(messages, vec![vec![0, 1], vec![3, 4]]);
        assert!(g.groups.iter().all(|g| g.complete() && g.call_ids == ["a"]));
        assert_eq!(
            g.duplicates,
            vec![Duplicate {
                id: "a".into(),
                calls: 2,
                messages: vec![0, 3]
            }]
        );
    }

    /// The second call of a reused id whose result never came is the one without a result.
    #[test]
    fn a_reused_call_id_without_a_second_result_leaves_the_second_call_unanswered() {
        let s = session(vec![
            (Role::Assistant, vec![call("a")]),
            (Role::Tool, vec![result("a")]),
            (Role::Assistant, vec![call("a")]),
        ]);
        let g = group_messages(&s);
        assert_eq!(g.groups.len(), 2);
        assert!(g.groups[0].complete());
        assert_eq!(g.groups[1].messages, vec![2]);
        assert_eq!(g.groups[1].unanswered, vec!["a"]);
    }

    #[test]
    fn server_side_calls_belong_to_no_group() {
        let s = session(vec![
            (
                Role::Assistant,
                vec![Part::ToolCall {
                    id: "ws".into(),
                    name: "web_search".into(),
                    arguments: "{}".into(),
                    server: true,
                }],
            ),
            (Role::Tool, vec![result("ws")]),
        ]);
        let g = group_messages(&s);
        assert!(g.groups.is_empty());
    }
}
