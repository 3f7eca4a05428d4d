//! Facts a replayed compaction loses: the paths, commands, numbers and identifiers of the
//! messages it removes that its summary does not carry.
//!
//! Owns: that count for one compaction. Must not: decide what a fact is (`diff::evidence`).

use std::collections::BTreeSet;

use crate::diff::evidence;
use crate::session::Session;

/// `(facts in the removed messages, facts the summary does not carry)`.
pub fn lost(session: &Session, removed: &[usize], summary: &str) -> (usize, usize) {
    let mut items = BTreeSet::new();
    for &i in removed {
        if let Some(m) = session.messages.get(i) {
            for p in &m.parts {
                items.extend(evidence::extract(&p.plain_text()));
            }
        }
    }
    let lost = items
        .iter()
        .filter(|e| !evidence::survives(e, summary))
        .count();
    (items.len(), lost)
}
