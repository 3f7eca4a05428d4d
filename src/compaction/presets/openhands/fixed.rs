//! `openhands-fixed`: the summarizer input OpenHands should send — whole events instead of
//! display previews. The previous summary is shown whole; an action shows its tool, its
//! `summary`, its thought and its arguments; results, messages and errors keep head and tail
//! at 10,000 characters (V0's `truncate_content`). When the request overflows the summarizer's
//! window (the agent's, as the SDK copies the agent LLM), the head+tail cap shrinks by 20% and
//! the input is rebuilt, up to 10 times.
//!
//! Owns: that rendering and its findings. No framework runs it: it is tested by construction.

use serde_json::Value;

use super::events::Record;
use super::findings::reasoning_and_images;
use super::render::{items, llm_message, s, to_llm_content, Item};
use super::view::{rec, Ev, Kind};
use crate::compaction::findings::{Finding, Severity};
use crate::compaction::plan::PromptMessage;
use crate::compaction::preset::PlanInput;

/// Head+tail cap of one event's text.
pub const CAP: usize = 10_000;
const RETRIES: usize = 10;
const MARKER: &str = "\n[... Observation truncated due to length ...]\n";

/// The request, and what it still loses.
pub fn summarizer(
    records: &[Record],
    forgotten: &[Ev],
    input: &PlanInput,
) -> (Vec<PromptMessage>, Vec<Finding>) {
    let window = usize::try_from(input.window).unwrap_or(usize::MAX);
    let mut cap = CAP;
    let mut retries = 0;
    let (mut messages, mut cut) = attempt(records, forgotten, cap);
    let tokens = |m: &[PromptMessage]| -> usize {
        m.iter()
            .map(|p| input.counter.count(&p.content) + 4)
            .sum::<usize>()
            + 3
    };
    // Over the window when a bound says so already; counted only near it.
    let over = |m: &[PromptMessage]| -> bool {
        let least = m
            .iter()
            .map(|p| crate::tokens::bound::at_least(&p.content) + 4)
            .sum::<usize>()
            + 3;
        least > window || tokens(m) > window
    };
    while over(&messages) && retries < RETRIES && cap > 0 {
        cap = cap * 4 / 5;
        retries += 1;
        (messages, cut) = attempt(records, forgotten, cap);
    }
    let mut findings = reasoning_and_images(records, forgotten);
    let cut_events: Vec<usize> = forgotten
        .iter()
        .zip(&cut)
        .filter(|(_, c)| **c > 0)
        .filter_map(|(e, _)| e.msg)
        .collect();
    if !cut_events.is_empty() {
        let total: usize = cut.iter().sum();
        findings.push(Finding {
            code: "message-truncated",
            severity: Severity::Info,
            detail: format!(
                "{} event(s) over {cap} characters keep head and tail: {total} characters cut from their middles",
                cut_events.len()
            ),
            messages: cut_events,
        });
    }
    if retries > 0 {
        let still = tokens(&messages);
        findings.push(Finding {
            code: "summarizer-window-overflow",
            severity: if still > window { Severity::Error } else { Severity::Warn },
            messages: Vec::new(),
            detail: format!(
                "the whole-event input overflows the {window}-token summarizer window: the head+tail cap shrank {retries} time(s) by 20% to {cap} characters ({still} tokens{})",
                if still > window { ", still over" } else { "" }
            ),
        });
    }
    (messages, findings)
}

fn attempt(records: &[Record], forgotten: &[Ev], cap: usize) -> (Vec<PromptMessage>, Vec<usize>) {
    let (strings, cuts): (Vec<String>, Vec<usize>) =
        forgotten.iter().map(|e| whole(records, e, cap)).unzip();
    (super::prompt(super::events_prompt(&strings)), cuts)
}

/// Head and tail of `text` within `cap` characters, and how many were cut.
pub fn head_tail(text: &str, cap: usize) -> (String, usize) {
    let len = text.chars().count();
    if len <= cap {
        return (text.to_string(), 0);
    }
    let head = cap / 2;
    let tail = cap - head;
    let mut out: String = text.chars().take(head).collect();
    out.push_str(MARKER);
    out.extend(text.chars().skip(len - tail));
    (out, len - cap)
}

/// One event, whole.
fn whole(records: &[Record], ev: &Ev, cap: usize) -> (String, usize) {
    let v = rec(records, ev);
    let source = v
        .get("source")
        .and_then(Value::as_str)
        .unwrap_or("environment");
    match ev.kind {
        Kind::Action => (action(v, source), 0),
        Kind::Summary => (
            format!(
                "CondensationSummaryEvent ({source})\n  user: {}",
                s(v, "summary")
            ),
            0,
        ),
        Kind::Observation | Kind::Reject | Kind::AgentError => answer(v, ev.kind, source, cap),
        Kind::Message | Kind::System => {
            let m = llm_message(records, ev);
            let joined = m
                .content
                .iter()
                .map(Item::display)
                .collect::<Vec<_>>()
                .join("\n");
            let (text, cut) = head_tail(&joined, cap);
            let class = if ev.kind == Kind::System {
                "SystemPromptEvent"
            } else {
                "MessageEvent"
            };
            (format!("{class} ({source})\n  {}: {text}", m.role), cut)
        }
    }
}

/// An observation, rejection or error: head and tail of its text.
fn answer(v: &Value, kind: Kind, source: &str, cap: usize) -> (String, usize) {
    match kind {
        Kind::Observation => {
            let content: String = to_llm_content(&v["observation"])
                .iter()
                .map(Item::display)
                .collect();
            let (text, cut) = head_tail(&content, cap);
            (
                format!(
                    "ObservationEvent ({source})\n  Tool: {}\n  Result: {text}",
                    s(v, "tool_name")
                ),
                cut,
            )
        }
        Kind::Reject => {
            let reason = v
                .get("rejection_reason")
                .and_then(Value::as_str)
                .unwrap_or("User rejected the action");
            let (text, cut) = head_tail(reason, cap);
            (
                format!(
                    "UserRejectObservation ({source})\n  Tool: {}\n  Reason: {text}",
                    s(v, "tool_name")
                ),
                cut,
            )
        }
        Kind::AgentError => {
            let (text, cut) = head_tail(s(v, "error"), cap);
            (
                format!(
                    "AgentErrorEvent ({source})\n  Tool: {}\n  Error: {text}",
                    s(v, "tool_name")
                ),
                cut,
            )
        }
        _ => (String::new(), 0),
    }
}

fn action(v: &Value, source: &str) -> String {
    let thought: Vec<String> = items(v.get("thought"))
        .into_iter()
        .map(|i| i.display())
        .collect();
    let call = &v["tool_call"];
    let tool = if s(v, "tool_name").is_empty() {
        s(call, "name")
    } else {
        s(v, "tool_name")
    };
    let arguments = match call.get("arguments") {
        Some(Value::String(a)) => a.clone(),
        Some(other) => other.to_string(),
        None => v.get("action").map(Value::to_string).unwrap_or_default(),
    };
    let mut out = format!("ActionEvent ({source})\n  Tool: {tool}");
    let summary = s(v, "summary");
    if !summary.is_empty() {
        out.push_str(&format!("\n  Summary: {summary}"));
    }
    out.push_str(&format!("\n  Thought: {}", thought.join(" ")));
    out.push_str(&format!("\n  Arguments: {arguments}"));
    out
}
