//! Messages a replay settled: the framework keeps every excluded message in its list for ever
//! and walks the whole list at every compaction, so a replay that held them all would do work
//! quadratic in the session. A run of excluded messages that stands inside no other group, and
//! whose groups, ids and call ids nothing outside it shares (the runs settled before it
//! included), can change no later decision: no strategy includes an excluded group again
//! unless a member of it is included, grouping from inside the run ends at the run's end (it
//! starts and is followed by no tool result, and does not end in reasoning), a walk back over
//! a group's messages never crosses it, and ids, call ids and group ids outside the run never
//! meet it. Such runs leave the replay's history; what a later run needs of them is kept here:
//! how many messages they are (the `summary_<len>` id, the `msg_<place>` of an appended id-less
//! message, which always stands after them all), the ids taken (`_ensure_message_ids`, the
//! summary id checks), the largest group index, and the messages themselves, each run after
//! the message that preceded it (found by its id), for the rare run that does reach them (a
//! later result answering a settled call, a repeated id, an inserted message's id), which is
//! then made over the whole list again.
//!
//! Owns: choosing the runs to settle, what the working list has outside it, and the store the
//! histories of one replay share. Must not: decide anything a strategy decides, or settle
//! anything on a path that is not a replay's (`PlanInput::carried`).

use foldhash::{HashMap, HashMapExt};
use std::sync::{Arc, Mutex};

use super::annotate::{group_id, group_index, group_maps};
use super::groups::is_reasoning_only;
use super::model::{field, AfMsg};
use crate::compaction::preset::PlanInput;

/// The settled messages of one replay, in list order, with where each id first occurs.
#[derive(Default)]
struct Store {
    msgs: Vec<AfMsg>,
    /// Where each run starts in `msgs`, and the id of the message it followed (`None`: the
    /// list's first).
    runs: Vec<(usize, Option<String>)>,
    /// The largest group index among the first `i + 1` messages.
    max_index: Vec<Option<i64>>,
    /// Message ids, group ids and call ids, each at its first position.
    ids: HashMap<String, usize>,
    groups: HashMap<String, usize>,
    calls: HashMap<String, usize>,
    /// The ids runs follow (`None`: the list's start), each at its first run's start.
    anchors: Anchors,
}

/// Where the runs following each id start (`None`: the list's start), each at its first run:
/// looked up by a borrowed id, with no string made for the question.
#[derive(Default)]
struct Anchors {
    start: Option<usize>,
    ids: HashMap<String, usize>,
}

impl Anchors {
    /// Records `at` for `id` unless a run following it was recorded before.
    fn first(&mut self, id: Option<String>, at: usize) {
        match id {
            Some(id) => {
                self.ids.entry(id).or_insert(at);
            }
            None => {
                self.start.get_or_insert(at);
            }
        }
    }

    fn get(&self, id: Option<&str>) -> Option<usize> {
        match id {
            Some(id) => self.ids.get(id).copied(),
            None => self.start,
        }
    }
}

impl Store {
    fn push(&mut self, mut m: AfMsg) {
        let at = self.msgs.len();
        if let Some(id) = m.id() {
            self.ids.entry(id.to_string()).or_insert(at);
        }
        if let Some(g) = group_id(&m) {
            self.groups.entry(g.to_string()).or_insert(at);
        }
        for c in call_ids(&m) {
            self.calls.entry(c.to_string()).or_insert(at);
        }
        let prev = self.max_index.last().copied().flatten();
        self.max_index.push(prev.max(group_index(&m)));
        m.origin = None;
        self.msgs.push(m);
    }

    fn push_run(&mut self, after: Option<String>, run: impl IntoIterator<Item = AfMsg>) {
        self.anchors.first(after.clone(), self.msgs.len());
        self.runs.push((self.msgs.len(), after));
        for m in run {
            self.push(m);
        }
    }

    /// The first `upto` messages' runs, each with the id it follows.
    fn runs_upto(&self, upto: usize) -> Vec<(Option<&str>, &[AfMsg])> {
        let mut out = Vec::new();
        for (k, (start, after)) in self.runs.iter().enumerate() {
            let end = self
                .runs
                .get(k + 1)
                .map_or(self.msgs.len(), |r| r.0)
                .min(upto);
            if *start >= end {
                break;
            }
            out.push((after.as_deref(), &self.msgs[*start..end]));
        }
        out
    }
}

