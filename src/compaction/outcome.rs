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
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Evidence of the summarized range: `(total, found in the summary, the first lost ones)`.
pub type Evidence = (usize, usize, Vec<String>);

/// The facts of the summarized range's messages, taken a run of messages at a time from
/// `next`: threads that share `next` read the range between them, and their sets together are
/// the range's.
pub fn range_facts(
    session: &Session,
    plan: &Plan,
    next: &AtomicUsize,
) -> BTreeSet<evidence::Evidence> {
    const RUN: usize = 32;
    let range = &plan.split.summarized;
    let mut items = BTreeSet::new();
    loop {
        let at = next.fetch_add(RUN, Ordering::Relaxed);
        let Some(run) = range
            .get(at..(at + RUN).min(range.len()))
            .filter(|r| !r.is_empty())
        else {
            return items;
        };
        for m in run.iter().filter_map(|&i| session.messages.get(i)) {
            for p in &m.parts {
                items.extend(evidence::extract(&p.plain_cow()));
            }
        }
    }
}

/// The [`Evidence`] of the facts `items` in `summary`.
pub fn evidence_of(items: BTreeSet<evidence::Evidence>, summary: &str) -> Evidence {
    // One index of the summary: each fact is looked up in time of its own length, not searched
    // for through the whole summary.
    let index = crate::facts::TextIndex::new(summary);
    let lost: Vec<String> = evidence::lost_in(items.iter(), &index)
        .map(|e| e.text.clone())
        .collect();
    (items.len(), items.len() - lost.len(), lost)
}

/// Findings of a compaction from `before` to `after` tokens, with `evidence` of the summary
/// inserted ([`evidence_in_summary`]; `None`: no summary).
pub fn findings(
    plan: &Plan,
    evidence: Option<Evidence>,
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
    if let Some((total, kept, lost)) = evidence {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::preset::PlanInput;

    /// Threads that share the cursor read the range between them: their sets together are the
    /// range's facts, and a cursor already past the first run leaves that run's facts out.
    #[test]
    fn threads_sharing_the_cursor_read_the_range_between_them() {
        let a = crate::testing::analysed("fixtures/oracle/hermes/default-settings.input.json");
        let input = PlanInput::new(&a);
        let p = crate::compaction::presets::find("claude-code").unwrap();
        let plan = crate::testing::fired(&input, p).expect("the preset fires");
        assert!(
            plan.split.summarized.len() > 32,
            "{}",
            plan.split.summarized.len()
        );
        let one: BTreeSet<_> = (plan.split.summarized.iter())
            .flat_map(|&i| &a.session.messages[i].parts)
            .flat_map(|p| evidence::extract(&p.plain_text()))
            .collect();
        assert!(!one.is_empty());
        assert_eq!(range_facts(&a.session, &plan, &AtomicUsize::new(0)), one);
        for _ in 0..20 {
            let next = AtomicUsize::new(0);
            let (mut mine, mut theirs) = std::thread::scope(|s| {
                let theirs = s.spawn(|| range_facts(&a.session, &plan, &next));
                (
                    range_facts(&a.session, &plan, &next),
                    theirs.join().unwrap(),
                )
            });
            mine.append(&mut theirs);
            assert_eq!(mine, one);
        }
        let later = range_facts(&a.session, &plan, &AtomicUsize::new(32));
        assert!(later.len() < one.len() && later.is_subset(&one));
    }
}
