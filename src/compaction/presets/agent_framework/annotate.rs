//! The `_group` annotation: reading it as the framework validates it, writing it
//! (`_write_group_annotation`, cached token counts kept only on the current basis in 1.23),
//! incremental `annotate_message_groups` (re-annotating from the first gap, widened back to a
//! result's declaration; linked groups re-included when any member is) and
//! `annotate_token_counts` with the framework's estimator.

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use serde_json::{json, Map, Value};

use super::estimate::count_message;
use super::groups::{group_messages, walk_pairs, GroupKind};
use super::model::{get, truthy, AfMsg, Group, Keep, Tokens, EXCLUDED, GROUP};
use super::settled::Outside;
use super::Version;

const BASIS: i64 = 2;

/// The annotation fields the framework knows, in the order it writes them (1.17: the first
/// five).
const KNOWN: &[&str] = &[
    "id",
    "kind",
    "index",
    "has_reasoning",
    "token_count",
    "token_count_basis",
];

fn raw(m: &AfMsg) -> Option<&Map<String, Value>> {
    get(&m.props, GROUP).and_then(Value::as_object)
}

fn is_int(v: &Value) -> bool {
    v.as_i64().is_some() || v.as_u64().is_some()
}

/// The fields `_read_group_annotation` checks, read in one pass over the annotation.
struct Read<'a> {
    map: &'a Map<String, Value>,
    id: &'a str,
    kind: GroupKind,
    index: &'a Value,
}

/// `_read_group_annotation`: the annotation if well-formed.
fn valid(m: &AfMsg) -> Option<Read<'_>> {
    let map = raw(m)?;
    let (mut id, mut kind, mut index, mut reasoning, mut token_count) =
        (None, None, None, None, None);
    for (k, v) in map {
        match k.as_str() {
            "id" => id = Some(v),
            "kind" => kind = Some(v),
            "index" => index = Some(v),
            "has_reasoning" => reasoning = Some(v),
            "token_count" => token_count = Some(v),
            _ => {}
        }
    }
    if token_count.is_some_and(|t| !t.is_null() && !is_int(t)) {
        return None;
    }
    reasoning.filter(|r| r.is_boolean())?;
    Some(Read {
        map,
        id: id?.as_str()?,
        kind: GroupKind::parse(kind?.as_str()?)?,
        index: index.filter(|i| is_int(i))?,
    })
}

/// The valid annotation's id, kind and index, read once per message (the list's walks ask
/// for them again and again).
fn group(m: &AfMsg) -> Option<&Group> {
    m.known
        .group
        .get_or_init(|| {
            valid(m).map(|a| Group {
                id: a.id.into(),
                kind: a.kind,
                index: a.index.as_i64(),
            })
        })
        .as_ref()
}

pub fn group_id(m: &AfMsg) -> Option<&str> {
    group(m).map(|g| &*g.id)
}

pub fn group_kind(m: &AfMsg) -> Option<GroupKind> {
    group(m).map(|g| g.kind)
}

pub fn group_index(m: &AfMsg) -> Option<i64> {
    group(m)?.index
}

fn basis_current(a: &Map<String, Value>, v: Version) -> bool {
    v == Version::V1_17 || get(a, "token_count_basis").and_then(Value::as_f64) == Some(BASIS as f64)
}

/// `_token_count`: the cached estimate, if current.
pub fn token_count(m: &AfMsg, v: Version) -> Option<i64> {
    let t = m
        .known
        .tokens
        .get_or_init(|| valid(m).map(|a| tokens_of(a.map)))
        .as_ref()?;
    (v == Version::V1_17 || t.basis).then_some(t.count)?
}

/// The token count and basis a valid annotation `a` holds.
fn tokens_of(a: &Map<String, Value>) -> Tokens {
    Tokens {
        count: get(a, "token_count").and_then(Value::as_i64),
        basis: get(a, "token_count_basis").and_then(Value::as_f64) == Some(BASIS as f64),
    }
}

pub fn write_token_count(m: &mut AfMsg, count: i64, v: Version) {
    // An integer count keeps a valid annotation valid, with its id, kind and index.
    let was_valid = m.known.group.get().is_some_and(Option::is_some);
    let keep = Keep {
        group: was_valid,
        tokens: false,
        excluded: true,
    };
    let written = match (m.props_mut_keeping(keep).get_mut(GROUP)).and_then(Value::as_object_mut) {
        Some(a) => {
            a.insert("token_count".into(), json!(count));
            if v == Version::V1_23 {
                a.insert("token_count_basis".into(), json!(BASIS));
            }
            Some(tokens_of(a))
        }
        None => None,
    };
    if let Some(tokens) = written.filter(|_| was_valid) {
        let _ = m.known.tokens.set(Some(tokens));
    }
}

