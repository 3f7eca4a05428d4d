//! The history a replay carries: the session as the agent would hold it at each point — the
//! original messages appended in order, earlier what-if compactions already applied — with
//! its exact counts kept alongside so nothing is counted twice.
//!
//! Owns: appending original messages (giving them their running index, and replacing the
//! provider usage the file recorded, which describes the original history, with the replay's
//! own exact count), taking over the history a framework left after a compaction (its own
//! records, counted afresh), keeping source indices unique across the two, and the
//! `PlanInput` a preset reads. Once the history has its own records (after a compaction),
//! appended messages bring the source bytes between them along, so a framework that reads the
//! records between messages (OpenHands: a batch's later actions, condensation requests) finds
//! them. Messages the framework still holds but a preset's compaction left out of the history
//! (`After::carried`: Agent Framework's settled excluded runs) are carried beside it: counted
//! in the framework's list (`message_count`), handed back to the preset's later plans
//! (`PlanInput::carried`), never counted as tokens (they are never sent). Tool-call groups are
//! computed when a preset plans the history, not at each append
//! (most checks only ask the trigger, which reads none). Must not: run presets or decide
//! anything.

use crate::analysis::{Analysis, WindowSource};
use crate::compaction::after::{After, Carried};
use crate::compaction::parsed::Parsed;
use crate::compaction::preset::PlanInput;
use crate::compaction::{group_messages, Grouping};
use crate::session::{Message, Session, Usage};
use crate::tokens::memo::{message_key, Key};
use crate::tokens::{message_tokens, overhead, Counts, MessageCount};
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

pub struct History {
    pub session: Session,
    pub counts: Counts,
    /// The history's tool-call groups, computed on the first plan after it changed.
    grouping: std::cell::OnceCell<Grouping>,
    total: usize,
    /// The last message with a timestamp.
    stamped: Option<usize>,
    /// Added to the source indices of original messages appended from now on, so they come
    /// after the records of a compacted history.
    shift: usize,
    /// The session's buffer is the history's own (a compacted history's records): appended
    /// messages' raw records are copied into it.
    own_buffer: bool,
    /// The first original source record not yet in the history's records.
    next_record: usize,
    /// With an own buffer: the first byte of the source not yet copied into it.
    copied: Option<usize>,
    /// Records parsed by the plans of this history and of the ones it was compacted from,
    /// and whether plans read through them and counts are carried across a compaction
    /// (`None`: every plan parses and every compaction counts afresh, the slow path the
    /// differential tests hold the quick one to).
    parsed: Option<Arc<Parsed>>,
    /// What the preset carries across its compactions: the framework's state beside the
    /// history, and the messages of its list a compaction left out of `session` (with
    /// `parsed` only: the preset carries what its later plans read of them).
    carried: Carried,
}

impl History {
    /// An empty history with the session's metadata (no messages, no marks, no records);
    /// `reuse`: plans read records parsed before, compactions carry counts (see `parsed`).
    pub fn new(a: &Analysis, reuse: bool) -> History {
        let s = &a.session;
        let mut session = s.sharing_source();
        session.source = s.source.clone();
        session.source.record_indices.clear();
        session.source.records = 0;
        session.id = s.id.clone();
        session.title = s.title.clone();
        session.model = s.model.clone();
        session.reported_window = s.reported_window;
        History {
            session,
            counts: Counts::default(),
            grouping: std::cell::OnceCell::new(),
            total: 0,
            stamped: None,
            shift: 0,
            own_buffer: false,
            next_record: 0,
            copied: None,
            parsed: reuse.then(|| Arc::new(Parsed::new())),
            carried: Carried::nothing(),
        }
    }

    /// Exact tokens of the history as it stands.
    pub fn tokens(&self) -> usize {
        self.total
    }

    /// Messages in the framework's list: the session's and those carried outside it.
    pub fn message_count(&self) -> usize {
        self.session.messages.len() + self.carried.messages
    }

