//! What the OpenHands condenser loses, as findings: previews that cut events and the previous
//! summary, tool arguments never shown, reasoning and images left out; and the fallbacks
//! (soft skip, hard reset, failure).
//!
//! Owns: the preset-specific finding codes. It must not change the plan.

use std::collections::BTreeSet;

use serde_json::Value;

use super::cut::{Decision, Outcome};
use super::events::Record;
use super::render::{items, Item};
use super::view::{rec, Ev, Kind, View};
use crate::compaction::findings::{Finding, Severity};

fn msgs<'a>(evs: impl Iterator<Item = &'a Ev>) -> Vec<usize> {
    evs.filter_map(|e| e.msg)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Findings about the `str(event)` input of `openhands`.
pub fn lossy(records: &[Record], forgotten: &[Ev], cuts: &[usize]) -> Vec<Finding> {
    let mut out = Vec::new();
    let cut: Vec<(&Ev, usize)> = forgotten
        .iter()
        .zip(cuts.iter().copied())
        .filter(|(_, c)| *c > 0)
        .collect();
    let events: Vec<&(&Ev, usize)> = cut
        .iter()
        .filter(|(e, _)| e.kind != Kind::Summary)
        .collect();
    if !events.is_empty() {
        let total: usize = events.iter().map(|(_, c)| c).sum();
        let worst = events.iter().map(|(_, c)| *c).max().unwrap_or(0);
        out.push(Finding {
            code: "message-truncated",
            severity: Severity::Warn,
            messages: msgs(events.iter().map(|(e, _)| *e)),
            detail: format!(
                "{} event(s) reach the summarizer as a 500-character preview (str(event)): {total} characters cut in all, up to {worst} from one event",
                events.len()
            ),
        });
    }
    for (e, c) in cut.iter().filter(|(e, _)| e.kind == Kind::Summary) {
        out.push(Finding {
            code: "previous-summary-truncated",
            severity: Severity::Warn,
            messages: e.msg.into_iter().collect(),
            detail: format!(
                "the previous summary is forgotten again and shown cut to 497 characters: {c} characters of it are lost"
            ),
        });
    }
    let actions: Vec<&Ev> = forgotten
        .iter()
        .filter(|e| e.kind == Kind::Action)
        .collect();
    if !actions.is_empty() {
        out.push(Finding {
            code: "tool-arguments-dropped",
            severity: Severity::Warn,
            messages: msgs(actions.iter().copied()),
            detail: format!(
                "{} summarized tool call(s) are shown as their action class name only: the summarizer never sees their arguments",
                actions.len()
            ),
        });
    }
    out.extend(reasoning_and_images(records, forgotten));
    out
}

/// Reasoning and images of summarized events (both presets leave them out or name them only).
pub fn reasoning_and_images(records: &[Record], forgotten: &[Ev]) -> Vec<Finding> {
    let mut out = Vec::new();
    let has_reasoning = |v: &Value| {
        let holder = v.get("llm_message").unwrap_or(v);
        let text = holder
            .get("reasoning_content")
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty());
        let blocks = holder
            .get("thinking_blocks")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
        text || blocks
    };
    let reasoning: Vec<&Ev> = forgotten
        .iter()
        .filter(|e| {
            matches!(e.kind, Kind::Message | Kind::Action) && has_reasoning(rec(records, e))
        })
        .collect();
    if !reasoning.is_empty() {
        out.push(Finding {
            code: "reasoning-dropped",
            severity: Severity::Info,
            messages: msgs(reasoning.iter().copied()),
            detail: "reasoning content and thinking blocks of summarized events are not shown to the summarizer".into(),
        });
    }
    let images: Vec<&Ev> = forgotten
        .iter()
        .filter(|e| {
            let v = rec(records, e);
            let content = match e.kind {
                Kind::Message => v["llm_message"].get("content"),
                Kind::Observation => v["observation"].get("content"),
                _ => None,
            };
            items(content).iter().any(|i| matches!(i, Item::Image(_)))
        })
        .collect();
    if !images.is_empty() {
        out.push(Finding {
            code: "image-dropped",
            severity: Severity::Warn,
            messages: msgs(images.iter().copied()),
            detail: "images of summarized events reach the summarizer as `[Image: N URLs]` only"
                .into(),
        });
    }
    out
}

/// Findings about how `condense` ended.
pub fn outcome(d: &Decision, view: &View) -> Vec<Finding> {
    let pinned = |start: usize| msgs(view.events.get(..start).unwrap_or_default().iter());
    match &d.outcome {
        Outcome::SoftReturn { why } => vec![Finding {
            code: "condensation-skipped",
            severity: Severity::Info,
            messages: Vec::new(),
            detail: format!("the EVENTS limit is exceeded but no condensation is available ({why}); the view is sent unchanged and the condenser retries next step"),
        }],
        Outcome::HardReset { start, why } => vec![Finding {
            code: "hard-context-reset",
            severity: Severity::Warn,
            messages: pinned(*start),
            detail: format!("no condensation is available ({why}) under a hard requirement: every event after the system prompt is summarized, keep_first included, and the summary is then pinned at offset {start}"),
        }],
        Outcome::Fails { why } => vec![Finding {
            code: "condensation-failed",
            severity: Severity::Error,
            messages: Vec::new(),
            detail: format!("a hard requirement with no condensation available ({why}) and nothing after the system prompt to reset: the agent step raises"),
        }],
        _ => Vec::new(),
    }
}