fn write_annotation(
    m: &mut AfMsg,
    id: &str,
    kind: GroupKind,
    index: i64,
    reasoning: bool,
    v: Version,
) {
    if raw(m).is_some_and(|a| written_already(a, id, kind, index, reasoning, v)) {
        return;
    }
    let a = rewritten(raw(m), id, kind, index, reasoning, v);
    // What is written is a valid annotation of these id, kind and index.
    let tokens = tokens_of(&a);
    let keep = Keep {
        excluded: true,
        ..Keep::default()
    };
    m.props_mut_keeping(keep)
        .insert(GROUP.into(), Value::Object(a));
    let group = Group {
        id: id.into(),
        kind,
        index: Some(index),
    };
    let _ = m.known.group.set(Some(group));
    let _ = m.known.tokens.set(Some(tokens));
}

/// The annotation the framework writes over `old`: the known fields in its order, a token count
/// kept only when null or an integer of the current basis (and the basis with it), then the
/// old annotation's unknown fields.
fn rewritten(
    old: Option<&Map<String, Value>>,
    id: &str,
    kind: GroupKind,
    index: i64,
    reasoning: bool,
    v: Version,
) -> Map<String, Value> {
    let mut token_count = Value::Null;
    let mut unknown = Map::new();
    if let Some(a) = old {
        let tc = a.get("token_count").cloned().unwrap_or(Value::Null);
        if basis_current(a, v) && (tc.is_null() || is_int(&tc)) {
            token_count = tc;
        }
        let known: &[&str] = match v {
            Version::V1_23 => KNOWN,
            Version::V1_17 => &KNOWN[..5],
        };
        for (k, val) in a {
            if !known.contains(&k.as_str()) {
                unknown.insert(k.clone(), val.clone());
            }
        }
    }
    // The fields in the order the framework writes them, filled into a copy of an empty
    // annotation: a copy reuses the keys' table, where inserting hashes each key again.
    let mut a = empty_annotation(v).clone();
    let basis = match v {
        Version::V1_23 if !token_count.is_null() => json!(BASIS),
        _ => Value::Null,
    };
    let values = [
        json!(id),
        json!(kind.as_str()),
        json!(index),
        json!(reasoning),
        token_count,
        basis,
    ];
    for (slot, value) in a.values_mut().zip(values) {
        *slot = value;
    }
    a.extend(unknown);
    a
}

/// Whether `a` is the annotation `write_annotation` would write over it: the known fields
/// first, in the order they are written, with the values it would write (a token count kept
/// only when null or an integer of the current basis, and the basis with it). Re-annotating an
/// annotated list mostly writes what is there; then nothing is copied.
fn written_already(
    a: &Map<String, Value>,
    id: &str,
    kind: GroupKind,
    index: i64,
    reasoning: bool,
    v: Version,
) -> bool {
    let known: &[&str] = match v {
        Version::V1_23 => KNOWN,
        Version::V1_17 => &KNOWN[..5],
    };
    // Fields after the known ones are unknown to the framework (each key is there once), and
    // are written back after them, in their order.
    if a.len() < known.len() || !a.keys().zip(known).all(|(k, n)| k == n) {
        return false;
    }
    let mut values = [&Value::Null; 6];
    for (slot, value) in values.iter_mut().zip(a.values()) {
        *slot = value;
    }
    let [id_now, kind_now, index_now, reasoning_now, token_count, basis] = values;
    let token_count_kept = token_count.is_null() || (is_int(token_count) && basis_current(a, v));
    let basis_right = match v {
        Version::V1_23 if token_count.is_null() => basis.is_null(),
        Version::V1_23 => *basis == json!(BASIS),
        Version::V1_17 => true,
    };
    id_now.as_str() == Some(id)
        && kind_now.as_str() == Some(kind.as_str())
        && *index_now == json!(index)
        && *reasoning_now == Value::Bool(reasoning)
        && token_count_kept
        && basis_right
}

/// An annotation's known fields, in the order `write_annotation` writes them, all null.
fn empty_annotation(v: Version) -> &'static Map<String, Value> {
    static V1_23: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    static V1_17: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    let (cell, keys) = match v {
        Version::V1_23 => (&V1_23, KNOWN),
        Version::V1_17 => (&V1_17, &KNOWN[..5]),
    };
    cell.get_or_init(|| keys.iter().map(|k| (k.to_string(), Value::Null)).collect())
}

/// `_ordered_group_ids_from_annotations`.
pub fn ordered_group_ids(msgs: &[AfMsg]) -> Vec<String> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for m in msgs {
        if let Some(id) = group_id(m) {
            if seen.insert(id) {
                out.push(id.to_string());
            }
        }
    }
    out
}

