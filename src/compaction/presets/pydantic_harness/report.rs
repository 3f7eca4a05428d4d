//! Findings of the pydantic-ai-harness presets: tool output cut for the summarizer, thinking
//! and media never shown to it, a summary that can grow the request (0.62 inserts it anyway;
//! `guard=shrink` rejects it), a tail that compacts again on every request, and the receipt.

use super::estimate::{part_segments, Estimator};
use super::history::{Rec, P};
use super::summarizing::Outcome;
use super::transcript::Cuts;
use crate::compaction::findings::{Finding, Severity};
use crate::compaction::plan::{common_findings, Split, Trigger};
use crate::compaction::preset::PlanInput;

pub struct Context<'a> {
    pub input: &'a PlanInput<'a>,
    pub recs: &'a [&'a Rec<'a>],
    pub outcome: Option<&'a Outcome>,
    pub split: &'a Split,
    pub trigger: &'a Trigger,
    pub cuts: &'a Cuts,
    pub est: &'a Estimator<'a>,
    pub limits_tokens: Option<usize>,
    pub max_messages: Option<usize>,
    pub tool_max: Option<usize>,
    /// The `guard` setting: `none`, `shrink` or `fit`.
    pub guard: String,
    pub summarizing: bool,
}

pub fn findings(c: &Context) -> Vec<Finding> {
    let mut out = common_findings(c.input.session, c.split, c.trigger, c.input.real_tokens());
    let Some(o) = c.outcome else {
        return out;
    };
    if c.summarizing {
        out.extend(truncated(c));
        out.extend(unseen(c, o));
        out.extend(grows(c, o));
    }
    out.extend(every_turn(c, o));
    if let Some(text) = &o.receipt {
        out.push(Finding {
            code: "receipt-inserted",
            severity: Severity::Info,
            messages: Vec::new(),
            detail: format!("the compacted history carries the receipt: {text}"),
        });
    }
    out
}

fn messages_of(c: &Context, records: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut out: Vec<usize> = records
        .filter_map(|i| c.recs.get(i))
        .flat_map(|r| r.messages.iter().copied())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn truncated(c: &Context) -> Option<Finding> {
    if c.cuts.chars == 0 {
        return None;
    }
    let sources: std::collections::HashSet<usize> = c.cuts.records.iter().copied().collect();
    let messages = messages_of(
        c,
        (0..c.recs.len()).filter(|&i| c.recs.get(i).is_some_and(|r| sources.contains(&r.source))),
    );
    let max = c.tool_max.unwrap_or(500);
    Some(Finding {
        code: "message-truncated",
        severity: Severity::Warn,
        messages,
        detail: format!(
            "tool returns, retry feedback and harness data are cut to tool_return_max_chars={max} in the summarizer transcript (the first {} characters and `[...]`): {} characters the summarizer never sees",
            max.saturating_sub(5),
            c.cuts.chars
        ),
    })
}

/// Thinking and media in the summarized records: counted by the estimate, never rendered.
fn unseen(c: &Context, o: &Outcome) -> Vec<Finding> {
    let has = |i: &usize, f: fn(&P) -> bool| c.recs.get(*i).is_some_and(|r| r.parts.iter().any(f));
    let thinking: Vec<usize> = o
        .to_summarize
        .iter()
        .filter(|i| has(i, |p| matches!(p, P::Thinking(t) if !t.is_empty())))
        .copied()
        .collect();
    let media: Vec<usize> = o
        .to_summarize
        .iter()
        .filter(|i| {
            has(i, |p| {
                matches!(p, P::Image) || p.user().is_some_and(|u| u.media > 0)
            })
        })
        .copied()
        .collect();
    let mut out = Vec::new();
    if !thinking.is_empty() {
        out.push(Finding {
            code: "reasoning-dropped",
            severity: Severity::Info,
            detail: format!(
                "{} summarized response(s) hold thinking, which format_transcript never renders: the summarizer does not see it",
                thinking.len()
            ),
            messages: messages_of(c, thinking.into_iter()),
        });
    }
    if !media.is_empty() {
        out.push(Finding {
            code: "image-dropped",
            severity: Severity::Warn,
            detail: "images and files of summarized messages are not shown to the summarizer (only text items are rendered)".into(),
            messages: messages_of(c, media.into_iter()),
        });
    }
    out
}

/// The estimate of the compacted history without the summary itself (`estimate_token_count`).
fn after_without_summary(c: &Context, o: &Outcome) -> usize {
    let mut segs: Vec<&str> = Vec::new();
    for &(i, j) in &o.survivors {
        if let Some(p) = c.recs.get(i).and_then(|r| r.parts.get(j)) {
            part_segments(p, &mut segs);
        }
    }
    for &i in &o.user_copies {
        if let Some(r) = c.recs.get(i) {
            for p in &r.parts {
                if let Some(u) = p.user().filter(|u| u.is_turn() && !u.kept_copy) {
                    segs.extend(u.texts.iter().map(|t| &**t));
                }
            }
        }
    }
    segs.extend(o.receipt.as_deref());
    let tail_instructions = o
        .survivors
        .iter()
        .rev()
        .filter_map(|&(i, _)| c.recs.get(i))
        .find_map(|r| r.instructions.as_deref().filter(|s| !s.is_empty()));
    segs.extend(tail_instructions);
    c.est.count(&segs)
}

fn grows(c: &Context, o: &Outcome) -> Option<Finding> {
    let before = c.est.token_count(c.recs);
    let after = after_without_summary(c, o);
    let budget = before as i64 - after as i64;
    let rule = match c.guard.as_str() {
        "shrink" => "with guard=shrink (0.63) a summary that does not shrink the request's estimate is rejected and the history kept as it was",
        "fit" => "with guard=fit (a what-if, no release) a summary that does not shrink the request's estimate, or leaves it at the trigger, is rejected and the history kept as it was",
        _ => "0.62 has no shrink check: it inserts the summary whatever its length",
    };
    let (severity, detail) = if budget <= 0 {
        (
            Severity::Warn,
            format!("the compacted history without any summary already estimates {after} tokens, not below the {before} of the history it replaces: any summary grows the request; {rule}"),
        )
    } else {
        (
            Severity::Info,
            format!("the history estimates {before} tokens and the compacted history without the summary {after}: a summary over {budget} tokens (about {} characters) grows the request; {rule}", budget * 4),
        )
    };
    Some(Finding {
        code: "summary-grows-request",
        severity,
        messages: Vec::new(),
        detail,
    })
}

fn every_turn(c: &Context, o: &Outcome) -> Option<Finding> {
    let count = o.other_messages + usize::from(c.summarizing);
    if let Some(m) = c.max_messages.filter(|&m| count > m) {
        return Some(Finding {
            code: "compacts-every-turn",
            severity: Severity::Warn,
            messages: c.split.kept.clone(),
            detail: format!("the compacted history still holds {count} messages, over max_messages={m}: the next request compacts again"),
        });
    }
    let t = c.limits_tokens?;
    let after = after_without_summary(c, o);
    (after > t).then(|| Finding {
        code: "compacts-every-turn",
        severity: Severity::Warn,
        messages: c.split.kept.clone(),
        detail: format!(
            "what the compaction keeps alone estimates {after} tokens, over the trigger of {t}: every following request compacts again{}",
            if c.summarizing { " (a summarizer call each time; 0.62 has no shrink check)" } else { "" }
        ),
    })
}
