//! How faithful a replayed compaction was: what its summarizer was shown of the range it
//! summarizes (characters and facts), and which facts of the messages it removes its summary
//! does not carry.
//!
//! Owns: those figures for one compaction, through `diff` (one index of the input or summary,
//! so linear in the range). Must not: decide what a fact is or how lines align (`diff`).

use std::collections::BTreeSet;

use crate::compaction::Plan;
use crate::diff::{self, Evidence, TextIndex};
use crate::session::Session;

/// What a summarizer input holds of the range it summarizes (the messages rendered into it and
/// not kept).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fidelity {
    /// Characters of the range's content (plain text, tool names, argument values, results;
    /// each non-empty line trimmed), and how many of them reach the input.
    pub chars: usize,
    pub chars_seen: usize,
    /// Distinct facts of the range (`diff::evidence`), and how many are present in the input.
    pub facts: usize,
    pub facts_present: usize,
}

impl Fidelity {
    /// Both figures summed.
    pub fn plus(self, o: Fidelity) -> Fidelity {
        Fidelity {
            chars: self.chars + o.chars,
            chars_seen: self.chars_seen + o.chars_seen,
            facts: self.facts + o.facts,
            facts_present: self.facts_present + o.facts_present,
        }
    }

    /// Share of the range's characters that reach the input, in percent (100 when it has none).
    pub fn chars_percent(&self) -> f64 {
        if self.chars == 0 {
            100.0
        } else {
            self.chars_seen as f64 * 100.0 / self.chars as f64
        }
    }
}

/// What `plan`'s summarizer input holds of the messages `range` of `session`, and with a
/// summary, `(facts in the removed messages, facts the summary does not carry)`. `range` is
/// the part of `removed` the input renders; the facts of its messages are read once for both.
pub fn input_and_lost(
    session: &Session,
    range: &[usize],
    removed: &[usize],
    plan: &Plan,
    summary: Option<&str>,
) -> (Fidelity, Option<(usize, usize)>) {
    let index = TextIndex::new(diff::summarizer_input(plan));
    let d = diff::diff_range(session, range, &index);
    let fidelity = Fidelity {
        chars: d.line_chars,
        chars_seen: d.seen_chars,
        facts: d.evidence_total,
        facts_present: d.evidence_survived,
    };
    let lost = summary.map(|summary| {
        let in_range: BTreeSet<usize> = range.iter().copied().collect();
        let others: Vec<Evidence> = removed
            .iter()
            .filter(|i| !in_range.contains(i))
            .filter_map(|&i| session.messages.get(i))
            .flat_map(diff::facts)
            .collect();
        let facts: BTreeSet<&Evidence> = d
            .messages
            .iter()
            .flat_map(|m| m.evidence.iter().map(|(e, _)| e))
            .chain(&others)
            .collect();
        let index = TextIndex::new(summary);
        let lost = diff::evidence::lost_in(facts.iter().copied(), &index).count();
        (facts.len(), lost)
    });
    (fidelity, lost)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(facts in the removed messages, facts the summary does not carry)` as a whole diff of
    /// the removed messages against the summary counts them.
    fn lost_by_a_whole_diff(session: &Session, removed: &[usize], summary: &str) -> (usize, usize) {
        let d = diff::diff_range(session, removed, &TextIndex::new(summary));
        (d.evidence_total, d.evidence_total - d.evidence_survived)
    }

    #[test]
    fn facts_read_once_count_as_a_whole_diff_of_the_removed_messages() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/samples/claude-code-demo.jsonl");
        let session = crate::formats::load_path(&path, None).unwrap();
        let a = crate::analysis::Analysis::new(
            session,
            &crate::tokens::Registry::bundled(),
            &crate::analysis::Options::default(),
        );
        let custom = crate::compaction::presets::find("custom").unwrap();
        let sets = ["trigger_tokens=1".to_string(), "keep_last=2".to_string()];
        let plan = crate::compaction::preset::run(
            custom,
            &crate::compaction::preset::PlanInput::new(&a),
            &sets,
        )
        .unwrap();
        let session = &a.session;
        let n = session.messages.len();
        let removed: Vec<usize> = (0..n).collect();
        let summaries = ["", "src/main.rs and parse_args", &session_text(session)[..]];
        for range in [vec![], (0..n / 2).collect(), (1..n).step_by(2).collect()] {
            for summary in summaries {
                let (_, lost) = input_and_lost(session, &range, &removed, &plan, Some(summary));
                let whole = lost_by_a_whole_diff(session, &removed, summary);
                assert_eq!(lost, Some(whole), "range {range:?}, summary {summary:.40}");
                assert!(whole.0 > 0);
            }
        }
    }

    fn session_text(s: &Session) -> String {
        let half = &s.messages[..s.messages.len() / 2];
        half.iter()
            .flat_map(|m| m.parts.iter().map(|p| p.plain_text()))
            .collect::<Vec<_>>()
            .join("\n")
    }
}