/// Where re-annotation before `index` starts: the start of the group before it; `index` itself
/// when settled messages stand between the two (the framework's walk back stops at them).
fn reannotation_start(msgs: &[AfMsg], index: usize, outside: &Outside) -> usize {
    if index == 0 || outside.follows(msgs[index - 1].id()) {
        return index;
    }
    let mut prev = index - 1;
    let Some(prev_id) = group_id(&msgs[prev]) else {
        return prev;
    };
    while prev > 0 && group_id(&msgs[prev - 1]) == Some(prev_id) {
        prev -= 1;
    }
    prev
}

fn tool_pair_reannotation_start(msgs: &[AfMsg], start: usize, v: Version) -> usize {
    let mut matching: Vec<usize> = Vec::new();
    walk_pairs(msgs, v, |mi, cands| {
        if mi >= start {
            matching.extend(cands.iter().copied().filter(|&i| i < start));
        }
    });
    let Some(mut earliest) = matching.into_iter().min() else {
        return start;
    };
    let Some(decl) = group_id(&msgs[earliest]).map(str::to_string) else {
        return earliest;
    };
    while earliest > 0 && group_id(&msgs[earliest - 1]) == Some(decl.as_str()) {
        earliest -= 1;
    }
    earliest
}

fn first_gap(msgs: &[AfMsg]) -> Option<usize> {
    msgs.iter().position(|m| group_id(m).is_none())
}

/// `annotate_message_groups(messages, from_index=..., force_reannotate=...)` (no tokenizer:
/// no caller in the emulated paths passes one) over a working list that stands after the
/// settled messages `outside`; returns where it re-annotated from, if it did.
pub fn annotate_groups(
    msgs: &mut [AfMsg],
    from: Option<usize>,
    force: bool,
    v: Version,
    outside: &Outside,
) -> Option<usize> {
    if msgs.is_empty() {
        return None;
    }
    let start = if force {
        0
    } else if let Some(f) = from {
        f.min(msgs.len() - 1)
    } else {
        first_gap(msgs)?
    };
    let start = reannotation_start(msgs, start, outside);
    let start = tool_pair_reannotation_start(msgs, start, v);
    let offset = msgs[..start]
        .iter()
        .filter_map(group_index)
        .max()
        .max(outside.max_index())
        .map_or(0, |x| x + 1);
    let (head, tail) = msgs.split_at_mut(start);
    let spans = group_messages(tail, start, head, v, outside);
    let mut span_counts: HashMap<&str, usize> = HashMap::new();
    for s in &spans {
        *span_counts.entry(s.group_id.as_str()).or_default() += 1;
    }
    let mut indices: HashMap<String, i64> = HashMap::new();
    let mut linked: HashMap<String, Vec<usize>> = HashMap::new();
    for s in &spans {
        let next = offset + indices.len() as i64;
        let index = *indices.entry(s.group_id.clone()).or_insert(next);
        let (first, last) = (start + s.start, start + s.end);
        for (idx, m) in msgs.iter_mut().enumerate().take(last + 1).skip(first) {
            write_annotation(m, &s.group_id, s.kind, index, s.has_reasoning, v);
            if !m.props.contains_key(EXCLUDED) {
                m.set_excluded_flag(false);
            }
            if span_counts.get(s.group_id.as_str()).copied().unwrap_or(0) > 1 {
                linked.entry(s.group_id.clone()).or_default().push(idx);
            }
        }
    }
    for members in linked.values() {
        if members.iter().any(|&i| !msgs[i].excluded()) {
            for &i in members {
                msgs[i].set_excluded_flag(false);
            }
        }
    }
    Some(start)
}

/// `annotate_token_counts(messages, tokenizer=CharacterEstimatorTokenizer())`.
pub fn annotate_tokens(msgs: &mut [AfMsg], v: Version, outside: &Outside) {
    if msgs.is_empty() {
        return;
    }
    annotate_groups(msgs, None, false, v, outside);
    let Some(start) = msgs.iter().position(|m| token_count(m, v).is_none()) else {
        return;
    };
    for m in &mut msgs[start..] {
        let count = count_message(m, v);
        write_token_count(m, count, v);
    }
}

/// `included_token_count`.
pub fn included_tokens(msgs: &[AfMsg], v: Version) -> i64 {
    msgs.iter()
        .filter(|m| !m.excluded())
        .filter_map(|m| token_count(m, v))
        .sum()
}

/// `set_excluded`: whether inclusion changed.
pub fn set_excluded(m: &mut AfMsg, excluded: bool, reason: Option<&str>) -> bool {
    let changed = m.props.get(EXCLUDED).is_some_and(truthy) != excluded;
    if changed {
        m.set_excluded_flag(excluded);
    }
    if let Some(r) = reason {
        let keep = Keep {
            group: true,
            tokens: true,
            excluded: true,
        };
        m.props_mut_keeping(keep)
            .insert(super::model::EXCLUDE_REASON.into(), json!(r));
    }
    changed
}

