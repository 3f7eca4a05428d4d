//! The LLM-free strategies, ported call for call: `TruncationStrategy`,
//! `SlidingWindowStrategy`, `SelectiveToolCallCompactionStrategy`,
//! `ToolResultCompactionStrategy` (older tool-call groups replaced by a `[Tool results: …]`
//! assistant message, capped at 4,096 characters), `TokenBudgetComposedStrategy` (strategies in
//! order, then the oldest-group fallback, then the strict one) and
//! `ContextWindowCompactionStrategy` (tool-result eviction above 50 %, truncation above 80 %).

use std::collections::HashSet;

use serde_json::json;

use super::annotate::{
    annotate_groups, annotate_tokens, group_maps, included_group_ids, included_tokens,
    minimum_retained, ordered_group_ids, set_excluded, token_count,
};
use super::groups::GroupKind;
use super::model::{ctype, field, origin_session_ids, AfMsg};
use super::params::Strategy;
use super::pyjson::py_len;
use super::render::tool_result_text;
use super::run::Run;
use super::summarize::summarize;

/// Runs one strategy's `__call__`; returns `changed`.
pub fn call(run: &mut Run, s: &Strategy) -> bool {
    match s {
        Strategy::Summarization(p) => summarize(run, p),
        Strategy::Sliding {
            keep,
            preserve_system,
        } => sliding(run, *keep, *preserve_system),
        Strategy::Truncation(t) => truncation(run, t),
        Strategy::Selective { keep } => selective(run, *keep),
        Strategy::ToolResult { keep } => tool_result(run, *keep),
        Strategy::TokenBudget {
            budget,
            strategies,
            early_stop,
        } => token_budget(run, *budget, strategies, *early_stop),
        Strategy::ContextWindow(c) => context_window(run, c),
    }
}

/// `TruncationStrategy` settings.
#[derive(Debug, Clone)]
pub struct Truncation {
    pub max_n: i64,
    pub compact_to: i64,
    pub tokens: bool,
    pub preserve_system: bool,
    pub preserve_first_user_group: bool,
}

fn metric(run: &Run, tokens: bool) -> i64 {
    if tokens {
        included_tokens(&run.msgs, run.v)
    } else {
        run.msgs.iter().filter(|m| !m.excluded()).count() as i64
    }
}

fn truncation(run: &mut Run, t: &Truncation) -> bool {
    let ordered = ordered_group_ids(&run.msgs);
    if metric(run, t.tokens) <= t.max_n {
        return false;
    }
    let g = group_maps(&run.msgs);
    let mut protected: HashSet<String> = HashSet::new();
    if t.preserve_system {
        protected.extend(
            ordered
                .iter()
                .filter(|id| g.kind(id) == Some(GroupKind::System))
                .cloned(),
        );
    }
    if t.preserve_first_user_group {
        protected.extend(
            ordered
                .iter()
                .find(|id| g.kind(id) == Some(GroupKind::User))
                .cloned(),
        );
    }
    protected.extend(minimum_retained(&run.msgs, &ordered, &g));
    let v = run.v;
    // The metric is a sum over included messages: kept current as messages are excluded.
    let mut current = metric(run, t.tokens);
    let mut changed = false;
    for id in &ordered {
        if current <= t.compact_to {
            break;
        }
        if protected.contains(id) {
            continue;
        }
        for &i in g.of(id) {
            let m = &mut run.msgs[i];
            let was_included = !m.excluded();
            changed |= set_excluded(m, true, Some("truncation"));
            if was_included {
                current -= if t.tokens {
                    token_count(m, v).unwrap_or(0)
                } else {
                    1
                };
            }
        }
    }
    changed
}

fn exclude_groups(run: &mut Run, ids: &[String], keep: &HashSet<String>, reason: &str) -> bool {
    let g = group_maps(&run.msgs);
    let mut changed = false;
    for id in ids.iter().filter(|id| !keep.contains(*id)) {
        for &i in g.of(id) {
            changed |= set_excluded(&mut run.msgs[i], true, Some(reason));
        }
    }
    changed
}

fn sliding(run: &mut Run, keep: i64, preserve_system: bool) -> bool {
    let ordered = ordered_group_ids(&run.msgs);
    let g = group_maps(&run.msgs);
    let included = included_group_ids(&run.msgs, &ordered, &g);
    let non_system: Vec<&String> = included
        .iter()
        .filter(|id| g.kind(id) != Some(GroupKind::System))
        .collect();
    let from = non_system.len().saturating_sub(keep.max(0) as usize);
    let mut keep_ids: HashSet<String> = non_system[from..].iter().map(|s| (*s).clone()).collect();
    if preserve_system {
        keep_ids.extend(
            ordered
                .iter()
                .filter(|id| g.kind(id) == Some(GroupKind::System))
                .cloned(),
        );
    }
    exclude_groups(run, &included, &keep_ids, "sliding_window")
}

/// Included tool-call groups, and the last `keep` of them.
fn tool_groups(run: &Run, keep: i64) -> (Vec<String>, HashSet<String>) {
    let ordered = ordered_group_ids(&run.msgs);
    let g = group_maps(&run.msgs);
    let tools: Vec<String> = included_group_ids(&run.msgs, &ordered, &g)
        .into_iter()
        .filter(|id| g.kind(id) == Some(GroupKind::ToolCall))
        .collect();
    let from = tools.len().saturating_sub(keep.max(0) as usize);
    let keep_ids = if keep > 0 {
        tools[from..].iter().cloned().collect()
    } else {
        HashSet::new()
    };
    (tools, keep_ids)
}

