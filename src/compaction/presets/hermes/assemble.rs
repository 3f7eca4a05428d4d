//! `compress()` end to end: the lazy auxiliary feasibility check, the no-op guards, prune, the
//! cut, the summary search, the prompt, the summary's role / merge, and `_sanitize_tool_pairs`
//! — recorded as positions in the history so the plan can say what is kept, rendered, dropped
//! or rewritten.

use std::collections::HashSet;

use super::cut;
use super::msgs::content_text;
use super::msgs::HMsg;
use super::prune::{self, Pruned};
use super::render::{self, Cuts};
use super::text::{MERGED_PRIOR_CONTEXT_HEADER, MERGED_SUMMARY_DELIMITER, SUMMARY_PREFIX};
use super::window::MINIMUM_CONTEXT_LENGTH;
use super::Config;
use crate::compaction::plan::PromptRole;

#[derive(Debug, Clone)]
pub struct Ins {
    pub role: PromptRole,
    pub position: usize,
    pub prefix: String,
    /// Position of the first tail message the summary is merged into.
    pub merged_into: Option<usize>,
}

/// What one `compress()` call did, by history position.
#[derive(Debug, Default)]
pub struct Outcome {
    pub head: Vec<usize>,
    pub tail: Vec<usize>,
    pub summarized: Vec<usize>,
    pub dropped: Vec<usize>,
    pub prompt: Option<String>,
    pub insertion: Option<Ins>,
    /// Why nothing was compacted, when nothing was.
    pub note: String,
    pub pruned: Pruned,
    pub cuts: Cuts,
    pub previous_summary: Option<usize>,
    /// Positions whose tool calls `_sanitize_tool_pairs` strips.
    pub stripped_calls: Vec<usize>,
    /// Positions `_sanitize_tool_pairs` removes from the kept history.
    pub removed_results: Vec<usize>,
    pub aux_error: Option<String>,
    /// Characters omitted by a total input bound (`max_summary_input_chars` or `aux_fit`).
    pub bounded: usize,
    pub compress_start: usize,
    /// `compress_end`: the first message of the kept tail.
    pub compress_end: usize,
    /// The whole (pruned) list the compacted history is assembled from (empty for a no-op).
    pub msgs: Vec<HMsg>,
    /// The (pruned) messages handed to the summarizer, as Hermes holds them.
    pub turns: Vec<HMsg>,
    /// An earlier summary is carried into this one (`_previous_summary` is set).
    pub carries_summary: bool,
}

impl Outcome {
    pub fn unchanged(history: &[HMsg], note: &str) -> Outcome {
        Outcome {
            tail: (0..history.len()).collect(),
            note: note.into(),
            ..Outcome::default()
        }
    }
}

/// 0.19's lazy feasibility check: an auxiliary window under 64,000 raises `ValueError`.
fn aux_refusal(history: &[HMsg], cfg: &Config) -> Option<Outcome> {
    if let Some(aux) = cfg
        .aux
        .filter(|&a| !cfg.aux_fit && a < MINIMUM_CONTEXT_LENGTH)
    {
        let mut out =
            Outcome::unchanged(history, "the auxiliary feasibility check raises ValueError");
        out.aux_error = Some(format!(
            "Auxiliary compression model has a context window of {} tokens, which is below the minimum {} required by Hermes Agent.",
            super::py::thousands(aux as usize),
            super::py::thousands(MINIMUM_CONTEXT_LENGTH as usize)
        ));
        return Some(out);
    }
    None
}

pub fn compress(history: &[HMsg], cfg: &Config, now: Option<&str>) -> Outcome {
    compress_as(history, cfg, now, true)
}

/// `compress()` without the summarizer prompt (`Outcome::prompt` is `None`): what the history
/// becomes and which turns are summarized, for callers that do not send the prompt — the
/// offline summary and the compacted list. Rendering the prompt (its redaction) is most of
/// the cost, and the plan already holds it.
pub fn compress_history(history: &[HMsg], cfg: &Config, now: Option<&str>) -> Outcome {
    compress_as(history, cfg, now, false)
}

