//! Tool-call groups: an assistant message's client-side calls and the messages holding their
//! results (parallel calls included) form one group that a compaction must keep whole.
//!
//! Owns: pairing calls with results by id, merging groups that share a message, and saying
//! which groups are incomplete (a call without a result, a result without its call). Calls the
//! provider runs itself (`server`) belong to no group.

use std::collections::{HashMap, HashSet};

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
}

/// Groups the messages of one session (children are grouped on their own).
pub fn group_messages(session: &Session) -> Grouping {
    let n = session.messages.len();
    let mut parent: Vec<usize> = (0..n).collect();
    let mut call_owner: HashMap<&str, usize> = HashMap::new();
    let mut server_calls: HashSet<&str> = HashSet::new();
    let mut answered: HashSet<&str> = HashSet::new();
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
                    call_owner.entry(id).or_insert(i);
                    in_group[i] = true;
                }
                Part::ToolResult { call_id, .. } => {
                    if server_calls.contains(call_id.as_str()) {
                        continue;
                    }
                    match call_owner.get(call_id.as_str()) {
                        Some(&owner) => {
                            union(&mut parent, owner, i);
                            answered.insert(call_id);
                        }
                        None => orphans.push((i, call_id)),
                    }
                    in_group[i] = true;
                }
                _ => {}
            }
        }
    }

    // Number groups by their first message.
    let mut root_to_group: HashMap<usize, usize> = HashMap::new();
    let mut grouping = Grouping {
        groups: Vec::new(),
        of_message: vec![None; n],
    };
    for (i, _) in in_group.iter().enumerate().filter(|(_, grouped)| **grouped) {
        let root = find(&mut parent, i);
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
        let group = &mut grouping.groups[gid];
        group.messages.push(i);
        for (id, _) in session.messages[i].client_calls() {
            if call_owner.get(id) == Some(&i) && !group.call_ids.iter().any(|c| c == id) {
                group.call_ids.push(id.to_string());
                if !answered.contains(id) {
                    group.unanswered.push(id.to_string());
                }
            }
        }
    }
    for (i, call_id) in orphans {
        if let Some(gid) = grouping.of_message[i] {
            let group = &mut grouping.groups[gid];
            group.call_ids.push(call_id.to_string());
            group.orphaned.push(call_id.to_string());
        }
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
        let mut s = Session::new(Format::OpenAiChat, "t", Arc::new(Vec::new()));
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