    /// Appends the original messages `from..to` of `a`, then brings the source records and
    /// tool-call groups up to date.
    pub fn append(&mut self, a: &Analysis, from: usize, to: usize) {
        if from >= to {
            return;
        }
        let copy = self
            .own_buffer
            .then(|| self.copy_span(a, from, to))
            .flatten();
        for i in from..to.min(a.session.messages.len()) {
            let mut m = a.session.messages[i].clone();
            let count = a.counts.messages.get(i).copied().unwrap_or_default();
            if m.usage.is_some() {
                m.usage = Some(replayed_usage(self.total, count.total()));
            }
            if self.shift > 0 {
                m.source_index += self.shift;
                for r in &mut m.source_indices {
                    *r += self.shift;
                }
            }
            if self.own_buffer {
                m.raw = self.copy_raw(a, &m, copy.as_ref());
            }
            self.total += count.total();
            self.counts.messages.push(count);
            if m.timestamp.is_some() {
                self.stamped = Some(self.session.messages.len());
            }
            self.session.push(m);
        }
        let cut = a
            .session
            .messages
            .get(to)
            .map_or(usize::MAX, |m| m.source_index);
        let records = &a.session.source.record_indices;
        let from_record = records.partition_point(|&r| r < self.next_record);
        let upto = records.partition_point(|&r| r < cut);
        self.next_record = self.next_record.max(cut);
        if upto > from_record {
            let shift = self.shift;
            self.session
                .source
                .record_indices
                .extend(records[from_record..upto].iter().map(|&r| r + shift));
            self.session.source.records = self.session.source.record_indices.len();
        }
        self.grouping = std::cell::OnceCell::new();
    }

    /// With an own buffer, copies the source bytes from the first record of message `from` (or
    /// where the last copy ended) to the first record of message `to`, so the records between
    /// messages (a batch's later actions, requests, state updates) come along; returns where
    /// the span starts in the source and in the buffer (`None`: the source's records are not
    /// in order, each message's record is copied alone).
    fn copy_span(&mut self, a: &Analysis, from: usize, to: usize) -> Option<(usize, usize, usize)> {
        let first_raw =
            |range: &[Message]| range.iter().find_map(|m| m.raw.as_ref().map(|r| r.start));
        let messages = &a.session.messages;
        // The start first: a session whose messages keep no raw record stops here, before the
        // search for the next record would walk the rest of the session at every append.
        let start = self
            .copied
            .or_else(|| first_raw(messages.get(from..to).unwrap_or_default()))?;
        let end = first_raw(messages.get(to..).unwrap_or_default()).unwrap_or(a.session.raw_len());
        let ordered = messages
            .get(from..to)
            .unwrap_or_default()
            .iter()
            .filter_map(|m| m.raw.as_ref())
            .all(|r| r.start >= start && r.end <= end);
        let bytes = ordered.then(|| a.session.raw_range(start..end)).flatten()?;
        let buffer = std::sync::Arc::make_mut(&mut self.session.buffer);
        let base = buffer.len();
        buffer.extend_from_slice(&bytes);
        self.copied = Some(end);
        Some((start, end, base))
    }

    /// Where message `m`'s record lies in the own buffer: inside the span just copied, else
    /// copied alone.
    fn copy_raw(
        &mut self,
        a: &Analysis,
        m: &Message,
        span: Option<&(usize, usize, usize)>,
    ) -> Option<std::ops::Range<usize>> {
        let raw = m.raw.clone()?;
        if let Some(&(start, end, base)) = span {
            if raw.start >= start && raw.end <= end {
                return Some(base + raw.start - start..base + raw.end - start);
            }
        }
        let bytes = a.session.raw_record(m)?;
        let buffer = std::sync::Arc::make_mut(&mut self.session.buffer);
        let at = buffer.len();
        buffer.extend_from_slice(&bytes);
        Some(at..buffer.len())
    }

    /// What a preset reads of this history: the analysis' window, model and counter.
    pub fn input<'a>(&'a self, a: &'a Analysis) -> PlanInput<'a> {
        let grouping = self.grouping.get_or_init(|| group_messages(&self.session));
        self.input_with(a, grouping)
    }

    /// What a preset's quiet trigger reads: `input` without the groups.
    pub fn quiet_input<'a>(&'a self, a: &'a Analysis) -> PlanInput<'a> {
        self.input_with(a, &NO_GROUPS)
    }

