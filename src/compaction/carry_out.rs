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

/// `plan` carried out on `before` with `summary` inserted.
pub fn carry_out(
    before: &Analysis,
    plan: &Plan,
    summarizer: String,
    summary: Option<String>,
    masked: usize,
) -> Compacted {
    let framework = presets::find(plan.preset).ok();
    let input = PlanInput::new(before);
    let compacted: After = match framework {
        Some(p) if plan.trigger.fired => p.compacted(&input, plan, summary.as_deref()),
        _ => after::generic(&before.session, plan, summary.as_deref()),
    };
    let (history, history_format, persisted) =
        (compacted.history, compacted.format, compacted.persisted);
    let after = before.derived(compacted.session);
    let (tokens_before, tokens_after) = (before.total_tokens(), after.total_tokens());
    let mut findings = outcome::findings(
        &before.session,
        plan,
        summary.as_deref(),
        tokens_before,
        tokens_after,
    );
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