/// One history's view of the store: its first `upto` messages.
#[derive(Clone)]
pub struct Settled {
    store: Arc<Mutex<Store>>,
    upto: usize,
}

/// What lies outside a run's working list: nothing, or the settled messages.
#[derive(Clone, Default)]
pub struct Outside {
    settled: Option<Settled>,
}

impl Outside {
    /// The settled messages a replay carries for `input`'s history, if any.
    pub fn of(input: &PlanInput) -> Outside {
        let settled = super::held::of(input)
            .and_then(|h| h.settled.as_ref())
            .filter(|s| s.upto > 0)
            .cloned();
        Outside { settled }
    }

    /// How many messages of the framework's list stand outside the working list.
    pub fn len(&self) -> usize {
        self.settled.as_ref().map_or(0, |s| s.upto)
    }

    /// Where the working list's message `i` stands in the framework's list, for a message
    /// after every settled one (an appended message, or the end of the list).
    pub fn global(&self, i: usize) -> usize {
        i + self.len()
    }

    fn seen(&self, map: impl Fn(&Store) -> Option<usize>) -> bool {
        let Some(s) = &self.settled else {
            return false;
        };
        let Ok(store) = s.store.lock() else {
            return false;
        };
        map(&store).is_some_and(|at| at < s.upto)
    }

    /// Whether a settled message has id `id`.
    pub fn has_id(&self, id: &str) -> bool {
        self.seen(|st| st.ids.get(id).copied())
    }

    /// Whether settled messages stand right after the working message with id `id` (`None`:
    /// at the list's start): the framework's list then has a settled message before the
    /// working message that follows it, where a walk back over a group stops.
    pub fn follows(&self, id: Option<&str>) -> bool {
        self.seen(|st| st.anchors.get(id))
    }

    /// The largest group index among the settled messages.
    pub fn max_index(&self) -> Option<i64> {
        let s = self.settled.as_ref()?;
        let store = s.store.lock().ok()?;
        store
            .max_index
            .get(s.upto.checked_sub(1)?)
            .copied()
            .flatten()
    }

    /// Whether the working list `msgs` meets the settled messages: an id, group id or call id
    /// in both. A run over `msgs` alone would then differ from the framework's over the whole
    /// list.
    pub fn meets(&self, msgs: &[AfMsg]) -> bool {
        let Some(s) = &self.settled else {
            return false;
        };
        let Ok(store) = s.store.lock() else {
            return true;
        };
        // A run follows the first message with the id it followed: a second one would be
        // ambiguous.
        let mut anchors: HashMap<&str, usize> = HashMap::new();
        for id in msgs.iter().filter_map(AfMsg::id) {
            if store.anchors.get(Some(id)).is_some() {
                *anchors.entry(id).or_default() += 1;
            }
        }
        anchors.values().any(|&n| n > 1)
            || msgs.iter().any(|m| touches(&store, s.upto, m))
            || crosses(&store, msgs)
    }

    /// Whether message `m`, joining the working list, would meet the settled messages.
    pub fn touches(&self, m: &AfMsg) -> bool {
        let Some(s) = &self.settled else {
            return false;
        };
        match s.store.lock() {
            Ok(store) => touches(&store, s.upto, m),
            Err(_) => true,
        }
    }

    /// The framework's whole list: `msgs` with the settled runs back in their places, each
    /// right after the first message holding the id it followed (or at the start).
    pub fn whole(&self, msgs: Vec<AfMsg>) -> Vec<AfMsg> {
        let Some(s) = &self.settled else {
            return msgs;
        };
        let Ok(store) = s.store.lock() else {
            return msgs;
        };
        let mut after: HashMap<Option<String>, Vec<&[AfMsg]>> = HashMap::new();
        for (id, run) in store.runs_upto(s.upto) {
            after.entry(id.map(str::to_string)).or_default().push(run);
        }
        // Messages still to place, the next on top.
        let mut stack: Vec<AfMsg> = Vec::new();
        push_runs(&mut after, None, &mut stack);
        let mut out = Vec::with_capacity(msgs.len() + s.upto);
        let mut live = msgs.into_iter();
        while let Some(m) = stack.pop().or_else(|| live.next()) {
            let id = m.id().map(str::to_string);
            out.push(m);
            push_runs(&mut after, id, &mut stack);
        }
        out
    }
}