    fn input_with<'a>(&'a self, a: &'a Analysis, grouping: &'a Grouping) -> PlanInput<'a> {
        PlanInput {
            session: &self.session,
            counts: &self.counts,
            grouping,
            counter: &a.counter,
            window: a.window,
            window_flag: (a.window_source == WindowSource::Flag).then_some(a.window),
            model: a.model.as_deref(),
            now: self
                .stamped
                .and_then(|i| self.session.messages.get(i))
                .and_then(|m| m.timestamp.as_deref()),
            parsed: self.parsed.as_deref(),
            carried: Some(&self.carried),
            after_records: true,
            carries_out: false,
            defer_request: false,
        }
    }

    /// The history the framework holds after a compaction, counted afresh. Its session keeps
    /// this history's format; the framework's records are its messages' raw records when they
    /// are of that format (else the messages stand in the common model alone). Original
    /// messages appended later (the first of them from source record `next_source`) get
    /// source indices past the compacted history's records.
    pub fn compacted(&self, a: &Analysis, after: After, next_source: usize) -> History {
        let After {
            mut session,
            format,
            carried,
            ..
        } = after;
        if format != Some(self.session.format) {
            for m in &mut session.messages {
                m.raw = None;
            }
            session.format = self.session.format;
        }
        session.marks.clear();
        session.children.clear();
        session.source.skipped.clear();
        let mut records: Vec<usize> = session
            .messages
            .iter()
            .flat_map(|m| m.source_indices.iter().copied())
            .chain(session.source.record_indices.iter().copied())
            .collect();
        records.sort_unstable();
        records.dedup();
        let past = records.last().map_or(0, |r| r + 1);
        session.source.records = records.len();
        session.source.record_indices = records;
        if let Some(p) = &self.parsed {
            p.renew();
        }
        let known = self.known_tokens(a);
        let counts: Vec<MessageCount> = session
            .messages
            .iter()
            .map(|m| count_known(a, m, &known))
            .collect();
        let total = counts.iter().map(MessageCount::total).sum();
        let stamped = session.messages.iter().rposition(|m| m.timestamp.is_some());
        // A history spliced from the file's own messages (the generic `After`) still points
        // into the file's bytes: appended messages can too, without a copy of them.
        let own_buffer = !std::sync::Arc::ptr_eq(&session.buffer, &a.session.buffer);
        if own_buffer {
            // Its ranges point into its own bytes only, never into the file read again.
            session.records = None;
        }
        History {
            session,
            counts: Counts { messages: counts },
            grouping: std::cell::OnceCell::new(),
            total,
            stamped,
            shift: past.saturating_sub(next_source),
            own_buffer,
            next_record: next_source,
            copied: None,
            parsed: self.parsed.clone(),
            carried: carried.unwrap_or_else(Carried::nothing),
        }
    }
}

impl History {
    /// The exact text tokens of this history's messages by content key: a message the
    /// framework kept as it was is found here instead of being counted again.
    fn known_tokens(&self, a: &Analysis) -> HashMap<Key, usize> {
        if self.parsed.is_none() {
            return HashMap::new();
        }
        let encoding = a.counter.encoding();
        self.session
            .messages
            .iter()
            .zip(&self.counts.messages)
            .filter_map(|(m, c)| Some((message_key(m, encoding)?, c.tokens)))
            .collect()
    }
}

/// The groups a quiet trigger is given: none.
static NO_GROUPS: Grouping = Grouping {
    groups: Vec::new(),
    of_message: Vec::new(),
    duplicates: Vec::new(),
};

/// `m`'s count, its text tokens taken from `known` when a message with the same texts was
/// counted before (equal keys: the same texts under the same encoding).
fn count_known(a: &Analysis, m: &Message, known: &HashMap<Key, usize>) -> MessageCount {
    let tokens = message_key(m, a.counter.encoding())
        .and_then(|k| known.get(&k).copied())
        .unwrap_or_else(|| message_tokens(m, &a.counter));
    MessageCount {
        tokens,
        overhead: overhead::message_overhead(m, a.info.images),
    }
}