/// Group ids → member message indices, kinds, and first positions: each group held once, in
/// the order its first member stands, under the id its annotation was read with (shared, not
/// copied).
pub struct GroupMaps {
    slot: HashMap<Arc<str>, usize>,
    members: Vec<Vec<usize>>,
    kinds: Vec<GroupKind>,
    starts: Vec<usize>,
}

pub fn group_maps(msgs: &[AfMsg]) -> GroupMaps {
    let mut g = GroupMaps {
        slot: HashMap::new(),
        members: Vec::new(),
        kinds: Vec::new(),
        starts: Vec::new(),
    };
    // A valid annotation has both an id and a kind: a group gains its kind and start at its
    // first member.
    for (i, m) in msgs.iter().enumerate() {
        let Some(a) = group(m) else { continue };
        match g.slot.get(&*a.id) {
            Some(&k) => g.members[k].push(i),
            None => {
                g.slot.insert(Arc::clone(&a.id), g.members.len());
                g.members.push(vec![i]);
                g.starts.push(i);
                g.kinds.push(a.kind);
            }
        }
    }
    g
}

/// Members, kinds and starts, each a map by group id.
#[cfg(test)]
pub type ById = (
    HashMap<String, Vec<usize>>,
    HashMap<String, GroupKind>,
    HashMap<String, usize>,
);

impl GroupMaps {
    pub fn kind(&self, id: &str) -> Option<GroupKind> {
        self.slot.get(id).map(|&k| self.kinds[k])
    }
    pub fn of(&self, id: &str) -> &[usize] {
        self.slot
            .get(id)
            .map(|&k| self.members[k].as_slice())
            .unwrap_or_default()
    }
    /// The position of the group's first member.
    pub fn start(&self, id: &str) -> Option<usize> {
        self.slot.get(id).map(|&k| self.starts[k])
    }
    /// Each group's members, the groups in the order their first members stand.
    pub fn each(&self) -> impl Iterator<Item = &[usize]> {
        self.members.iter().map(Vec::as_slice)
    }
    /// The three maps by id: members, kinds, starts.
    #[cfg(test)]
    pub fn by_id(&self) -> ById {
        let mut out = (HashMap::new(), HashMap::new(), HashMap::new());
        for (id, &k) in &self.slot {
            out.0.insert(id.to_string(), self.members[k].clone());
            out.1.insert(id.to_string(), self.kinds[k]);
            out.2.insert(id.to_string(), self.starts[k]);
        }
        out
    }
}

/// `_included_group_ids`.
pub fn included_group_ids(msgs: &[AfMsg], ordered: &[String], g: &GroupMaps) -> Vec<String> {
    ordered
        .iter()
        .filter(|id| g.of(id).iter().any(|&i| !msgs[i].excluded()))
        .cloned()
        .collect()
}

/// How many of `_included_group_ids` have a kind `keep` accepts (a group's kind is its first
/// member's), counted in one pass without building the group maps.
pub fn count_included_groups(msgs: &[AfMsg], keep: impl Fn(GroupKind) -> bool) -> usize {
    let mut groups: HashMap<&str, (GroupKind, bool)> = HashMap::with_capacity(msgs.len());
    for m in msgs {
        let Some(a) = group(m) else { continue };
        let entry = groups.entry(&*a.id).or_insert((a.kind, false));
        entry.1 |= !m.excluded();
    }
    groups
        .values()
        .filter(|&&(kind, included)| included && keep(kind))
        .count()
}

/// How many included messages stand in the groups of a kind `keep` accepts (a group's kind is
/// its first member's): the members of the included groups the summarization strategy counts,
/// in one pass without building the group maps.
pub fn included_members(msgs: &[AfMsg], keep: impl Fn(GroupKind) -> bool) -> usize {
    let mut kinds: HashMap<&str, GroupKind> = HashMap::with_capacity(msgs.len());
    let mut n = 0;
    for m in msgs {
        let Some(a) = group(m) else { continue };
        let kind = *kinds.entry(&*a.id).or_insert(a.kind);
        if !m.excluded() && keep(kind) {
            n += 1;
        }
    }
    n
}

/// `_minimum_retained_group_ids`.
pub fn minimum_retained(msgs: &[AfMsg], ordered: &[String], g: &GroupMaps) -> HashSet<String> {
    let included = included_group_ids(msgs, ordered, g);
    let last_non_system = included
        .iter()
        .rev()
        .find(|id| g.kind(id) != Some(GroupKind::System));
    last_non_system
        .or_else(|| included.last())
        .into_iter()
        .cloned()
        .collect()
}

#[cfg(test)]
#[path = "annotate_tests.rs"]
mod tests;