/// Puts the runs that follow the message with id `id` on `stack`, the first on top.
fn push_runs(
    after: &mut HashMap<Option<String>, Vec<&[AfMsg]>>,
    id: Option<String>,
    stack: &mut Vec<AfMsg>,
) {
    for run in after.remove(&id).into_iter().flatten().rev() {
        stack.extend(run.iter().rev().cloned());
    }
}

/// Whether `m` shares an id, group id or call id with the first `upto` messages of `store`.
/// (An id-less message was appended since the last settling, which left none: it stands after
/// every settled message, where `Outside::global` places it.)
fn touches(store: &Store, upto: usize, m: &AfMsg) -> bool {
    let within = |at: Option<&usize>| at.is_some_and(|&at| at < upto);
    m.id().is_some_and(|id| within(store.ids.get(id)))
        || group_id(m).is_some_and(|g| within(store.groups.get(g)))
        || call_ids(m).any(|c| within(store.calls.get(c)))
}

/// Whether a group or a call id of `msgs` has messages on both sides of settled messages: a
/// scan that starts between them (or links across them) would group differently than the
/// framework's over the whole list.
fn crosses(store: &Store, msgs: &[AfMsg]) -> bool {
    // Settled runs seen before each position.
    let mut runs = 0usize;
    let mut first: HashMap<&str, usize> = HashMap::new();
    if store.anchors.get(None).is_some() {
        runs += 1;
    }
    for m in msgs {
        for key in group_id(m).into_iter().chain(call_ids(m)) {
            if *first.entry(key).or_insert(runs) != runs {
                return true;
            }
        }
        if store.anchors.get(m.id()).is_some() {
            runs += 1;
        }
    }
    false
}

/// The runs of `msgs` (a working list after a run, standing after `outside`) that can be
/// settled, as ranges.
fn settleable(msgs: &[AfMsg], outside: &Outside) -> Vec<std::ops::Range<usize>> {
    if msgs.iter().any(|m| m.id().is_none()) {
        return Vec::new();
    }
    // Where each id and call id first and last occurs (one key space: a clash only settles
    // less).
    let mut span: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, m) in msgs.iter().enumerate() {
        for key in m.id().into_iter().chain(call_ids(m)) {
            span.entry(key).or_insert((i, i)).1 = i;
        }
    }
    let g = group_maps(msgs);
    // Whether a group has members on both sides of the boundary before each position: a run
    // there would stand inside it, where a walk back over the group's messages stops.
    let mut depth = vec![0i64; msgs.len() + 2];
    for members in g.each() {
        if let (Some(&first), Some(&last)) = (members.first(), members.last()) {
            depth[first + 1] += 1;
            depth[last + 1] -= 1;
        }
    }
    let mut inside = Vec::with_capacity(msgs.len() + 1);
    let mut sum = 0;
    for d in depth.iter().take(msgs.len() + 1) {
        sum += d;
        inside.push(sum > 0);
    }
    let unique = |i: usize| {
        msgs[i]
            .id()
            .and_then(|id| span.get(id))
            .is_some_and(|&(first, last)| first == last)
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < msgs.len() {
        let start = i;
        let mut best = start;
        let mut reach = start;
        let anchored = (start == 0 || (unique(start - 1) && !is_reasoning_only(&msgs[start - 1])))
            && !inside[start];
        while anchored && i < msgs.len() {
            let m = &msgs[i];
            let Some(gid) = group_id(m).filter(|_| m.excluded()) else {
                break;
            };
            // A run must share nothing with the runs settled before it either.
            if (i == start && m.role == "tool") || outside.touches(m) {
                break;
            }
            let members = g.of(gid);
            let keys = m.id().into_iter().chain(call_ids(m));
            let mut firsts = members.first().copied().into_iter();
            let mut lasts = members.last().copied().unwrap_or(i);
            let mut before = firsts.any(|f| f < start);
            for key in keys {
                if let Some(&(first, last)) = span.get(key) {
                    before |= first < start;
                    lasts = lasts.max(last);
                }
            }
            if before {
                break;
            }
            reach = reach.max(lasts);
            i += 1;
            let closes = reach < i
                && !is_reasoning_only(m)
                && msgs.get(i).is_some_and(|next| next.role != "tool");
            if closes {
                best = i;
            }
        }
        if best > start {
            out.push(start..best);
            i = best;
        } else {
            i = start + 1;
        }
    }
    out
}

