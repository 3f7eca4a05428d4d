//! `SummarizationStrategy.__call__`: the message-count trigger over included non-system groups,
//! newest-first retention of whole groups, `_select_summary_input_groups` under the input
//! budget (an oversized leading group skipped and left included; selection stops at the first
//! later group that does not fit), the `[system prompt, user transcript]` request, and the
//! `summary_{len(messages)}` assistant message inserted at the first summarized group's start.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::annotate::{
    annotate_groups, group_maps, included_group_ids, ordered_group_ids, set_excluded, token_count,
    write_token_count, GroupMaps,
};
use super::estimate::{count_message, count_text};
use super::groups::GroupKind;
use super::model::{origin_session_ids, AfMsg, GROUP, SUMMARIZED_BY};
use super::render::transcript;
use super::run::Run;
use super::Version;
use crate::compaction::plan::{PromptMessage, PromptRole};

pub const DEFAULT_PROMPT: &str = "**Generate a clear and complete summary of the entire conversation in no more than five sentences.**

The summary must always:
- Reflect contributions from both the user and the assistant
- Preserve context to support ongoing dialogue
- Incorporate any previously provided summary
- Emphasize the most relevant and meaningful points

The summary must never:
- Offer critique, correction, interpretation, or speculation
- Highlight errors, misunderstandings, or judgments of accuracy
- Comment on events or ideas not present in the conversation
- Omit any details included in an earlier summary
";

/// `SummarizationStrategy` settings (threshold `None` already made 0, prompt resolved).
#[derive(Debug, Clone)]
pub struct Summarization {
    pub target_count: i64,
    pub threshold: i64,
    pub prompt: String,
    pub max_summary_input_tokens: Option<i64>,
}

/// `_set_group_summarized_by_summary_id`.
pub fn mark_summarized(m: &mut AfMsg, summary_id: &str) {
    let entry = m
        .props_mut()
        .entry(GROUP)
        .or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    if let Some(a) = entry.as_object_mut() {
        a.insert(SUMMARIZED_BY.into(), json!(summary_id));
    }
}

/// Included non-system groups with their included members (message indices), oldest first,
/// of the groups `g` of the run's list.
fn included_non_system(run: &Run, g: &GroupMaps) -> Vec<(String, Vec<usize>)> {
    let ordered = ordered_group_ids(&run.msgs);
    included_group_ids(&run.msgs, &ordered, g)
        .into_iter()
        .filter(|id| g.kind(id) != Some(GroupKind::System))
        .filter_map(|id| {
            let members: Vec<usize> = g
                .of(&id)
                .iter()
                .copied()
                .filter(|&i| !run.msgs[i].excluded())
                .collect();
            (!members.is_empty()).then_some((id, members))
        })
        .collect()
}

pub fn summarize(run: &mut Run, p: &Summarization) -> bool {
    let g = group_maps(&run.msgs);
    let groups = included_non_system(run, &g);
    let count: usize = groups.iter().map(|(_, m)| m.len()).sum();
    if count as i64 <= p.target_count + p.threshold {
        return false;
    }
    let mut keep: HashSet<&str> = HashSet::new();
    let mut retained = 0i64;
    for (id, members) in groups.iter().rev() {
        if retained >= p.target_count && !keep.is_empty() {
            break;
        }
        keep.insert(id);
        retained += members.len() as i64;
    }
    let candidates: Vec<&(String, Vec<usize>)> = groups
        .iter()
        .filter(|(id, _)| !keep.contains(id.as_str()))
        .collect();
    if candidates.is_empty() {
        return false;
    }
    let (ids, chosen) = select(run, &candidates, p);
    if chosen.is_empty() {
        if p.max_summary_input_tokens.is_some() {
            run.log.push(
                "Skipping summarization compaction: no complete message group fits within max_summary_input_tokens."
                    .into(),
            );
        }
        return false;
    }
    let text = transcript(chosen.iter().map(|&i| &run.msgs[i]), 1, run.v);
    run.rendered = chosen.iter().map(|&i| run.msgs[i].clone()).collect();
    run.calls.push(vec![
        PromptMessage {
            role: PromptRole::System,
            content: p.prompt.clone(),
        },
        PromptMessage {
            role: PromptRole::User,
            content: text,
        },
    ]);
    let Some(summary) = summary_text(run) else {
        return false;
    };
    let at = ids.iter().filter_map(|id| g.start(id)).min().unwrap_or(0);
    insert_summary(run, &summary, &chosen, ids, at);
    true
}

