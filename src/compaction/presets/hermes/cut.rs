//! Where Hermes cuts: the protected head (system prompt + `protect_first_n`, decayed to 0 after
//! the first compaction), `_find_tail_cut_by_tokens` with its 1.5× soft ceiling, raw-budget
//! re-walk, message floor, tool-group alignment and the last-user / last-assistant anchors, and
//! the search for an earlier handoff summary inside the window.

use serde_json::Value;

use super::msgs::{budget_tokens, content_text, HMsg};
use super::text::{
    HISTORICAL_SUMMARY_PREFIXES, LEGACY_SUMMARY_PREFIX, MERGED_SUMMARY_DELIMITER,
    SUMMARY_END_MARKER, SUMMARY_PREFIX,
};

/// `_protect_head_size`.
pub fn head_size(msgs: &[HMsg], protect_first_n: usize) -> usize {
    usize::from(msgs.first().is_some_and(|m| m.role() == "system")) + protect_first_n
}

/// `_align_boundary_forward`.
pub fn align_forward(msgs: &[HMsg], mut idx: usize) -> usize {
    while idx < msgs.len() && msgs[idx].role() == "tool" {
        idx += 1;
    }
    idx
}

/// `_align_boundary_backward`.
fn align_backward(msgs: &[HMsg], idx: usize) -> usize {
    if idx == 0 || idx >= msgs.len() {
        return idx;
    }
    let mut check = idx as isize - 1;
    while check >= 0 && msgs[check as usize].role() == "tool" {
        check -= 1;
    }
    if check >= 0 {
        let m = &msgs[check as usize];
        if m.role() == "assistant" && m.has_tool_calls() {
            return check as usize;
        }
    }
    idx
}

/// `_find_tail_cut_by_tokens`.
pub fn tail_cut(msgs: &[HMsg], head_end: usize, budget: usize, protect_last_n: usize) -> usize {
    let n = msgs.len();
    let available = n.saturating_sub(head_end + 1);
    let floor = protect_last_n.clamp(3, 8);
    let cap = 3.max(available.saturating_sub(2));
    let min_tail = if available > 1 {
        floor.min(cap).min(available)
    } else {
        0
    };
    let soft = (budget as f64 * 1.5) as usize;
    let mut accumulated = 0usize;
    let mut cut = n;
    for i in (head_end..n).rev() {
        let t = budget_tokens(&msgs[i]);
        if accumulated + t > soft && n - i >= min_tail {
            break;
        }
        accumulated += t;
        cut = i;
    }
    if cut <= head_end && accumulated <= soft && accumulated > 0 {
        let mut raw = 0usize;
        for j in (head_end..n).rev() {
            let t = budget_tokens(&msgs[j]);
            if raw + t > budget && n - j >= min_tail {
                cut = j;
                break;
            }
            raw += t;
            cut = j;
        }
    }
    let fallback = n - min_tail;
    cut = cut.min(fallback);
    if cut <= head_end {
        cut = fallback.max(head_end + 1);
    }
    cut = align_backward(msgs, cut);
    cut = last_user_in_tail(msgs, cut, head_end);
    cut = last_assistant_in_tail(msgs, cut, head_end);
    align_forward(msgs, cut.max(head_end + 1))
}

fn last_user_in_tail(msgs: &[HMsg], cut: usize, head_end: usize) -> usize {
    let last_user = (head_end..msgs.len())
        .rev()
        .find(|&i| msgs[i].role() == "user" && !is_summary(msgs[i].content()));
    let Some(last_user) = last_user else {
        return cut;
    };
    if last_user >= cut {
        return cut;
    }
    let adjusted = last_user.max(head_end + 1);
    if adjusted > last_user {
        return turn_pair_end(msgs, last_user).max(head_end + 1);
    }
    adjusted
}

fn turn_pair_end(msgs: &[HMsg], user: usize) -> usize {
    let n = msgs.len();
    let mut idx = user + 1;
    if idx >= n || msgs[idx].role() != "assistant" {
        return idx;
    }
    idx += 1;
    while idx < n && msgs[idx].role() == "tool" {
        idx += 1;
    }
    idx
}

fn last_assistant_in_tail(msgs: &[HMsg], cut: usize, head_end: usize) -> usize {
    let mut last_any = None;
    let mut found = None;
    for i in (head_end..msgs.len()).rev() {
        let m = &msgs[i];
        if m.role() != "assistant" {
            continue;
        }
        last_any.get_or_insert(i);
        if visible_text(m.content()) {
            found = Some(i);
            break;
        }
    }
    let Some(last) = found.or(last_any) else {
        return cut;
    };
    if last >= cut {
        return cut;
    }
    align_backward(msgs, last).max(head_end + 1)
}

fn visible_text(content: &Value) -> bool {
    let nonblank = |v: &Value| v.as_str().is_some_and(|s| !super::py::is_blank(s));
    match content {
        Value::String(_) => nonblank(content),
        Value::Array(parts) => parts.iter().any(|p| {
            p.as_object().is_some_and(|o| {
                let text = o
                    .get("text")
                    .filter(|t| super::py::truthy(t))
                    .or_else(|| o.get("content"));
                text.is_some_and(nonblank)
            })
        }),
        _ => false,
    }
}

/// `_is_context_summary_content`.
pub fn is_summary(content: &Value) -> bool {
    let full = content_text(content);
    let mut text = full.trim_start_matches(super::py::is_space);
    if let Some((_, after)) = text.split_once(MERGED_SUMMARY_DELIMITER) {
        text = after.trim_start_matches(super::py::is_space);
    }
    text.starts_with(SUMMARY_PREFIX)
        || text.starts_with(LEGACY_SUMMARY_PREFIX)
        || HISTORICAL_SUMMARY_PREFIXES
            .iter()
            .any(|p| text.starts_with(p))
}

/// `_strip_summary_prefix`.
pub fn strip_summary_prefix(summary: &str) -> String {
    let sp = super::py::is_space;
    let mut text = summary.trim_matches(sp).to_string();
    if let Some((_, after)) = text.split_once(MERGED_SUMMARY_DELIMITER) {
        text = after.trim_matches(sp).to_string();
    }
    let prefixes = [SUMMARY_PREFIX, LEGACY_SUMMARY_PREFIX]
        .into_iter()
        .chain(HISTORICAL_SUMMARY_PREFIXES.iter().copied());
    for prefix in prefixes {
        if let Some(rest) = text.strip_prefix(prefix) {
            text = rest.trim_start_matches(sp).to_string();
            break;
        }
    }
    if let Some(rest) = text.strip_suffix(SUMMARY_END_MARKER) {
        text = rest.trim_end_matches(sp).to_string();
    }
    text
}

/// `_find_latest_context_summary`: (index, body) of the newest summary in `start..end`.
pub fn latest_summary(msgs: &[HMsg], start: usize, end: usize) -> Option<(usize, String)> {
    (start..end.min(msgs.len())).rev().find_map(|i| {
        let c = msgs[i].content();
        is_summary(c).then(|| (i, strip_summary_prefix(&content_text(c))))
    })
}