fn compress_as(history: &[HMsg], cfg: &Config, now: Option<&str>, with_prompt: bool) -> Outcome {
    if let Some(out) = aux_refusal(history, cfg) {
        return out;
    }
    let first_n = if cfg.compression_count >= 1 {
        0
    } else {
        cfg.protect_first_n
    };
    let n = history.len();
    if n <= cut::head_size(history, first_n) + 4 {
        return Outcome::unchanged(
            history,
            "too few messages to compress (len <= head + 4): a no-op",
        );
    }
    let mut msgs = history.to_vec();
    let pruned = prune::prune(&mut msgs, cfg.protect_last_n, cfg.budgets.tail_token_budget);
    let start = cut::align_forward(&msgs, cut::head_size(&msgs, first_n));
    let end = cut::tail_cut(
        &msgs,
        start,
        cfg.budgets.tail_token_budget,
        cfg.protect_last_n,
    )
    .min(n);
    if start >= end {
        let mut out = Outcome::unchanged(history, "no compressible window (start >= end): a no-op");
        out.pruned = pruned;
        return out;
    }
    let search_start = usize::from(msgs.first().is_some_and(|m| m.role() == "system"));
    let found = cut::latest_summary(&msgs, search_start, end);
    let (turns_from, previous) = match &found {
        Some((idx, body)) => (
            start.max(idx + 1),
            Some(body.clone()).filter(|b| !b.is_empty()),
        ),
        None => (start, None),
    };
    let mut out = Outcome {
        head: (0..start).collect(),
        tail: (end..n).collect(),
        compress_start: start,
        compress_end: end,
        previous_summary: found.as_ref().map(|(i, _)| *i),
        turns: msgs[turns_from..end].to_vec(),
        carries_summary: previous.is_some(),
        ..Outcome::default()
    };
    let rendered: Vec<usize> = (turns_from..end).collect();
    if with_prompt {
        let prompt = build_prompt(
            &msgs,
            turns_from..end,
            previous.as_deref(),
            cfg,
            now,
            &mut out,
        );
        out.prompt = Some(prompt);
    }
    let summary_at = found.map(|(i, _)| i).filter(|&i| i >= start && i < end);
    out.summarized = summary_at.into_iter().chain(rendered).collect();
    let summarized: std::collections::HashSet<usize> = out.summarized.iter().copied().collect();
    out.dropped = (start..end).filter(|p| !summarized.contains(p)).collect();
    sanitize(&msgs, &mut out);
    let mut ins = insertion(&msgs, start, end);
    ins.position = out.head.len();
    out.insertion = Some(ins);
    out.pruned = pruned;
    out.msgs = msgs;
    out
}

/// The summarizer prompt for `msgs[range]` (bounded as configured), recording cuts in `out`.
fn build_prompt(
    msgs: &[HMsg],
    range: std::ops::Range<usize>,
    previous: Option<&str>,
    cfg: &Config,
    now: Option<&str>,
    out: &mut Outcome,
) -> String {
    let turns = &msgs[range.clone()];
    let mut content = render::serialize(turns, range.start, &mut out.cuts);
    if let Some(max) = cfg.max_input_chars {
        let (bounded, omitted) = render::bound_input(&content, max);
        content = bounded;
        out.bounded = omitted;
    }
    let focus = cfg.focus_topic.clone().or_else(|| render::auto_focus(msgs));
    let today = prompt_date(now);
    let budget = render::summary_budget(turns, cfg.budgets.max_summary_tokens);
    let make = |c: &str| render::prompt(c, previous, budget, Some(&today), focus.as_deref());
    let prompt = make(&content);
    let Some(aux) = cfg.aux.filter(|_| cfg.aux_fit) else {
        return prompt;
    };
    if super::py::len(&prompt).div_ceil(4) <= aux as usize {
        return prompt;
    }
    let room = (aux as usize)
        .saturating_mul(4)
        .saturating_sub(super::py::len(&prompt) - super::py::len(&content));
    let (bounded, omitted) = render::bound_input(&content, room);
    out.bounded += omitted;
    make(&bounded)
}