/// Marks the `chosen` messages (of groups `ids`) summarized and inserts the summary at `at`.
fn insert_summary(run: &mut Run, summary: &str, chosen: &[usize], ids: Vec<String>, at: usize) {
    let summary_id = format!("summary_{}", run.msgs.len() + run.outside.len());
    let original_ids: Vec<String> = chosen
        .iter()
        .filter_map(|&i| run.msgs[i].id().map(str::to_string))
        .collect();
    if run.outside.has_id(&summary_id)
        || run.msgs.iter().any(|m| m.id() == Some(summary_id.as_str()))
    {
        run.collisions.push(summary_id.clone());
    }
    for &i in chosen {
        mark_summarized(&mut run.msgs[i], &summary_id);
        set_excluded(&mut run.msgs[i], true, Some("summarized"));
    }
    run.note_summarized(chosen);
    let annotation = json!({"_summary_of_message_ids": original_ids, "_summary_of_group_ids": ids});
    // 1.17 keeps no provenance on the summary.
    let origins = match run.v {
        Version::V1_17 => Vec::new(),
        Version::V1_23 => origin_session_ids(chosen.iter().map(|&i| &run.msgs[i])),
    };
    run.insert(
        at,
        AfMsg::inserted(summary_id, summary, annotation, origins),
    );
    annotate_groups(&mut run.msgs, Some(at), false, run.v, &run.outside);
}

/// The run that inserted summary `id` with the placeholder text, as it would have run had the
/// summarizer answered `text`: the summary's text replaced, its token count (when annotated)
/// counted again. Nothing the strategy decided depends on the text, unless the stripped text
/// is empty (the framework then skips the compaction): `false`, and the list is untouched.
pub fn answered(msgs: &mut [AfMsg], id: &str, text: &str, v: Version) -> bool {
    let text = py_strip(text);
    if text.is_empty() {
        return false;
    }
    let mut found = msgs
        .iter_mut()
        .filter(|m| m.origin.is_none() && m.id() == Some(id));
    let (Some(m), None) = (found.next(), found.next()) else {
        return false;
    };
    m.contents = AfMsg::text_contents(text);
    if token_count(m, v).is_some() {
        let count = count_message(m, v);
        write_token_count(m, count, v);
    }
    true
}

/// The summary as the framework stores it (`response.text.strip()`); `None`, with the
/// framework's warning logged, when nothing is left.
fn summary_text(run: &mut Run) -> Option<String> {
    let Some(text) = run.summary.as_deref() else {
        return Some(format!("SUMMARY-{}", run.calls.len()));
    };
    let text = py_strip(text).to_string();
    if text.is_empty() {
        run.log
            .push("Skipping summarization compaction: summarizer returned no text.".into());
        return None;
    }
    Some(text)
}

/// Python's `str.strip()`: whitespace as `str.isspace` has it (the file and group separators
/// U+001C–U+001F too).
fn py_strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// `_select_summary_input_groups`: group ids and messages selected; skipped and unselected
/// groups are noted on the run.
fn select(
    run: &mut Run,
    candidates: &[&(String, Vec<usize>)],
    p: &Summarization,
) -> (Vec<String>, Vec<usize>) {
    let Some(budget) = p.max_summary_input_tokens else {
        let ids = candidates.iter().map(|(id, _)| id.clone()).collect();
        let msgs = candidates
            .iter()
            .flat_map(|(_, m)| m.iter().copied())
            .collect();
        return (ids, msgs);
    };
    let mut ids = Vec::new();
    let mut chosen: Vec<usize> = Vec::new();
    let prompt_tokens = count_text(&p.prompt);
    let separator = count_text("\n");
    let mut text_tokens = 0i64;
    for (n, (id, members)) in candidates.iter().enumerate() {
        let text = transcript(
            members.iter().map(|&i| &run.msgs[i]),
            chosen.len() + 1,
            run.v,
        );
        let mut candidate = text_tokens + count_text(&text);
        if !chosen.is_empty() {
            candidate += separator;
        }
        if prompt_tokens + candidate > budget {
            if chosen.is_empty() {
                run.note_skipped(members, prompt_tokens + candidate, budget);
                continue;
            }
            let left: Vec<usize> = candidates[n..]
                .iter()
                .flat_map(|(_, m)| m.iter().copied())
                .collect();
            run.note_unselected(&left, budget);
            break;
        }
        ids.push(id.clone());
        chosen.extend(members.iter().copied());
        text_tokens = candidate;
    }
    (ids, chosen)
}