fn selective(run: &mut Run, keep: i64) -> bool {
    let (tools, keep_ids) = tool_groups(run, keep);
    if tools.len() as i64 <= keep {
        return false;
    }
    exclude_groups(run, &tools, &keep_ids, "tool_call_compaction")
}

const PREFIX: &str = "[Tool results: ";
const MAX_CHARS: usize = 4096;
const MARKER: &str = "... [truncated]";

fn tool_result(run: &mut Run, keep: i64) -> bool {
    let (tools, keep_ids) = tool_groups(run, keep);
    if tools.len() as i64 <= keep {
        return false;
    }
    let mut g = group_maps(&run.msgs);
    let mut changed = false;
    for id in tools.iter().filter(|id| !keep_ids.contains(*id)) {
        let members: Vec<usize> = g.of(id).to_vec();
        let labels = result_labels(run, &members);
        let (text, cut) = summary_text(&labels);
        let summary_id = format!("tool_summary_{id}");
        let original_ids: Vec<String> = members
            .iter()
            .filter_map(|&i| run.msgs[i].id().map(str::to_string))
            .collect();
        for &i in &members {
            super::summarize::mark_summarized(&mut run.msgs[i], &summary_id);
            changed |= set_excluded(&mut run.msgs[i], true, Some("tool_result_compaction"));
        }
        run.note_collapsed(&members, cut);
        let at = g.starts.get(id).copied().unwrap_or(0);
        let annotation =
            json!({"_summary_of_message_ids": original_ids, "_summary_of_group_ids": [id]});
        let origins = origin_session_ids(members.iter().map(|&i| &run.msgs[i]));
        run.insert(at, AfMsg::inserted(summary_id, &text, annotation, origins));
        annotate_groups(&mut run.msgs, Some(at), false, run.v);
        g = group_maps(&run.msgs);
    }
    changed
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

fn token_budget(run: &mut Run, budget: i64, strategies: &[Strategy], early_stop: bool) -> bool {
    let v = run.v;
    annotate_groups(&mut run.msgs, None, false, v);
    annotate_tokens(&mut run.msgs, v);
    if included_tokens(&run.msgs, v) <= budget {
        return false;
    }
    let mut changed = false;
    for s in strategies {
        changed = call(run, s) || changed;
        annotate_groups(&mut run.msgs, None, false, v);
        annotate_tokens(&mut run.msgs, v);
        if early_stop && included_tokens(&run.msgs, v) <= budget {
            return changed;
        }
    }
    if included_tokens(&run.msgs, v) <= budget {
        return changed;
    }
    annotate_groups(&mut run.msgs, None, false, v);
    let ordered = ordered_group_ids(&run.msgs);
    let g = group_maps(&run.msgs);
    let minimum = minimum_retained(&run.msgs, &ordered, &g);
    let mut current = included_tokens(&run.msgs, v);
    for strict in [false, true] {
        let reason = if strict {
            "token_budget_fallback_strict"
        } else {
            "token_budget_fallback"
        };
        for id in &ordered {
            let system = g.kind(id) == Some(GroupKind::System);
            if system != strict || minimum.contains(id) {
                continue;
            }
            for &i in g.of(id) {
                let m = &mut run.msgs[i];
                let was_included = !m.excluded();
                changed |= set_excluded(m, true, Some(reason));
                if was_included {
                    current -= token_count(m, v).unwrap_or(0);
                }
            }
            if current <= budget {
                break;
            }
        }
        if current <= budget {
            return changed;
        }
    }
    changed
}

/// `ContextWindowCompactionStrategy` settings, derived as its constructor does.
#[derive(Debug, Clone)]
pub struct ContextWindow {
    pub input_budget: i64,
    pub eviction_tokens: i64,
    pub truncation_tokens: i64,
    pub keep_last_tool_call_groups: i64,
    pub preserve_first_user_group: bool,
}

fn context_window(run: &mut Run, c: &ContextWindow) -> bool {
    let v = run.v;
    annotate_groups(&mut run.msgs, None, false, v);
    annotate_tokens(&mut run.msgs, v);
    let mut changed = false;
    if included_tokens(&run.msgs, v) > c.eviction_tokens {
        changed = tool_result(run, c.keep_last_tool_call_groups);
        annotate_groups(&mut run.msgs, None, false, v);
        annotate_tokens(&mut run.msgs, v);
    }
    if included_tokens(&run.msgs, v) > c.truncation_tokens {
        let t = Truncation {
            max_n: c.truncation_tokens,
            compact_to: c.eviction_tokens,
            tokens: true,
            preserve_system: true,
            preserve_first_user_group: c.preserve_first_user_group,
        };
        changed = truncation(run, &t) || changed;
    }
    let remaining = included_tokens(&run.msgs, v);
    if remaining > c.input_budget {
        run.log.push(format!(
            "Compaction could not fit protected messages within the input budget ({remaining} > {})",
            c.input_budget
        ));
    }
    changed
}
