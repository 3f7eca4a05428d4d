//! `ToolResultCompactionStrategy`: the older included tool-call groups (all but the last
//! `keep`) are excluded, each replaced by an assistant message `[Tool results: name: result; …]`
//! capped at 4,096 characters, inserted before the group.
//!
//! Owns: that strategy's labels, its cap, where its messages go, and the order its steps run.
//! The framework re-annotates the list from each inserted message (one step per group, each
//! linear in the list); here one framework step is taken, then as many following groups as
//! `batch` can show leave the same list are collapsed together and annotated once. Pure port:
//! the result is the framework's list, byte for byte; it must not change any output.

use serde_json::json;

use super::annotate::{annotate_groups, group_maps, set_excluded};
use super::batch::Batch;
use super::model::{ctype, field, origin_session_ids, AfMsg};
use super::pyjson::py_len;
use super::render::tool_result_text;
use super::run::Run;
use super::strategies::tool_groups;

const PREFIX: &str = "[Tool results: ";
const MAX_CHARS: usize = 4096;
const MARKER: &str = "... [truncated]";

pub fn tool_result(run: &mut Run, keep: i64) -> bool {
    collapse_groups(run, keep).0
}

/// The strategy's `__call__`: `changed`, and how many of the framework's own steps (insert,
/// then re-annotate to the end) it took.
pub(super) fn collapse_groups(run: &mut Run, keep: i64) -> (bool, usize) {
    let (tools, keep_ids) = tool_groups(run, keep);
    if tools.len() as i64 <= keep {
        return (false, 0);
    }
    let todo: Vec<&str> = tools
        .iter()
        .filter(|id| !keep_ids.contains(*id))
        .map(String::as_str)
        .collect();
    let mut changed = false;
    let mut steps = 0;
    let mut next = 0;
    while let Some(id) = todo.get(next) {
        let start = step(run, id, &mut changed);
        steps += 1;
        next += 1;
        let Some(start) = start.filter(|_| next < todo.len()) else {
            continue;
        };
        let mut batch = Batch::new(run, start);
        while let Some(id) = todo.get(next) {
            let Some((at, members)) = batch.admit(id) else {
                break;
            };
            let summary = collapse(run, id, &members, &mut changed);
            batch.push(at, summary);
            next += 1;
        }
        batch.flush(run);
    }
    (changed, steps)
}

/// One step as the framework takes it: group `id` as the list now stands collapsed, its
/// summary inserted at the group's start (0 if the group is gone) and the list re-annotated
/// from there. Returns where the re-annotation started.
fn step(run: &mut Run, id: &str, changed: &mut bool) -> Option<usize> {
    let g = group_maps(&run.msgs);
    let members = g.of(id).to_vec();
    let summary = collapse(run, id, &members, changed);
    let at = g.start(id).unwrap_or(0);
    run.insert(at, summary);
    annotate_groups(&mut run.msgs, Some(at), false, run.v, &run.outside)
}

/// Excludes the `members` of group `id`, back-links them to their summary, notes the collapse
/// and returns the `[Tool results: …]` message that stands for them.
pub(super) fn collapse(run: &mut Run, id: &str, members: &[usize], changed: &mut bool) -> AfMsg {
    let labels = result_labels(run, members);
    let (text, cut) = summary_text(&labels);
    let summary_id = summary_id(id);
    let original_ids: Vec<String> = members
        .iter()
        .filter_map(|&i| run.msgs[i].id().map(str::to_string))
        .collect();
    for &i in members {
        super::summarize::mark_summarized(&mut run.msgs[i], &summary_id);
        *changed |= set_excluded(&mut run.msgs[i], true, Some("tool_result_compaction"));
    }
    run.note_collapsed(members, cut);
    let annotation =
        json!({"_summary_of_message_ids": original_ids, "_summary_of_group_ids": [id]});
    let origins = origin_session_ids(members.iter().map(|&i| &run.msgs[i]));
    AfMsg::inserted(summary_id, &text, annotation, origins)
}

/// The id of the message that stands for group `id`.
pub(super) fn summary_id(id: &str) -> String {
    format!("tool_summary_{id}")
}

/// `"{tool_name}: {result}".strip()` for each result of the group's included messages.
fn result_labels(run: &Run, members: &[usize]) -> Vec<String> {
    let included = || {
        members
            .iter()
            .map(|&i| &run.msgs[i])
            .filter(|m| !m.excluded())
    };
    let mut names: Vec<(String, String)> = Vec::new();
    for c in included().flat_map(|m| m.contents.iter()) {
        let call_id = field(c, "call_id").filter(|s| !s.is_empty());
        let name = match ctype(c) {
            "function_call" => field(c, "name"),
            "mcp_server_tool_call" => field(c, "tool_name"),
            _ => None,
        };
        if let (Some(cid), Some(n)) = (call_id, name.filter(|s| !s.is_empty())) {
            names.retain(|(k, _)| k != cid);
            names.push((cid.to_string(), n.to_string()));
        }
    }
    let mut labels = Vec::new();
    for c in included().flat_map(|m| m.contents.iter()) {
        let result = match ctype(c) {
            "function_result" => match c.get("result") {
                Some(serde_json::Value::String(s)) => s.clone(),
                other => crate::pyrepr::str_of(other.unwrap_or(&serde_json::Value::Null)),
            },
            "mcp_server_tool_result" => {
                tool_result_text(c.get("output").unwrap_or(&serde_json::Value::Null))
            }
            _ => continue,
        };
        let cid = field(c, "call_id").unwrap_or_default();
        let name = names
            .iter()
            .find(|(k, _)| k == cid)
            .map(|(_, n)| n.as_str())
            .unwrap_or_default();
        let label = if name.is_empty() {
            result
        } else {
            format!("{name}: {result}")
        };
        labels.push(py_strip(&label).to_string());
    }
    labels
}

/// Python's `str.strip()` (whitespace as `str.isspace` sees it).
fn py_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// `ToolResultCompactionStrategy._summary_text` and how many label characters the cap cut.
pub fn summary_text(labels: &[String]) -> (String, usize) {
    let label = if labels.is_empty() {
        "no results".to_string()
    } else {
        labels.join("; ")
    };
    let text = format!("{PREFIX}{label}]");
    if py_len(&text) <= MAX_CHARS {
        return (text, 0);
    }
    let allowed = MAX_CHARS - py_len(PREFIX) - py_len(MARKER) - 1;
    let head: String = label.chars().take(allowed).collect();
    let head =
        head.trim_end_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c));
    let cut = py_len(&label) - py_len(head);
    (format!("{PREFIX}{head}{MARKER}]"), cut)
}
