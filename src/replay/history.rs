//! The history a replay carries: the session as the agent would hold it at each point — the
//! original messages appended in order, earlier what-if compactions already applied — with
//! its exact counts kept alongside so nothing is counted twice.
//!
//! Owns: appending original messages (giving them their running index, and replacing the
//! provider usage the file recorded, which describes the original history, with the replay's
//! own exact count), taking a compacted history over with counts carried from the kept
//! messages (only an inserted summary is counted afresh), and the `PlanInput` a preset reads.
//! Must not: run presets or decide anything.

use crate::analysis::{Analysis, WindowSource};
use crate::compaction::preset::PlanInput;
use crate::compaction::{apply, group_messages, Grouping, Plan};
use crate::session::{Message, Session, Usage};
use crate::tokens::{message_tokens, overhead, Counts, MessageCount};

pub struct History {
    pub session: Session,
    pub counts: Counts,
    grouping: Grouping,
    total: usize,
}

impl History {
    /// An empty history with the session's metadata (no messages, no marks, no records).
    pub fn new(a: &Analysis) -> History {
        let s = &a.session;
        let mut session = Session::new(s.format, s.source.path.clone(), s.buffer.clone());
        session.source = s.source.clone();
        session.source.record_indices.clear();
        session.source.records = 0;
        session.id = s.id.clone();
        session.title = s.title.clone();
        session.model = s.model.clone();
        session.reported_window = s.reported_window;
        let grouping = group_messages(&session);
        History {
            session,
            counts: Counts::default(),
            grouping,
            total: 0,
        }
    }

    /// Exact tokens of the history as it stands.
    pub fn tokens(&self) -> usize {
        self.total
    }

    pub fn message_count(&self) -> usize {
        self.session.messages.len()
    }

    /// Appends the original messages `from..to` of `a`, then brings the source records and
    /// tool-call groups up to date.
    pub fn append(&mut self, a: &Analysis, from: usize, to: usize) {
        if from >= to {
            return;
        }
        for i in from..to.min(a.session.messages.len()) {
            let mut m = a.session.messages[i].clone();
            let count = a.counts.messages.get(i).copied().unwrap_or_default();
            if m.usage.is_some() {
                m.usage = Some(replayed_usage(self.total, count.total()));
            }
            self.total += count.total();
            self.counts.messages.push(count);
            self.session.push(m);
        }
        let cut = a
            .session
            .messages
            .get(to)
            .map_or(usize::MAX, |m| m.source_index);
        let records = &a.session.source.record_indices;
        let upto = records.partition_point(|&r| r < cut);
        let have = self.session.source.record_indices.len();
        if upto > have {
            self.session
                .source
                .record_indices
                .extend_from_slice(&records[have..upto]);
            self.session.source.records = self.session.source.record_indices.len();
        }
        self.grouping = group_messages(&self.session);
    }

    /// What a preset reads of this history: the analysis' window, model and counter.
    pub fn input<'a>(&'a self, a: &'a Analysis) -> PlanInput<'a> {
        PlanInput {
            session: &self.session,
            counts: &self.counts,
            grouping: &self.grouping,
            counter: &a.counter,
            window: a.window,
            window_flag: (a.window_source == WindowSource::Flag).then_some(a.window),
            model: a.model.as_deref(),
            now: self
                .session
                .messages
                .iter()
                .rev()
                .find_map(|m| m.timestamp.as_deref()),
        }
    }

    /// The history after `plan` with `summary` inserted, counted: kept messages carry their
    /// counts, the summary is counted once. The inserted summary gets `summary_source` as its source index: a record of its own
    /// (presets that group messages into records by source index must not merge it with a
    /// kept message).
    pub fn compacted(
        &self,
        a: &Analysis,
        plan: &Plan,
        summary: Option<&str>,
        summary_source: usize,
    ) -> History {
        let mut session = apply::apply(&self.session, plan, summary);
        let mut keep: Vec<usize> = plan
            .split
            .pinned
            .iter()
            .chain(&plan.split.kept)
            .copied()
            .filter(|&i| i < self.session.messages.len())
            .collect();
        keep.sort_unstable();
        keep.dedup();
        // `apply` inserts the summary at the insertion position, among the kept messages.
        let inserted = plan
            .insertion
            .as_ref()
            .filter(|_| summary.is_some())
            .map(|ins| ins.position.min(keep.len()));
        if let Some(m) = inserted.and_then(|at| session.messages.get_mut(at)) {
            m.source_index = summary_source;
        }
        let mut kept = keep.iter().map(|&i| self.counts.messages[i]);
        let mut counts: Vec<MessageCount> = Vec::with_capacity(session.messages.len());
        let mut aligned = true;
        for (i, m) in session.messages.iter().enumerate() {
            let c = if inserted == Some(i) {
                count(a, m)
            } else if let Some(c) = kept.next() {
                c
            } else {
                aligned = false;
                count(a, m)
            };
            counts.push(c);
        }
        if !aligned || kept.next().is_some() {
            counts = session.messages.iter().map(|m| count(a, m)).collect();
        }
        let total = counts.iter().map(MessageCount::total).sum();
        let grouping = group_messages(&session);
        History {
            session,
            counts: Counts { messages: counts },
            grouping,
            total,
        }
    }
}

fn count(a: &Analysis, m: &Message) -> MessageCount {
    MessageCount {
        tokens: message_tokens(m, &a.counter),
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
    use crate::analysis::Options;
    use crate::compaction::preset;
    use crate::tokens::{count_session, Registry};

    fn demo() -> Analysis {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/samples/claude-code-demo.jsonl");
        let session = crate::formats::load_path(&path, None).unwrap();
        Analysis::new(session, &Registry::bundled(), &Options::default())
    }

    #[test]
    fn carried_counts_equal_a_fresh_count_of_the_compacted_history() {
        let a = demo();
        let mut h = History::new(&a);
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
            let p = preset::find(name).unwrap();
            let plan = preset::run(p, &h.input(&a), &sets).unwrap();
            assert!(plan.trigger.fired, "{name}");
            let c = h.compacted(&a, &plan, Some("a summary of the earlier turns"), 1 << 40);
            let fresh = count_session(&c.session, &a.counter, a.info.images);
            assert_eq!(c.counts, fresh, "{name}");
            assert_eq!(c.tokens(), fresh.total(), "{name}");
            assert!(c.tokens() < h.tokens(), "{name}");
        }
    }

    #[test]
    fn recorded_usage_is_replaced_by_the_replay_s_own_count() {
        let a = demo();
        let mut h = History::new(&a);
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
