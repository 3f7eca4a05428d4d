//! What only a real compaction shows: the size of the history after the summary is inserted,
//! and what of the summarized range the summary carries.
//!
//! Owns: the findings of a compaction's result — `summary-grows-request` (the compacted history
//! is no smaller than before), `summary-evidence` (which facts of the summarized range reach the
//! summary). Must not: call a summarizer or count tokens (the caller gives the totals).

use super::findings::{Finding, Severity};
use super::plan::Plan;
use crate::facts::evidence;
use crate::session::Session;

/// Evidence of the summarized range: `(total, found in the summary, the first lost ones)`.
pub fn evidence_in_summary(
    session: &Session,
    plan: &Plan,
    summary: &str,
) -> (usize, usize, Vec<String>) {
    let mut items = std::collections::BTreeSet::new();
    for &i in &plan.split.summarized {
        if let Some(m) = session.messages.get(i) {
            for p in &m.parts {
                for e in evidence::extract(&p.plain_text()) {
                    items.insert(e);
                }
            }
        }
    }
    // One index of the summary: each fact is looked up in time of its own length, not searched
    // for through the whole summary.
    let index = crate::facts::TextIndex::new(summary);
    let lost: Vec<String> = evidence::lost_in(items.iter(), &index)
        .map(|e| e.text.clone())
        .collect();
    (items.len(), items.len() - lost.len(), lost)
}

/// Findings of a compaction from `before` to `after` tokens with `summary` inserted.
pub fn findings(
    session: &Session,
    plan: &Plan,
    summary: Option<&str>,
    before: usize,
    after: usize,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if !plan.trigger.fired {
        return out;
    }
    let at: Vec<usize> = plan
        .insertion
        .as_ref()
        .map(|i| vec![i.position])
        .unwrap_or_default();
    if after >= before {
        out.push(Finding {
            code: "summary-grows-request",
            severity: Severity::Error,
            messages: at.clone(),
            detail: format!(
                "the compacted history is {after} tokens, {} more than the {before} before it: the compaction does not free context",
                after - before
            ),
        });
    }
    if let Some(summary) = summary {
        let (total, kept, lost) = evidence_in_summary(session, plan, summary);
        if total > 0 {
            let share = kept as f64 / total as f64;
            let sample = lost.iter().take(6).cloned().collect::<Vec<_>>().join(", ");
            // A lost fact may be a key: the finding names it masked, as a written file would.
            let sample = crate::secrets::mask(&sample).0;
            out.push(Finding {
                code: "summary-evidence",
                severity: if share < 0.25 { Severity::Warn } else { Severity::Info },
                messages: at,
                detail: if lost.is_empty() {
                    format!("all {total} facts of the summarized range (paths, commands, numbers, identifiers) are in the summary")
                } else {
                    format!(
                        "{kept} of {total} facts of the summarized range are in the summary ({:.0}%); lost e.g. {sample}",
                        share * 100.0
                    )
                },
            });
        }
    }
    out
}