/// Moves the runs `settleable` finds out of `msgs` (a working list after a run over the
/// settled messages `outside`) into the settled messages; the settled messages `msgs` then
/// stands beside, if any.
pub fn settle(msgs: &mut Vec<AfMsg>, outside: &Outside) -> Option<Settled> {
    let runs = settleable(msgs, outside);
    if runs.is_empty() {
        return outside.settled.clone();
    }
    let mut moved: Vec<(Option<String>, Vec<AfMsg>)> = Vec::new();
    for r in runs.iter().rev() {
        let after = r
            .start
            .checked_sub(1)
            .and_then(|p| msgs[p].id())
            .map(str::to_string);
        moved.push((after, msgs.drain(r.clone()).collect()));
    }
    moved.reverse();
    let settled = match &outside.settled {
        Some(s) => {
            let mut shared = s.store.lock().ok()?;
            if shared.msgs.len() == s.upto {
                for (after, run) in moved {
                    shared.push_run(after, run);
                }
                let upto = shared.msgs.len();
                drop(shared);
                Settled {
                    store: Arc::clone(&s.store),
                    upto,
                }
            } else {
                // Another history of the replay (one whose compaction was rejected) grew the
                // store past this one's view: this one gets a store of its own.
                let mut own = Store::default();
                for (after, run) in shared.runs_upto(s.upto) {
                    own.push_run(after.map(str::to_string), run.iter().cloned());
                }
                drop(shared);
                for (after, run) in moved {
                    own.push_run(after, run);
                }
                Settled {
                    upto: own.msgs.len(),
                    store: Arc::new(Mutex::new(own)),
                }
            }
        }
        None => {
            let mut store = Store::default();
            for (after, run) in moved {
                store.push_run(after, run);
            }
            Settled {
                upto: store.msgs.len(),
                store: Arc::new(Mutex::new(store)),
            }
        }
    };
    Some(settled)
}

impl Settled {
    /// How many messages of the framework's list are settled.
    pub fn messages(&self) -> usize {
        self.upto
    }
}

