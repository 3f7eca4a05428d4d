//! Carrying out a plan with a summary, as the CLI's `compact` and the inspector's `c` both do:
//! the compacted history analysed like the source, what only a real run shows (`outcome`), the
//! summary against the length the framework asked for, and the framework's guard — a summary
//! that does not shrink the request is rejected and the history kept, where the framework (under
//! its settings) does that.
//!
//! Owns: that sequence and its result. Must not: call a summarizer (the summary is given).

use super::after::{self, After};
use super::findings::{Finding, Severity};
use super::outcome;
use super::plan::Plan;
use super::preset::{GuardCheck, PlanInput};
use crate::analysis::Analysis;
use crate::compaction::presets;
use crate::session::Format;
use serde_json::Value;
use std::sync::atomic::AtomicUsize;

/// A compaction carried out.
#[derive(Debug, Clone)]
pub struct Compacted {
    /// `offline`, `openai:MODEL`, `anthropic:MODEL`.
    pub summarizer: String,
    /// The summarizer's text as returned (before any prefix the framework adds).
    pub summary: Option<String>,
    /// The history the framework continues with (the one before, when its guard rejected the
    /// summary).
    pub after: Analysis,
    /// The framework's own serialisation of `after` (the history before, as the source holds
    /// it, when the guard rejected the summary or the plan did not fire).
    pub history: Value,
    /// The format `history` is a session of, when ctxray reads it back as one.
    pub history_format: Option<Format>,
    /// What `-o` writes in the framework's format when that differs from `history`.
    pub persisted: Option<Value>,
    pub findings: Vec<Finding>,
    /// Secrets masked in the request before it was sent.
    pub masked: usize,
    /// The framework's guard rejected the summary: `after` is the history before.
    pub rejected: bool,
    /// The compacted history the guard rejected (tokens), when it rejected one.
    pub rejected_tokens: Option<usize>,
}

/// What a caller of [`carry_out`] needs of it beyond the history and the summary.
#[derive(Debug, Clone, Copy)]
pub struct Wants {
    /// The compacted history keeps its messages' raw records, as one that will be planned
    /// again needs (a preset with a guard plans it here, and so always keeps them).
    pub records: bool,
    /// The summarized range's facts are read, for the `summary-evidence` finding (not where
    /// no finding is shown, as for `compact -o -`).
    pub facts: bool,
}

impl Wants {
    /// The inspector's: it plans the history again and shows the findings.
    pub const INSPECTOR: Wants = Wants {
        records: true,
        facts: true,
    };
    /// `compact`'s report: the findings, no records.
    pub const REPORT: Wants = Wants {
        records: false,
        facts: true,
    };
    /// `compact -o -`: the history alone.
    pub const HISTORY: Wants = Wants {
        records: false,
        facts: false,
    };
}

