//! What an Agent Framework run loses, with stable codes: tool rounds as bare type names (1.17),
//! reasoning and images the transcript leaves out, groups the input budget skips or leaves
//! behind, the `summary_N` id collision, tool-result collapse (arguments and text lost, labels
//! capped), a compaction that leaves the history still over its trigger, and framework warnings.

use super::model::{ctype, AfMsg};
use super::render::is_reasoning;
use super::run::Run;
use super::Version;
use crate::compaction::findings::{Finding, Severity};
use crate::compaction::plan::Split;

fn finding(
    code: &'static str,
    severity: Severity,
    messages: Vec<usize>,
    detail: String,
) -> Finding {
    Finding {
        code,
        severity,
        messages,
        detail,
    }
}

fn summarized_with(run: &Run, split: &Split, pred: impl Fn(&AfMsg) -> bool) -> Vec<usize> {
    let summarized: std::collections::HashSet<usize> = split.summarized.iter().copied().collect();
    run.msgs
        .iter()
        .filter(|m| m.origin.is_some_and(|o| summarized.contains(&o)))
        .filter(|m| pred(m))
        .filter_map(|m| m.origin)
        .collect()
}

const TOOL_TYPES: &[&str] = &[
    "function_call",
    "function_result",
    "mcp_server_tool_call",
    "mcp_server_tool_result",
    "computer_tool_call",
    "computer_tool_result",
    "function_approval_request",
    "function_approval_response",
];

pub fn of_run(
    run: &Run,
    split: &Split,
    changed: bool,
    after: i64,
    threshold: i64,
    measure: &str,
) -> Vec<Finding> {
    let mut out = transcript_losses(run, split);
    if let Some((msgs, tokens, budget)) = run.notes.skipped.first() {
        let all: Vec<usize> = run
            .notes
            .skipped
            .iter()
            .flat_map(|(m, _, _)| m.iter().copied())
            .collect();
        out.push(finding("summary-input-group-skipped", Severity::Warn, all, format!(
            "{} oldest group(s) alone exceed max_summary_input_tokens ({tokens} > {budget} for the first, {} message(s)): never summarized, they stay included ahead of the summary, and the trigger keeps firing",
            run.notes.skipped.len(), msgs.len()
        )));
    }
    if let Some((msgs, budget)) = run.notes.unselected.first() {
        out.push(finding("summary-input-budget", Severity::Info, msgs.clone(), format!(
            "{} message(s) due for summarization did not fit max_summary_input_tokens={budget}: they stay included, unsummarized",
            msgs.len()
        )));
    }
    for id in &run.collisions {
        out.push(finding("summary-id-collision", Severity::Error, Vec::new(), format!(
            "the new summary's id `{id}` (summary_{{len(messages)}}) repeats an existing message id: both share group `group_{id}`, and the linked-group rule re-includes the old summary next to the new one"
        )));
    }
    out.extend(collapse_findings(run));
    let over_again =
        changed && after > threshold && measure != "groups" && measure != "tool-call groups";
    if over_again {
        out.push(finding("compacts-every-turn", Severity::Warn, split.kept.clone(), format!(
            "after compaction the history still measures {after} {measure}, over the trigger of {threshold}: the next model call compacts again"
        )));
    }
    for line in &run.log {
        out.push(finding(
            "framework-warning",
            Severity::Warn,
            Vec::new(),
            line.clone(),
        ));
    }
    out
}

fn transcript_losses(run: &Run, split: &Split) -> Vec<Finding> {
    let mut out = Vec::new();
    let tools = summarized_with(run, split, |m| m.types().any(|t| TOOL_TYPES.contains(&t)));
    if run.v == Version::V1_17 && !tools.is_empty() {
        out.push(finding("tool-call-placeholder", Severity::Warn, tools.clone(), format!(
            "{} summarized message(s) hold tool calls or results; 1.17 renders Message.text only, so they reach the summarizer as bare type names (`function_call`, `function_result`) or not at all: tool names, arguments and results are lost",
            tools.len()
        )));
    }
    let reasoning = summarized_with(run, split, |m| m.contents.iter().any(is_reasoning));
    if !reasoning.is_empty() {
        out.push(finding("reasoning-dropped", Severity::Info, reasoning, "reasoning of summarized messages is not shown to the summarizer (at most its type name `text_reasoning`)".into()));
    }
    let images = summarized_with(run, split, |m| {
        m.contents
            .iter()
            .any(|c| matches!(ctype(c), "data" | "uri"))
    });
    if !images.is_empty() {
        out.push(finding("image-dropped", Severity::Warn, images, "images of summarized messages are not shown to the summarizer (at most their type name `data`/`uri`)".into()));
    }
    out
}

fn collapse_findings(run: &Run) -> Vec<Finding> {
    let mut out = Vec::new();
    let collapsed: Vec<usize> = run
        .notes
        .collapsed
        .iter()
        .flat_map(|(m, _)| m.iter().copied())
        .collect();
    if !collapsed.is_empty() {
        out.push(finding("tool-arguments-dropped", Severity::Warn, collapsed, format!(
            "{} tool-call group(s) collapsed into `[Tool results: …]` messages: only tool names and results remain; arguments, the assistant's text and reasoning in those groups are lost",
            run.notes.collapsed.len()
        )));
    }
    for (msgs, cut) in run.notes.collapsed.iter().filter(|(_, cut)| *cut > 0) {
        out.push(finding("message-truncated", Severity::Warn, msgs.clone(), format!(
            "the `[Tool results: …]` label is capped at 4,096 characters: {cut} characters of tool results are cut"
        )));
    }
    out
}
