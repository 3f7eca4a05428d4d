//! Applying a plan: the history the framework continues with after the summary comes back.
//!
//! Owns: building the compacted session — pinned and kept messages in their order, the summary
//! inserted where and with the role, prefix and suffix the preset says its framework uses (in
//! place of a kept message when the framework merges it into one) — and a
//! compaction mark recording it, so the result can be shown, counted, written and compacted
//! again. Must not: call a summarizer or count tokens (the caller analyses the result).

use super::plan::{Plan, PromptRole};
use crate::session::{CompactionMark, Message, Part, Role, Session};

/// The kind of the mark a ctxray compaction leaves in the history.
pub const MARK_KIND: &str = CompactionMark::CTXRAY;

/// The compacted history of `session` under `plan`, with `summary` (the summarizer's text as
/// returned) inserted. A plan that does not fire leaves the history as it is; a plan without an
/// insertion (a strategy that only drops or truncates) keeps what it keeps and adds no summary.
pub fn apply(session: &Session, plan: &Plan, summary: Option<&str>) -> Session {
    let mut out = Session {
        format: session.format,
        source: session.source.clone(),
        id: session.id.clone(),
        title: session.title.clone(),
        model: session.model.clone(),
        reported_window: session.reported_window,
        messages: Vec::new(),
        marks: Vec::new(),
        children: Vec::new(),
        buffer: session.buffer.clone(),
        records: session.records.clone(),
    };
    if !plan.trigger.fired {
        out.messages = session.messages.clone();
        out.marks = session.marks.clone();
        return out;
    }
    let replaced = plan.insertion.as_ref().and_then(|ins| ins.replaces);
    let mut keep: Vec<usize> = plan
        .split
        .pinned
        .iter()
        .chain(&plan.split.kept)
        .copied()
        .filter(|&i| i < session.messages.len() && Some(i) != replaced)
        .collect();
    keep.sort_unstable();
    keep.dedup();
    let mut messages: Vec<Message> = keep.iter().map(|&i| session.messages[i].clone()).collect();
    let mut mark_at = None;
    if let (Some(ins), Some(text)) = (&plan.insertion, summary) {
        let source = plan
            .split
            .summarized
            .iter()
            .filter_map(|&i| session.messages.get(i))
            .map(|m| m.source_index)
            .min()
            .unwrap_or(0);
        let mut m = Message::new(role_of(ins.role), source);
        m.source_indices = Vec::new();
        if let Some(r) = replaced.and_then(|r| session.messages.get(r)) {
            m.source_index = r.source_index;
            m.source_indices = r.source_indices.clone();
        }
        m.parts.push(Part::Summary {
            text: format!("{}{text}{}", ins.prefix, ins.suffix),
        });
        let at = ins.position.min(messages.len());
        messages.insert(at, m);
        mark_at = Some(at);
    }
    for (i, m) in messages.iter_mut().enumerate() {
        m.index = i;
    }
    // Marks of the file that lie among kept messages stay with them; ours marks the summary.
    // `keep` is sorted: the first kept message at or after `old`.
    let position_of = |old: usize| {
        let p = keep.partition_point(|&k| k < old);
        (p < keep.len()).then_some(p)
    };
    for mark in &session.marks {
        if let Some(p) = position_of(mark.before_message) {
            let shift = usize::from(mark_at.is_some_and(|a| a <= p));
            out.marks.push(CompactionMark {
                before_message: p + shift,
                ..mark.clone()
            });
        }
    }
    out.marks.push(CompactionMark {
        kind: MARK_KIND.to_string(),
        source_index: 0,
        before_message: mark_at.unwrap_or(0),
        trigger: Some(format!("{}: {}", plan.preset, plan.trigger.reason)),
        pre_tokens: None,
        post_tokens: None,
        summary: summary.map(str::to_string),
    });
    out.marks.sort_by_key(|m| m.before_message);
    out.messages = messages;
    out
}

fn role_of(role: PromptRole) -> Role {
    match role {
        PromptRole::System => Role::System,
        PromptRole::User => Role::User,
        PromptRole::Assistant => Role::Assistant,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Analysis;
    use crate::compaction::preset::{self, PlanInput};

    fn demo() -> Analysis {
        crate::testing::demo()
    }

    #[test]
    fn the_summary_goes_where_the_preset_says_and_the_rest_is_kept_in_order() {
        let a = demo();
        let p = crate::compaction::presets::find("dimos").unwrap();
        let plan = preset::run(p, &PlanInput::new(&a), &["context_window=6000".into()]).unwrap();
        let ins = plan.insertion.clone().unwrap();
        let out = apply(&a.session, &plan, Some("SUMMARY-TEXT"));
        let kept: Vec<usize> = {
            let mut k: Vec<usize> = plan
                .split
                .pinned
                .iter()
                .chain(&plan.split.kept)
                .copied()
                .collect();
            k.sort_unstable();
            k.dedup();
            k
        };
        assert_eq!(out.messages.len(), kept.len() + 1);
        let s = &out.messages[ins.position];
        assert_eq!(s.role, role_of(ins.role));
        assert_eq!(
            s.parts,
            vec![Part::Summary {
                text: format!("{}SUMMARY-TEXT{}", ins.prefix, ins.suffix)
            }]
        );
        let rest: Vec<usize> = out
            .messages
            .iter()
            .filter(|m| !matches!(m.parts.first(), Some(Part::Summary { .. })))
            .map(|m| m.source_index)
            .collect();
        let expected: Vec<usize> = kept
            .iter()
            .map(|&i| a.session.messages[i].source_index)
            .collect();
        assert_eq!(rest, expected);
        assert!(out.messages.iter().enumerate().all(|(i, m)| m.index == i));
        assert!(out
            .marks
            .iter()
            .any(|m| m.kind == MARK_KIND && m.before_message == ins.position));
    }

    #[test]
    fn a_plan_that_does_not_fire_changes_nothing() {
        let a = demo();
        let p = crate::compaction::presets::find("dimos").unwrap();
        let plan = preset::run(p, &PlanInput::new(&a), &[]).unwrap();
        assert!(!plan.trigger.fired);
        let out = apply(&a.session, &plan, Some("x"));
        assert_eq!(out.messages.len(), a.session.messages.len());
        assert!(out
            .messages
            .iter()
            .zip(&a.session.messages)
            .all(|(x, y)| x.parts == y.parts && x.source_indices == y.source_indices));
    }
}
