//! Collapsing tool-call groups together where the framework re-annotates after each one.
//!
//! After one framework step re-annotated the list from `base`, the annotation of `[base, end)`
//! is the grouping a scan from `base` gives. The framework's next step for a group starting at
//! `at` re-annotates from `s` (the start of the group before `at`, widened back to a pending
//! declaration). That scan gives the grouping already there, so the step only renumbers group
//! indices, when:
//! - `s >= base`, and `s` is no earlier than the start of the batch's first step (so one
//!   re-annotation from the first covers every later one, numbering included; with the
//!   groups' starts in order this always holds, and is checked all the same);
//! - no group has messages both before and after `s` (the scan would split it: ids come from
//!   the slice, and a result whose declaration is outside the slice links to nothing);
//! - no result at or after `s` has two or more pending declarations of which exactly one is at
//!   or after `s` (the scan would find it unambiguous and link it);
//! - the summary's id is not already a message's id.
//!
//! Summaries are inert there: one assistant text each, a group of its own, linked to nothing,
//! inserted at a group's first message. Collapsing a group excludes all of it, so the linked
//! groups the first step made consistent stay so. Owns: those checks and the one splice and
//! re-annotation that replaces the steps they admit. Must not decide anything the framework
//! would decide differently: a group it cannot admit goes back to a framework step.

use foldhash::{HashMap, HashMapExt, HashSet};

use super::annotate::{annotate_groups, group_id, group_maps, GroupMaps};
use super::groups::walk_pairs;
use super::model::AfMsg;
use super::run::Run;
use super::settled::Outside;
use super::tool_result::summary_id;

/// The list after a framework step, and the groups collapsed since, their summaries pending.
pub struct Batch {
    base: usize,
    maps: GroupMaps,
    /// First message of the run of equal group ids each message is in.
    run_start: Vec<usize>,
    /// Whether a group has messages on both sides of the boundary before each position.
    crossing: Vec<bool>,
    /// The earliest pending declaration of any result at or after each position.
    pull: Vec<usize>,
    /// Whether a scan from each position would link a result the scan from `base` left alone.
    unsettled: Vec<bool>,
    /// Whether settled messages stand right after each position's message.
    followed: Vec<bool>,
    ids: HashSet<String>,
    first: Option<usize>,
    pending: Vec<(usize, AfMsg)>,
    outside: Outside,
}

impl Batch {
    /// Reads the list as the framework step that re-annotated from `base` left it.
    pub fn new(run: &Run, base: usize) -> Batch {
        let msgs = &run.msgs;
        let n = msgs.len();
        let (run_start, crossing) = runs(msgs);
        // A declaration list only grows at its end and is emptied whole: it is ascending.
        let mut pull = vec![usize::MAX; n + 1];
        walk_pairs(msgs, run.v, |mi, cands| {
            if let Some(&c) = cands.first() {
                pull[mi] = pull[mi].min(c);
            }
        });
        for p in (0..n).rev() {
            pull[p] = pull[p].min(pull[p + 1]);
        }
        let mut unsettled = vec![0i64; n + 2];
        walk_pairs(&msgs[base.min(n)..], run.v, |_, cands| {
            if let [.., second, last] = cands {
                unsettled[base + second + 1] += 1;
                unsettled[base + last + 1] -= 1;
            }
        });
        Batch {
            base,
            maps: group_maps(msgs),
            run_start,
            crossing,
            pull,
            unsettled: marks(&unsettled, n),
            followed: msgs.iter().map(|m| run.outside.follows(m.id())).collect(),
            ids: msgs
                .iter()
                .filter_map(|m| m.id().map(str::to_string))
                .collect(),
            first: None,
            pending: Vec::new(),
            outside: run.outside.clone(),
        }
    }

    /// Where the framework's step for group `id` would re-annotate from.
    fn reach(&self, at: usize) -> usize {
        let start = match at.checked_sub(1) {
            None => 0,
            Some(prev) if self.followed[prev] => at,
            Some(prev) => self.run_start[prev],
        };
        match self.pull[start] {
            earliest if earliest < start => self.run_start[earliest],
            _ => start,
        }
    }

    /// Group `id`'s start and members if its step can join the batch.
    pub fn admit(&self, id: &str) -> Option<(usize, Vec<usize>)> {
        let at = self.maps.start(id)?;
        if self.pending.last().is_some_and(|(last, _)| at <= *last) {
            return None;
        }
        let s = self.reach(at);
        let ok = s >= self.base
            && self.first.is_none_or(|f| s >= f)
            && !self.crossing[s]
            && !self.unsettled[s]
            && !self.ids.contains(&summary_id(id))
            && !self.outside.has_id(&summary_id(id));
        ok.then(|| (at, self.maps.of(id).to_vec()))
    }

    /// Adds a collapsed group's summary, to go before the message at `at`.
    pub fn push(&mut self, at: usize, summary: AfMsg) {
        let s = self.reach(at);
        self.first.get_or_insert(s);
        self.pending.push((at, summary));
    }

    /// Inserts the pending summaries and re-annotates once from the first.
    pub fn flush(self, run: &mut Run) {
        let Some(&(from, _)) = self.pending.first() else {
            return;
        };
        let old = std::mem::take(&mut run.msgs);
        let mut msgs = Vec::with_capacity(old.len() + self.pending.len());
        let mut pending = self.pending.into_iter().peekable();
        for (i, m) in old.into_iter().enumerate() {
            while let Some((_, summary)) = pending.next_if(|(at, _)| *at == i) {
                run.inserted.extend(summary.id().map(str::to_string));
                msgs.push(summary);
            }
            msgs.push(m);
        }
        run.msgs = msgs;
        annotate_groups(&mut run.msgs, Some(from), false, run.v, &run.outside);
    }
}

/// Each message's run start, and for each boundary whether a group spans it.
fn runs(msgs: &[AfMsg]) -> (Vec<usize>, Vec<bool>) {
    let n = msgs.len();
    let mut numbers: HashMap<&str, usize> = HashMap::new();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut run_start = Vec::with_capacity(n);
    let mut prev: Option<usize> = None;
    for (i, m) in msgs.iter().enumerate() {
        let number = group_id(m).map(|id| {
            let next = numbers.len();
            let k = *numbers.entry(id).or_insert(next);
            if k == spans.len() {
                spans.push((i, i));
            }
            spans[k].1 = i;
            k
        });
        let start = match (number, prev) {
            (Some(k), Some(p)) if k == p => run_start[i - 1],
            _ => i,
        };
        run_start.push(start);
        prev = number;
    }
    let mut depth = vec![0i64; n + 2];
    for &(first, last) in &spans {
        depth[first + 1] += 1;
        depth[last + 1] -= 1;
    }
    (run_start, marks(&depth, n))
}

/// Prefix sums of a difference array as marks for positions `0..=n`.
fn marks(diff: &[i64], n: usize) -> Vec<bool> {
    let mut out = Vec::with_capacity(n + 1);
    let mut sum = 0;
    for d in diff.iter().take(n + 1) {
        sum += d;
        out.push(sum > 0);
    }
    out
}
