//! Carrying out a plan with a summary, as the CLI's `compact` and the inspector's `c` both do:
//! the compacted history analysed like the source, what only a real run shows (`outcome`), the
//! summary against the length the framework asked for, and the framework's guard — a summary
//! that does not shrink the request is rejected and the history kept, where the framework (under
//! its settings) does that.
//!
//! Owns: that sequence and its result. Must not: call a summarizer (the summary is given).

use super::findings::{Finding, Severity};
use super::plan::Plan;
use super::preset::PlanInput;
use super::{apply, outcome, preset};
use crate::analysis::Analysis;

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
    pub findings: Vec<Finding>,
    /// Secrets masked in the request before it was sent.
    pub masked: usize,
    /// The framework's guard rejected the summary: `after` is the history before.
    pub rejected: bool,
}

/// `plan` carried out on `before` with `summary` inserted.
pub fn carry_out(
    before: &Analysis,
    plan: &Plan,
    summarizer: String,
    summary: Option<String>,
    masked: usize,
) -> Compacted {
    let session = apply::apply(&before.session, plan, summary.as_deref());
    let after = before.derived(session);
    let (tokens_before, tokens_after) = (before.total_tokens(), after.total_tokens());
    let mut findings = outcome::findings(
        &before.session,
        plan,
        summary.as_deref(),
        tokens_before,
        tokens_after,
    );
    let framework = preset::find(plan.preset).ok();
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
    // The framework's guard judges the result with its own trigger measure.
    let rejected = plan.trigger.fired
        && framework.is_some_and(|p| {
            p.plan(&PlanInput::new(&after), &plan.settings)
                .is_ok_and(|again| p.rejects(&plan.settings, &plan.trigger, &again.trigger))
        });
    if rejected {
        findings.push(Finding {
            code: "summary-rejected",
            severity: Severity::Info,
            messages: Vec::new(),
            detail: format!(
                "{} under these settings rejects a compacted history its estimator does not measure below the one it replaces: the history stays as it was, {tokens_before} tokens",
                plan.framework
            ),
        });
    }
    Compacted {
        summarizer,
        summary,
        after: if rejected { before.clone() } else { after },
        findings,
        masked,
        rejected,
    }
}
