//! Agent Framework's grouping: `_ensure_message_ids`, `group_messages` (system / user /
//! assistant_text / tool_call spans, reasoning prefixes, tool runs) and
//! `_link_tool_call_result_spans` (a later result span union-found into its unambiguous
//! declaration's span, so groups can be non-contiguous). Pure port; annotation lives in
//! `annotate.rs`.

use foldhash::{HashMap, HashMapExt, HashSet};

use super::model::{ctype, field, AfMsg};
use super::settled::Outside;
use super::Version;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupKind {
    System,
    User,
    AssistantText,
    ToolCall,
}

impl GroupKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GroupKind::System => "system",
            GroupKind::User => "user",
            GroupKind::AssistantText => "assistant_text",
            GroupKind::ToolCall => "tool_call",
        }
    }

    pub fn parse(s: &str) -> Option<GroupKind> {
        Some(match s {
            "system" => GroupKind::System,
            "user" => GroupKind::User,
            "assistant_text" => GroupKind::AssistantText,
            "tool_call" => GroupKind::ToolCall,
            _ => return None,
        })
    }
}

/// One span of `group_messages` (indices local to the slice).
#[derive(Debug, Clone)]
pub struct Span {
    pub group_id: String,
    pub kind: GroupKind,
    pub start: usize,
    pub end: usize,
    pub has_reasoning: bool,
}

fn tool_call_types(v: Version) -> &'static [&'static str] {
    match v {
        Version::V1_17 => &[
            "function_call",
            "mcp_server_tool_call",
            "code_interpreter_tool_call",
            "shell_tool_call",
            "image_generation_tool_call",
        ],
        Version::V1_23 => &[
            "function_call",
            "computer_tool_call",
            "mcp_server_tool_call",
            "code_interpreter_tool_call",
            "shell_tool_call",
            "image_generation_tool_call",
        ],
    }
}

fn has_reasoning(m: &AfMsg) -> bool {
    m.types().any(|t| t == "text_reasoning")
}

pub fn is_tool_call_assistant(m: &AfMsg, v: Version) -> bool {
    m.role == "assistant" && m.types().any(|t| tool_call_types(v).contains(&t))
}

pub fn is_reasoning_only(m: &AfMsg) -> bool {
    m.role == "assistant" && !m.contents.is_empty() && m.types().all(|t| t == "text_reasoning")
}

/// `_ensure_message_ids` over the tail `msgs` of a working list from its message `offset`
/// (`head` the messages before it): ids for id-less messages, `msg_{place}`, made
/// collision-free (places and ids in the framework's list, the settled messages `outside`
/// included). The ids taken are gathered only when a message lacks one.
pub fn ensure_ids(msgs: &mut [AfMsg], offset: usize, head: &[AfMsg], outside: &Outside) {
    if msgs.iter().all(|m| m.id().is_some()) {
        return;
    }
    let mut existing: HashSet<String> = head
        .iter()
        .chain(msgs.iter())
        .filter_map(|m| m.id().map(str::to_string))
        .collect();
    let taken = |existing: &HashSet<String>, id: &str| existing.contains(id) || outside.has_id(id);
    let len = msgs.len();
    for (i, m) in msgs.iter_mut().enumerate() {
        if m.id().is_some() {
            continue;
        }
        let mut candidate = format!("msg_{}", outside.global(offset + i));
        if taken(&existing, &candidate) {
            let mut counter = outside.global(offset + len);
            candidate = format!("msg_{counter}");
            while taken(&existing, &candidate) {
                counter += 1;
                candidate = format!("msg_{counter}");
            }
        }
        existing.insert(candidate.clone());
        m.id = Some(candidate);
    }
}

fn group_id_for(m: &AfMsg, group_index: usize) -> String {
    match m.id() {
        Some(id) => format!("group_{id}"),
        None => format!("group_index_{group_index}"),
    }
}

/// `group_messages` over the tail of a working list from its message `offset` (ids assigned
/// first).
pub fn group_messages(
    msgs: &mut [AfMsg],
    offset: usize,
    head: &[AfMsg],
    v: Version,
    outside: &Outside,
) -> Vec<Span> {
    ensure_ids(msgs, offset, head, outside);
    let mut spans = Vec::new();
    let mut i = 0;
    let n = msgs.len();
    while i < n {
        let (span, next) = next_span(msgs, i, spans.len(), v);
        spans.push(span);
        i = next;
    }
    link_spans(msgs, &mut spans, v);
    spans
}

fn single(msgs: &[AfMsg], i: usize, gi: usize, kind: GroupKind) -> (Span, usize) {
    let span = Span {
        group_id: group_id_for(&msgs[i], gi),
        kind,
        start: i,
        end: i,
        has_reasoning: has_reasoning(&msgs[i]),
    };
    (span, i + 1)
}

