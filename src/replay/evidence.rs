//! How faithful a replayed compaction was: what its summarizer was shown of the range it
//! summarizes (characters and facts), and which facts of the messages it removes its summary
//! does not carry.
//!
//! Owns: those figures for one compaction, through `diff` (one index of the input or summary,
//! so linear in the range). Must not: decide what a fact is or how lines align (`diff`).

use crate::compaction::Plan;
use crate::diff::{self, TextIndex};
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

/// What `plan`'s summarizer input holds of the messages `range` of `session`.
pub fn input(session: &Session, range: &[usize], plan: &Plan) -> Fidelity {
    let index = TextIndex::new(diff::summarizer_input(plan));
    let d = diff::diff_range(session, range, &index);
    Fidelity {
        chars: d.line_chars,
        chars_seen: d.seen_chars,
        facts: d.evidence_total,
        facts_present: d.evidence_survived,
    }
}

/// `(facts in the removed messages, facts the summary does not carry)`, the facts as the input
/// figure counts them.
pub fn lost(session: &Session, removed: &[usize], summary: &str) -> (usize, usize) {
    let d = diff::diff_range(session, removed, &TextIndex::new(summary));
    (d.evidence_total, d.evidence_total - d.evidence_survived)
}