/// The summary's role, whether it is merged into the first tail message, and that message's role.
fn summary_role(msgs: &[HMsg], start: usize, end: usize) -> (&'static str, bool, String) {
    let n = msgs.len();
    let role_at = |i: usize| {
        let r = msgs[i].role();
        if r.is_empty() {
            "user".to_string()
        } else {
            r.to_string()
        }
    };
    let last_head = if start > 0 {
        role_at(start - 1)
    } else {
        "user".into()
    };
    let first_tail = if end < n { role_at(end) } else { "user".into() };
    let mut force_user = last_head == "system";
    if !force_user {
        let user_survives = (0..start).chain(end..n).any(|i| msgs[i].role() == "user");
        force_user = !user_survives;
    }
    let mut role = if last_head == "assistant" || last_head == "tool" || force_user {
        "user"
    } else {
        "assistant"
    };
    let mut merge = false;
    if role == first_tail {
        let flipped = if role == "user" { "assistant" } else { "user" };
        if flipped != last_head && !force_user {
            role = flipped;
        } else {
            merge = true;
        }
    }
    (role, merge, first_tail)
}

fn insertion(msgs: &[HMsg], start: usize, end: usize) -> Ins {
    let (role, merge, first_tail) = summary_role(msgs, start, end);
    if merge {
        let prompt_role = if first_tail == "assistant" {
            PromptRole::Assistant
        } else if first_tail == "system" {
            PromptRole::System
        } else {
            PromptRole::User
        };
        return Ins {
            role: prompt_role,
            position: start,
            prefix: format!(
                "{MERGED_PRIOR_CONTEXT_HEADER}\n{}\n\n{MERGED_SUMMARY_DELIMITER}\n\n{SUMMARY_PREFIX}\n",
                msgs.get(end).map_or(String::new(), |m| content_text(m.content()))
            ),
            merged_into: Some(end),
        };
    }
    Ins {
        role: if role == "user" {
            PromptRole::User
        } else {
            PromptRole::Assistant
        },
        position: start,
        prefix: format!("{SUMMARY_PREFIX}\n"),
        merged_into: None,
    }
}

/// `_sanitize_tool_pairs` over head + tail (the summary message carries no tool calls).
fn sanitize(msgs: &[HMsg], out: &mut Outcome) {
    let kept: Vec<usize> = out.head.iter().chain(&out.tail).copied().collect();
    let call_id = |tc: &serde_json::Map<String, serde_json::Value>| {
        let pick = |k: &str| {
            tc.get(k)
                .filter(|v| super::py::truthy(v))
                .map(super::py::str_of)
        };
        pick("call_id").or_else(|| pick("id")).unwrap_or_default()
    };
    let mut calls: HashSet<String> = HashSet::new();
    let mut results: HashSet<String> = HashSet::new();
    for &i in &kept {
        let m = &msgs[i];
        match m.role() {
            "assistant" => calls.extend(
                m.tool_calls()
                    .into_iter()
                    .map(call_id)
                    .filter(|c| !c.is_empty()),
            ),
            "tool" => {
                if let Some(id) = m.get("tool_call_id").filter(|v| super::py::truthy(v)) {
                    results.insert(super::py::str_of(id));
                }
            }
            _ => {}
        }
    }
    for &i in &kept {
        let m = &msgs[i];
        let orphan = m.role() == "tool"
            && m.get("tool_call_id")
                .filter(|v| super::py::truthy(v))
                .is_some_and(|id| !calls.contains(&super::py::str_of(id)));
        if orphan {
            out.removed_results.push(i);
        }
        if m.role() == "assistant"
            && m.tool_calls().into_iter().any(|tc| {
                let id = call_id(tc);
                !id.is_empty() && !results.contains(&id)
            })
        {
            out.stripped_calls.push(i);
        }
    }
    let removed: HashSet<usize> = out.removed_results.iter().copied().collect();
    out.head.retain(|p| !removed.contains(p));
    out.tail.retain(|p| !removed.contains(p));
    out.dropped.extend(out.removed_results.iter().copied());
    out.dropped.sort_unstable();
}

/// The prompt's date: the session's last timestamp when it starts with `YYYY-MM-DD`, else
/// today (UTC). Hermes itself reads the wall clock (`hermes_time.now()`).
fn prompt_date(now: Option<&str>) -> String {
    let iso = now.map(|t| super::py::head(t, 10)).filter(|d| {
        let b = d.as_bytes();
        b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
    });
    if let Some(d) = iso {
        return d.to_string();
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_468), (2026, 1, 15));
        assert_eq!(prompt_date(Some("2026-01-15T09:30:00Z")), "2026-01-15");
        assert_eq!(prompt_date(Some("1700000000")).len(), 10);
    }
}