fn call_ids(m: &AfMsg) -> impl Iterator<Item = &str> {
    m.contents
        .iter()
        .filter_map(|c| field(c, "call_id"))
        .filter(|id| !id.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::presets::agent_framework::model::Contents;
    use serde_json::json;

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    fn msg(id: String, role: &str, group: &str, excluded: bool, call: Option<String>) -> AfMsg {
        let annotation = json!({"id": group, "kind": "user", "index": 0, "has_reasoning": false});
        let mut m = AfMsg::inserted(id, "t", annotation, Vec::new());
        m.role = role.into();
        if let Some(c) = call {
            m.contents = Contents::new(vec![json!({"type": "function_call", "call_id": c})]);
        }
        m.props_mut()
            .insert(super::super::model::EXCLUDED.into(), json!(excluded));
        m
    }

    fn dump(msgs: &[AfMsg]) -> Vec<String> {
        msgs.iter()
            .map(|m| format!("{}:{:?}:{}", m.role, m.id(), m.excluded()))
            .collect()
    }

    fn outside(s: &Settled) -> Outside {
        Outside {
            settled: Some(s.clone()),
        }
    }

    /// A list of groups of one to three messages, most of them excluded, a few tool results
    /// and calls, ids from `next` on.
    fn groups(rng: &mut Rng, n: usize, next: &mut usize) -> Vec<AfMsg> {
        let mut out = Vec::new();
        while out.len() < n {
            let group = format!("group_m{next}");
            let excluded = rng.below(10) < 7;
            for k in 0..=rng.below(3) {
                let role = match (k, rng.below(6)) {
                    (0, 0) => "system",
                    (_, 1) if k > 0 => "tool",
                    _ => "assistant",
                };
                let call = (rng.below(8) == 0).then(|| format!("call_{}", rng.below(20)));
                out.push(msg(format!("m{next}"), role, &group, excluded, call));
                *next += 1;
            }
        }
        out
    }

    /// Settling, then growing and excluding the working list as runs do (messages inserted
    /// before a working message, groups excluded), round after round: the whole list rebuilt
    /// from the working list and the settled runs is the list the framework holds.
    #[test]
    fn the_whole_list_comes_back_in_order_after_rounds_of_settling() {
        let mut settled_any = 0;
        for seed in 1..=300u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let mut next = 0;
            let n = 12 + rng.below(30) as usize;
            let mut full = groups(&mut rng, n, &mut next);
            let mut live = full.clone();
            let mut out = Outside::default();
            for round in 0..6 {
                let carried = settle(&mut live, &out);
                if let Some(s) = carried {
                    settled_any += s.messages();
                    out = outside(&s);
                }
                assert_eq!(
                    dump(&out.whole(live.clone())),
                    dump(&full),
                    "seed {seed} round {round}"
                );
                // Insert before a working message, in both lists.
                if !live.is_empty() {
                    let at = rng.below(live.len() as u64) as usize;
                    let before = live[at].id().map(str::to_string);
                    let new = groups(&mut rng, 2, &mut next);
                    let place = full
                        .iter()
                        .position(|m| m.id().map(str::to_string) == before)
                        .unwrap();
                    for (k, m) in new.into_iter().enumerate() {
                        live.insert(at + k, m.clone());
                        full.insert(place + k, m);
                    }
                }
                // Exclude a working message's group, in both lists.
                let excluded = live
                    .iter()
                    .filter(|m| !m.excluded())
                    .find_map(|m| group_id(m).map(str::to_string));
                for m in live.iter_mut().chain(full.iter_mut()) {
                    if group_id(m).is_some_and(|g| Some(g) == excluded.as_deref()) {
                        m.props_mut()
                            .insert(super::super::model::EXCLUDED.into(), json!(true));
                    }
                }
                let tail = groups(&mut rng, 3, &mut next);
                live.extend(tail.iter().cloned());
                full.extend(tail);
            }
        }
        assert!(settled_any > 1000, "only {settled_any} messages settled");
    }

    /// A settled run is found after the message it followed (or at the list's start), by
    /// the view of the store that holds it, and not after any other message.
    #[test]
    fn a_settled_run_is_found_after_the_message_it_followed() {
        let x = |id: &str, g: &str| msg(id.into(), "assistant", g, true, None);
        let kept = |id: &str| msg(id.into(), "user", &format!("group_{id}"), false, None);
        let mut live = vec![x("a", "ga"), kept("c"), x("b", "gb"), kept("d")];
        let settled = settle(&mut live, &Outside::default()).unwrap();
        assert_eq!(
            dump(&live),
            ["user:Some(\"c\"):false", "user:Some(\"d\"):false"]
        );
        let out = outside(&settled);
        assert!(out.follows(None));
        assert!(out.follows(Some("c")));
        assert!(!out.follows(Some("d")));
        // A later run after "d" is seen by the view that holds it, not by the earlier one.
        live.extend([x("e", "ge"), kept("f")]);
        let later = settle(&mut live, &out).unwrap();
        assert!(outside(&later).follows(Some("d")));
        assert!(!out.follows(Some("d")));
        // A second run after "c": the first view still finds the first.
        live.insert(1, x("g", "gg"));
        let third = settle(&mut live, &outside(&later)).unwrap();
        assert!(third.messages() > later.messages());
        assert!(out.follows(Some("c")));
    }

    /// A run is not settled when something outside it shares a group, an id or a call id, or
    /// when a tool result follows it.
    #[test]
    fn runs_that_share_anything_with_the_rest_stay() {
        let x = |id: &str, g: &str, call: Option<&str>| {
            msg(id.into(), "assistant", g, true, call.map(str::to_string))
        };
        let kept = |id: &str| msg(id.into(), "user", &format!("group_{id}"), false, None);
        let settled = |msgs: Vec<AfMsg>| {
            let mut msgs = msgs;
            settle(&mut msgs, &Outside::default()).map_or(0, |s| s.messages())
        };
        assert_eq!(
            settled(vec![x("a", "g1", None), x("b", "g1", None), kept("c")]),
            2
        );
        assert_eq!(
            settled(vec![
                x("a", "g1", None),
                kept("c"),
                x("b", "g1", None),
                kept("d")
            ]),
            0
        );
        assert_eq!(
            settled(vec![
                x("a", "ga", Some("k")),
                kept("c"),
                x("b", "gb", Some("k")),
                kept("d")
            ]),
            0
        );
        assert_eq!(settled(vec![x("a", "ga", None), kept("a")]), 0);
        let mut tool = kept("t");
        tool.role = "tool".into();
        assert_eq!(settled(vec![x("a", "ga", None), tool]), 0);
        assert_eq!(settled(vec![x("a", "ga", None)]), 0);
    }
}