/// The usage a provider would report for a request sent with `prompt` tokens of history that
/// produced `output` tokens, as the replay counts them.
fn replayed_usage(prompt: usize, output: usize) -> Usage {
    Usage {
        input: Some(prompt as u64),
        output: Some(output as u64),
        cache_read: None,
        cache_write: None,
        reasoning: None,
        total: Some((prompt + output) as u64),
        input_includes_cache: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::preset;
    use crate::tokens::count_session;

    fn demo() -> Analysis {
        crate::testing::demo()
    }

    #[test]
    fn carried_counts_equal_a_fresh_count_of_the_compacted_history() {
        let a = demo();
        let mut h = History::new(&a, true);
        let n = a.session.messages.len();
        h.append(&a, 0, n / 2);
        h.append(&a, n / 2, n);
        assert_eq!(h.message_count(), n);
        assert_eq!(h.tokens(), a.total_tokens());
        assert_eq!(
            h.session.source.record_indices,
            a.session.source.record_indices
        );
        for (name, sets) in [
            ("dimos", vec!["context_window=6000".to_string()]),
            (
                "custom",
                vec!["trigger_tokens=1".to_string(), "keep_last=3".to_string()],
            ),
        ] {
            let p = crate::compaction::presets::find(name).unwrap();
            let plan = preset::run(p, &h.input(&a), &sets).unwrap();
            assert!(plan.trigger.fired, "{name}");
            let after = p.compacted(&h.input(&a), &plan, Some("a summary of the earlier turns"));
            let c = h.compacted(&a, after, 1 << 40);
            let fresh = count_session(&c.session, &a.counter, a.info.images);
            assert_eq!(c.counts, fresh, "{name}");
            assert_eq!(c.tokens(), fresh.total(), "{name}");
            assert!(c.tokens() < h.tokens(), "{name}");
        }
    }

    #[test]
    fn messages_appended_after_a_compaction_come_after_its_records_with_their_raw_records() {
        let a = demo();
        let n = a.session.messages.len();
        let mut h = History::new(&a, true);
        h.append(&a, 0, n / 2);
        let p = crate::compaction::presets::find("custom").unwrap();
        let sets = ["trigger_tokens=1".to_string(), "keep_last=2".to_string()];
        let plan = preset::run(p, &h.input(&a), &sets).unwrap();
        let after = p.compacted(&h.input(&a), &plan, Some("earlier turns, summarized"));
        let next = a.session.messages[n / 2].source_index;
        let mut c = h.compacted(&a, after, next);
        let records_before = c.session.source.record_indices.clone();
        let kept = c.message_count();
        c.append(&a, n / 2, n);
        assert_eq!(c.message_count(), kept + (n - n / 2));
        let indices: Vec<usize> = c.session.messages.iter().map(|m| m.source_index).collect();
        assert!(indices.windows(2).all(|w| w[0] < w[1]), "{indices:?}");
        let last_record = *records_before.last().unwrap();
        for (m, orig) in c.session.messages[c.message_count() - (n - n / 2)..]
            .iter()
            .zip(&a.session.messages[n / 2..])
        {
            assert!(m.source_index > last_record);
            assert_eq!(c.session.raw_record(m), a.session.raw_record(orig));
        }
        let fresh = count_session(&c.session, &a.counter, a.info.images);
        assert_eq!(c.tokens(), fresh.total());
    }

    /// An Agent Framework compaction in a replay leaves its settled excluded runs out of the
    /// history and carries them: the framework's list keeps its length, the history does
    /// not hold them, and a plan of the history reads them back through `carried`.
    #[test]
    fn agent_framework_s_settled_runs_are_carried_beside_the_history() {
        let a = demo();
        let p = crate::compaction::presets::find("agent-framework-sliding").unwrap();
        let sets = ["keep_last_groups=2".to_string()];
        let mut h = History::new(&a, true);
        let n = a.session.messages.len();
        let mut carried = 0;
        let mut fed = 0;
        for upto in [n / 3, 2 * n / 3, n] {
            h.append(&a, fed, upto);
            fed = upto;
            let plan = preset::run(p, &h.input(&a), &sets).unwrap();
            if !plan.trigger.fired {
                continue;
            }
            let after = p.compacted(&h.input(&a), &plan, None);
            let listed =
                after.session.messages.len() + after.carried.as_ref().map_or(0, |c| c.messages);
            let c = h.compacted(&a, after, 1 << 40);
            assert_eq!(c.message_count(), listed);
            carried = c.message_count() - c.session.messages.len();
            h = c;
        }
        assert!(carried > 0, "nothing was carried");
        // The slow path keeps the framework's whole list in the history.
        let mut whole = History::new(&a, false);
        whole.append(&a, 0, n);
        let plan = preset::run(p, &whole.input(&a), &sets).unwrap();
        let after = p.compacted(&whole.input(&a), &plan, None);
        assert_eq!(after.carried.map(|c| c.messages), Some(0));
    }

    #[test]
    fn recorded_usage_is_replaced_by_the_replay_s_own_count() {
        let a = demo();
        let mut h = History::new(&a, true);
        h.append(&a, 0, a.session.messages.len());
        let mut before = 0u64;
        for (m, c) in h.session.messages.iter().zip(&h.counts.messages) {
            if let Some(u) = &m.usage {
                assert_eq!(u.context_input(), Some(before));
                assert_eq!(u.output, Some(c.total() as u64));
            }
            before += c.total() as u64;
        }
    }
}
