//! Findings: what ctxray wants a user to notice, with stable kebab-case codes.
//!
//! Owns: the `Finding` type and the findings that need only a parsed session and its counts
//! (broken tool-call groups, call ids used twice, skipped lines, records read as empty
//! messages, branches a rewind abandoned, a context over its window). Presets add their own.

use super::groups::{Duplicate, Grouping};
use crate::session::{Abandoned, Session};

/// How many runs of lines an `abandoned-branch` finding lists before it says `…`.
const LINE_RUNS_SHOWN: usize = 6;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Info,
    Warn,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warn => "warn",
            Severity::Error => "error",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable kebab-case code, e.g. `orphan-tool-result`.
    pub code: &'static str,
    pub severity: Severity,
    /// Message indices the finding is about.
    pub messages: Vec<usize>,
    pub detail: String,
}

/// Findings about the session itself: tool-call integrity, unreadable lines, window overflow.
pub fn session_findings(
    session: &Session,
    grouping: &Grouping,
    total_tokens: usize,
    window: Option<u64>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for group in &grouping.groups {
        for id in &group.orphaned {
            let at = owner_of_result(session, &group.messages, id);
            out.push(Finding {
                code: "orphan-tool-result",
                severity: Severity::Warn,
                messages: at.into_iter().collect(),
                detail: format!("tool result for call `{id}` has no matching tool call"),
            });
        }
        for id in &group.unanswered {
            let at = group.messages.first().copied();
            out.push(Finding {
                code: "tool-call-without-result",
                severity: Severity::Warn,
                messages: at.into_iter().collect(),
                detail: format!("tool call `{id}` has no result"),
            });
        }
    }
    for duplicate in &grouping.duplicates {
        out.push(duplicate_call_id(duplicate));
    }
    if !session.source.skipped.is_empty() {
        let lines: Vec<String> = session
            .source
            .skipped
            .iter()
            .take(5)
            .map(|s| format!("line {}: {}", s.line, s.reason))
            .collect();
        out.push(Finding {
            code: "skipped-lines",
            severity: Severity::Warn,
            messages: Vec::new(),
            detail: format!(
                "{} record(s) could not be read and were skipped ({}{})",
                session.source.skipped.len(),
                lines.join("; "),
                if session.source.skipped.len() > 5 {
                    "; …"
                } else {
                    ""
                }
            ),
        });
    }
    out.extend(super::empty::findings(session));
    for branch in &session.source.abandoned {
        out.push(abandoned_branch(session, branch));
    }
    if let Some(why) = &session.source.uncertain {
        out.push(Finding {
            code: "format-uncertain",
            severity: Severity::Warn,
            messages: Vec::new(),
            detail: why.clone(),
        });
    }
    if let Some(window) = window {
        if total_tokens as u64 > window {
            out.push(Finding {
                code: "over-context-window",
                severity: Severity::Info,
                messages: Vec::new(),
                detail: format!(
                    "the whole history counts {total_tokens} tokens, over the {window}-token window \
                     (the agent must have compacted or truncated it)"
                ),
            });
        }
    }
    out
}

/// Several tool calls sharing one id: which result belongs to which call is a guess.
fn duplicate_call_id(duplicate: &Duplicate) -> Finding {
    let list: Vec<String> = duplicate.messages.iter().map(|m| format!("#{m}")).collect();
    Finding {
        code: "duplicate-call-id",
        severity: Severity::Warn,
        messages: duplicate.messages.clone(),
        detail: format!(
            "call id `{}` is shared by {} tool calls (message{} {}): each result is paired with \
             the nearest preceding call of that id that has no result yet",
            duplicate.id,
            duplicate.calls,
            if list.len() > 1 { "s" } else { "" },
            list.join(", ")
        ),
    }
}

/// Records a rewind left behind, named by their lines; the finding's message is the last one
/// the branch shares with the conversation (the last message at or before the fork).
fn abandoned_branch(session: &Session, branch: &Abandoned) -> Finding {
    let upto = (session.messages).partition_point(|m| m.source_index <= branch.fork);
    let n = branch.records.len();
    let runs = line_runs(&branch.records);
    Finding {
        code: "abandoned-branch",
        severity: Severity::Info,
        messages: upto.checked_sub(1).into_iter().collect(),
        detail: format!(
            "{n} record{} on a branch abandoned by a rewind to line {} {} not in context \
             (line{} {})",
            if n == 1 { "" } else { "s" },
            branch.fork + 1,
            if n == 1 { "is" } else { "are" },
            if n == 1 { "" } else { "s" },
            runs
        ),
    }
}

/// 0-based `records` (ascending) as 1-based line runs: `3–4, 9, 12–15`.
fn line_runs(records: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &r in records {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == r => *end = r,
            _ => runs.push((r, r)),
        }
    }
    let mut shown: Vec<String> = (runs.iter().take(LINE_RUNS_SHOWN))
        .map(|&(a, b)| {
            if a == b {
                format!("{}", a + 1)
            } else {
                format!("{}–{}", a + 1, b + 1)
            }
        })
        .collect();
    if runs.len() > LINE_RUNS_SHOWN {
        shown.push("…".to_string());
    }
    shown.join(", ")
}

fn owner_of_result(session: &Session, messages: &[usize], call_id: &str) -> Option<usize> {
    messages.iter().copied().find(|&i| {
        session
            .messages
            .get(i)
            .is_some_and(|m| m.result_ids().any(|r| r == call_id))
    })
}