/// `plan` carried out on `before` with the text `summary` gives inserted (asked once the
/// summarized range's facts are being read beside it), with what `wants` asks for.
pub fn carry_out(
    before: &Analysis,
    plan: &Plan,
    summarizer: String,
    summary: impl FnOnce() -> Option<String>,
    masked: usize,
    wants: Wants,
) -> Compacted {
    let framework = presets::find(plan.preset).ok();
    let guards = framework.is_some_and(|p| p.guards());
    let Wants { records, facts } = wants;
    let input = PlanInput {
        after_records: records || guards,
        ..PlanInput::new(before)
    };
    // The summarized range's facts (what of them the summary holds is a finding) are read on
    // a second core while the summary is written and the history made, and on this one too
    // once it is; where the plan inserts no summary they are read only if one is given.
    let next = AtomicUsize::new(0);
    let range_facts = || outcome::range_facts(&before.session, plan, &next);
    let ahead = facts && plan.trigger.fired && plan.insertion.is_some();
    let (summary, compacted, after, evidence) = std::thread::scope(|s| {
        let theirs = s.spawn(|| ahead.then(range_facts));
        let summary = summary();
        let compacted: After = match framework {
            Some(p) if plan.trigger.fired => p.compacted(&input, plan, summary.as_deref()),
            _ => after::generic(&before.session, plan, summary.as_deref()),
        };
        let After {
            session,
            history,
            format,
            persisted,
            ..
        } = compacted;
        let after = before.derived(session);
        let wanted = facts && plan.trigger.fired && summary.is_some();
        let mine = (ahead || wanted).then(range_facts);
        let theirs = theirs
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        let evidence = match (mine, summary.as_deref()) {
            (Some(mut mine), Some(text)) if wanted => {
                mine.append(&mut theirs.unwrap_or_default());
                Some(outcome::evidence_of(mine, text))
            }
            _ => None,
        };
        (summary, (history, format, persisted), after, evidence)
    });
    let (history, history_format, persisted) = compacted;
    let (tokens_before, tokens_after) = (before.total_tokens(), after.total_tokens());
    let mut findings = outcome::findings(plan, evidence, tokens_before, tokens_after);
    if let (Some(p), Some(text)) = (framework, summary.as_deref()) {
        if let Some(budget) = p.summary_budget(plan) {
            let tokens = before.counter.count(text);
            if tokens > budget {
                findings.push(Finding {
                    code: "summary-over-budget",
                    severity: Severity::Warn,
                    messages: plan.insertion.iter().map(|i| i.position).collect(),
                    detail: format!(
                        "the summary is {tokens} tokens; {} asked its summarizer for about {budget}",
                        plan.framework
                    ),
                });
            }
        }
    }
    // The framework's guard judges the result its own way (its trigger, its request estimate).
    let rejected = plan.trigger.fired
        && guards
        && framework.is_some_and(|p| {
            let after_input = PlanInput::new(&after);
            p.plan(&after_input, &plan.settings).is_ok_and(|again| {
                p.rejects(&GuardCheck {
                    settings: &plan.settings,
                    before: &input,
                    plan,
                    after: &after_input,
                    again: &again,
                })
            })
        });
    if rejected {
        findings.push(Finding {
            code: "summary-rejected",
            severity: Severity::Info,
            messages: Vec::new(),
            detail: format!(
                "{} under these settings rejects the compacted history ({tokens_after} tokens): the history stays as it was, {tokens_before} tokens",
                plan.framework
            ),
        });
        let unchanged = after::unchanged(&before.session);
        return Compacted {
            summarizer,
            summary,
            after: before.clone(),
            history: unchanged.history,
            history_format: unchanged.format,
            persisted: None,
            findings,
            masked,
            rejected,
            rejected_tokens: Some(tokens_after),
        };
    }
    Compacted {
        summarizer,
        summary,
        after,
        history,
        history_format,
        persisted,
        findings,
        masked,
        rejected,
        rejected_tokens: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::preset::{self, Preset};

    /// `p`'s plan of `a` that fires, if one does; `carries_out` as `compact` sets it.
    fn fired(a: &Analysis, p: &dyn Preset, carries_out: bool) -> Option<Plan> {
        let input = PlanInput {
            carries_out,
            ..PlanInput::new(a)
        };
        crate::testing::fired(&input, p)
    }

    /// Everything a compaction shows and writes, the messages' records left out, and the
    /// clock's time (OpenHands stamps its `Condensation` when it is made) as `<now>`.
    fn shown(c: &Compacted) -> String {
        let clock = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z").unwrap();
        clock.replace_all(&everything(c), "<now>").into_owned()
    }

    fn everything(c: &Compacted) -> String {
        let messages: Vec<_> = (c.after.session.messages.iter())
            .map(|m| crate::session::Message {
                raw: None,
                ..m.clone()
            })
            .collect();
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            c.summary,
            c.history,
            c.history_format,
            c.persisted,
            c.findings,
            c.rejected,
            c.rejected_tokens,
            c.after.counts.messages,
            messages
        )
    }

    /// Carried out without reading the range's facts, a compaction is the same but for the
    /// `summary-evidence` finding those facts make.
    #[test]
    fn without_the_facts_only_the_evidence_finding_is_missing() {
        let mut missing = 0;
        for &file in crate::testing::FORMATS {
            let a = crate::testing::analysed(file);
            for p in presets::all() {
                let Some(plan) = fired(&a, p, true) else {
                    continue;
                };
                let digest = || {
                    plan.insertion
                        .as_ref()
                        .map(|_| preset::offline_summary(p, &PlanInput::new(&a), &plan))
                };
                let all = carry_out(&a, &plan, "offline".into(), digest, 0, Wants::REPORT);
                let some = carry_out(&a, &plan, "offline".into(), digest, 0, Wants::HISTORY);
                let evidence = |c: &Compacted| {
                    (c.findings.iter())
                        .filter(|f| f.code == "summary-evidence")
                        .count()
                };
                assert_eq!(evidence(&some), 0, "{} {file}", p.name());
                missing += evidence(&all);
                let mut all = all;
                all.findings.retain(|f| f.code != "summary-evidence");
                assert_eq!(shown(&some), shown(&all), "{} {file}", p.name());
            }
        }
        assert!(missing > 10, "{missing}");
    }

    /// `compact` plans to carry out (the preset keeps its run for the digest and the
    /// compaction) and asks for no records of the history it writes once; the inspector plans
    /// to show and keeps the records, to plan the compacted history again. Both carry out the
    /// same compaction; only the inspector's read-back history has records, unless the preset
    /// guards (its guard plans the compacted history).
    #[test]
    fn the_cli_carries_out_what_the_inspector_does_without_the_records() {
        let mut dropped = std::collections::BTreeSet::new();
        for &file in crate::testing::FORMATS {
            let a = crate::testing::analysed(file);
            for p in presets::all() {
                let (Some(shown_plan), Some(kept_plan)) = (fired(&a, p, false), fired(&a, p, true))
                else {
                    continue;
                };
                let digest = |plan: &Plan| {
                    plan.insertion
                        .as_ref()
                        .map(|_| preset::offline_summary(p, &PlanInput::new(&a), plan))
                };
                let (s1, s2) = (digest(&shown_plan), digest(&kept_plan));
                assert_eq!(s1, s2, "{} {file}", p.name());
                let inspector = carry_out(
                    &a,
                    &shown_plan,
                    "offline".into(),
                    || s1,
                    0,
                    Wants::INSPECTOR,
                );
                let cli = carry_out(&a, &kept_plan, "offline".into(), || s2, 0, Wants::REPORT);
                assert_eq!(shown(&cli), shown(&inspector), "{} {file}", p.name());
                let records = |c: &Compacted| {
                    (c.after.session.messages.iter())
                        .map(|m| c.after.session.raw_record(m).map(|r| r.into_owned()))
                        .collect::<Vec<_>>()
                };
                let (kept, had) = (records(&cli), records(&inspector));
                if p.guards() {
                    assert_eq!(kept, had, "{} {file}", p.name());
                    continue;
                }
                // A record the CLI's history has is the inspector's (the source's own, or the
                // lines Claude Code's history is parsed from).
                for (k, h) in kept.iter().zip(&had) {
                    assert!(k.is_none() || k == h, "{} {file}", p.name());
                }
                if kept.iter().flatten().count() < had.iter().flatten().count() {
                    dropped.insert(p.framework());
                }
            }
        }
        // The frameworks whose list is read back as a document no record of which is kept.
        for framework in [
            "agent-framework-core",
            "hermes-agent",
            "openhands-sdk",
            "dimos",
        ] {
            assert!(
                dropped.iter().any(|f| f.starts_with(framework)),
                "{framework}: {dropped:?}"
            );
        }
    }
}