/// The span starting at `i` and the index after it.
fn next_span(msgs: &[AfMsg], i: usize, gi: usize, v: Version) -> (Span, usize) {
    let n = msgs.len();
    let current = &msgs[i];
    match current.role.as_str() {
        "system" => return single(msgs, i, gi, GroupKind::System),
        "user" => return single(msgs, i, gi, GroupKind::User),
        _ => {}
    }
    let tool_span = |start: usize, k: usize, reasoning: bool| {
        let mut k = k;
        let mut reasoning = reasoning;
        while k < n && is_reasoning_only(&msgs[k]) {
            reasoning = true;
            k += 1;
        }
        while k < n && msgs[k].role == "tool" {
            k += 1;
        }
        let span = Span {
            group_id: group_id_for(&msgs[start], gi),
            kind: GroupKind::ToolCall,
            start,
            end: k - 1,
            has_reasoning: reasoning,
        };
        (span, k)
    };
    if is_reasoning_only(current) {
        let mut j = i;
        while j < n && is_reasoning_only(&msgs[j]) {
            j += 1;
        }
        if j < n && is_tool_call_assistant(&msgs[j], v) {
            return tool_span(i, j + 1, true);
        }
    }
    if is_tool_call_assistant(current, v) {
        return tool_span(i, i + 1, has_reasoning(current));
    }
    if current.role == "tool" {
        let mut k = i + 1;
        while k < n && msgs[k].role == "tool" {
            k += 1;
        }
        let span = Span {
            group_id: group_id_for(current, gi),
            kind: GroupKind::ToolCall,
            start: i,
            end: k - 1,
            has_reasoning: false,
        };
        return (span, k);
    }
    single(msgs, i, gi, GroupKind::AssistantText)
}

/// Call/result content type pairs linked by `call_id`.
fn pair_types(v: Version) -> &'static [(&'static str, &'static str)] {
    match v {
        Version::V1_17 => &[("function_call", "function_result")],
        Version::V1_23 => &[
            ("function_call", "function_result"),
            ("computer_tool_call", "computer_tool_result"),
        ],
    }
}

/// Walks declarations and results as `_unambiguous_tool_call_result_pairs` and
/// `_tool_pair_reannotation_start` do: calls `on_result(message, candidates)` for each result
/// with a known `(type, call_id)` declaration list, which then pops the single candidate.
pub fn walk_pairs(msgs: &[AfMsg], v: Version, mut on_result: impl FnMut(usize, &[usize])) {
    let mut unmatched: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (mi, m) in msgs.iter().enumerate() {
        if m.role != "assistant" && m.role != "tool" {
            continue;
        }
        for c in m.contents.iter() {
            let t = ctype(c);
            let call_id = field(c, "call_id").filter(|s| !s.is_empty());
            let Some(call_id) = call_id else { continue };
            if m.role == "assistant" {
                if let Some((call, _)) = pair_types(v).iter().find(|(call, _)| *call == t) {
                    unmatched.entry((call, call_id)).or_default().push(mi);
                    continue;
                }
            }
            let Some((call, _)) = pair_types(v).iter().find(|(_, res)| *res == t) else {
                continue;
            };
            let Some(cands) = unmatched.get_mut(&(*call, call_id)) else {
                continue;
            };
            on_result(mi, cands);
            if cands.len() == 1 {
                cands.pop();
            }
        }
    }
}

/// `_link_tool_call_result_spans`.
fn link_spans(msgs: &[AfMsg], spans: &mut [Span], v: Version) {
    if spans.len() < 2 {
        return;
    }
    let mut span_of = vec![0usize; msgs.len()];
    for (si, s) in spans.iter().enumerate() {
        for slot in span_of.iter_mut().take(s.end + 1).skip(s.start) {
            *slot = si;
        }
    }
    let mut pairs = Vec::new();
    walk_pairs(msgs, v, |result, cands| {
        if let [decl] = cands {
            pairs.push((*decl, result));
        }
    });
    let mut parents: Vec<usize> = (0..spans.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut linked = false;
    for (decl, result) in pairs {
        let (ds, rs) = (span_of[decl], span_of[result]);
        if ds < rs {
            let (a, b) = (find(&mut parents, rs), find(&mut parents, ds));
            if a != b {
                parents[a.max(b)] = a.min(b);
                linked = true;
            }
        }
    }
    if !linked {
        return;
    }
    let roots: Vec<usize> = (0..spans.len()).map(|i| find(&mut parents, i)).collect();
    let mut reasoning: HashMap<usize, bool> = HashMap::new();
    for (i, s) in spans.iter().enumerate() {
        *reasoning.entry(roots[i]).or_default() |= s.has_reasoning;
    }
    let ids: Vec<String> = spans.iter().map(|s| s.group_id.clone()).collect();
    for (i, s) in spans.iter_mut().enumerate() {
        s.group_id = ids[roots[i]].clone();
        s.has_reasoning = reasoning.get(&roots[i]).copied().unwrap_or(false);
    }
}
