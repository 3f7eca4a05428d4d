//! What Codex holds when it compacts: the instructions, the initial context, the items since
//! the last compaction (with what an earlier compaction carried forward), the trigger's
//! measure, and the prior user messages the new history carries.

use std::collections::BTreeSet;

use super::super::wire;
use super::{COMPACT_USER_MESSAGE_MAX_TOKENS, SUMMARY_PREFIX};
use crate::compaction::preset::PlanInput;
use crate::session::{Format, Message, Part, Role, Session};

/// User messages Codex treats as context rather than user intent (case-insensitive prefixes).
pub const CONTEXTUAL_PREFIXES: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "# agents.md instructions for",
    "<skill>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
];

/// Whether a user message is context Codex injects rather than something the user typed.
pub fn is_contextual(m: &Message) -> bool {
    let text = wire::plain_text(m);
    let lowered = text.trim_start().to_ascii_lowercase();
    CONTEXTUAL_PREFIXES.iter().any(|p| lowered.starts_with(p))
}

/// A real user message: typed by the user, not context, not an earlier compaction's summary.
pub fn is_real_user(m: &Message) -> bool {
    m.role == Role::User
        && !is_contextual(m)
        && !m.parts.iter().any(|p| matches!(p, Part::Summary { .. }))
        && !wire::plain_text(m).starts_with(SUMMARY_PREFIX)
}

/// The history Codex holds now: instructions, initial context, and the items since the last
/// compaction (with the user messages and summary an earlier compaction carried forward).
pub struct History {
    /// System messages (the request's `instructions`).
    pub instructions: Vec<usize>,
    /// Developer and contextual user messages before the first real user message.
    pub initial: Vec<usize>,
    /// History items in order (initial context included); `None` stands for an earlier
    /// compaction's summary message.
    pub items: Vec<Option<usize>>,
    /// The earlier compaction's summary text, if any.
    pub summary: Option<String>,
    /// Index of the first message after the last compaction.
    pub start: usize,
}

impl History {
    pub fn of(session: &Session) -> History {
        let mark = session
            .marks
            .iter()
            .rev()
            .find(|m| m.kind == "compacted" || m.kind == "context_compacted");
        let start = mark.map_or(0, |m| m.before_message);
        let first_user = session.messages.iter().position(is_real_user);
        let instructions: Vec<usize> = session
            .messages
            .iter()
            .filter(|m| m.role == Role::System)
            .map(|m| m.index)
            .collect();
        let initial: Vec<usize> = session
            .messages
            .iter()
            .take(first_user.unwrap_or(session.messages.len()))
            .filter(|m| m.role == Role::Developer || (m.role == Role::User && is_contextual(m)))
            .map(|m| m.index)
            .collect();
        let summary = mark.map(|m| m.summary.clone().unwrap_or_default());
        let initial_set: BTreeSet<usize> = initial.iter().copied().collect();
        let mut items = Vec::new();
        for m in &session.messages {
            if m.index == start && summary.is_some() {
                items.push(None);
            }
            let carried = m.index < start && (initial_set.contains(&m.index) || is_real_user(m));
            let live = m.index >= start && !matches!(m.role, Role::System | Role::Event);
            if carried || live {
                items.push(Some(m.index));
            }
        }
        if start >= session.messages.len() && summary.is_some() {
            items.push(None);
        }
        History {
            instructions,
            initial,
            items,
            summary,
            start,
        }
    }
}

/// The trigger's measure: the last reported request total, else the exact count.
pub fn measure(input: &PlanInput, history: &History) -> (u64, &'static str) {
    let session = input.session;
    if session.format == Format::CODEX {
        let reported = session
            .messages
            .iter()
            .skip(history.start)
            .rev()
            .find_map(|m| m.usage.as_ref())
            .and_then(|u| u.total.or_else(|| u.context_total()));
        if let Some(total) = reported {
            return (total, "last token_count total_tokens");
        }
    }
    let exact: usize = history
        .instructions
        .iter()
        .chain(history.items.iter().flatten())
        .filter_map(|&i| input.counts.messages.get(i))
        .map(|c| c.total())
        .sum();
    (exact as u64, "exact count of the history")
}

/// The prior real user messages the new history carries, newest-first within the budget.
pub struct Carried {
    pub kept: Vec<usize>,
    /// The one that overflowed the budget: (index, its approximate tokens, tokens it keeps).
    pub truncated: Option<(usize, usize, usize)>,
    /// Real user messages left out.
    pub left_out: Vec<usize>,
}

/// Codex's `approx_token_count`: bytes / 4, rounded up.
pub fn approx_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

pub fn carry_user_messages(session: &Session, history: &History) -> Carried {
    let users: Vec<usize> = history
        .items
        .iter()
        .flatten()
        .copied()
        .filter(|&i| session.messages.get(i).is_some_and(is_real_user))
        .collect();
    let mut carried = Carried {
        kept: Vec::new(),
        truncated: None,
        left_out: Vec::new(),
    };
    let mut remaining = COMPACT_USER_MESSAGE_MAX_TOKENS;
    for &i in users.iter().rev() {
        let tokens = session
            .messages
            .get(i)
            .map_or(0, |m| approx_tokens(&wire::plain_text(m)));
        if remaining == 0 {
            carried.left_out.push(i);
        } else if tokens <= remaining {
            carried.kept.push(i);
            remaining -= tokens;
        } else {
            carried.kept.push(i);
            carried.truncated = Some((i, tokens, remaining));
            remaining = 0;
        }
    }
    carried.kept.sort_unstable();
    carried.left_out.sort_unstable();
    carried
}
