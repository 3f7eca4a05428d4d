//! A compaction plan: what a preset decided for a session, in framework-neutral terms.
//!
//! Owns: `Plan`, `Trigger`, `Split`, the `*_source_indices` derivation of
//! DESIGN.md's contract, and the findings every plan gets whatever the preset (tool-call
//! integrity after the cut, messages lost, estimator drift).

use std::any::Any;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

pub use super::request::{PromptMessage, PromptRole};

use super::findings::{Finding, Severity};
use super::request::Deferred;
use super::settings::Settings;
use crate::session::{Part, Session};

/// Whether the framework's trigger fires, measured with its own estimator.
#[derive(Debug, Clone, PartialEq)]
pub struct Trigger {
    pub fired: bool,
    /// What the framework measures (`tokens`, `events`, `messages`, …).
    pub measure: &'static str,
    /// The framework's own measurement of the history.
    pub value: u64,
    pub threshold: u64,
    pub reason: String,
    /// The estimator the framework uses (`chars/4 over str(event)`, …).
    pub estimator: String,
}

/// Message indices by fate. Pinned and kept may overlap with summarized where the framework
/// renders a message it also keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Split {
    pub pinned: Vec<usize>,
    pub summarized: Vec<usize>,
    pub kept: Vec<usize>,
    pub dropped: Vec<usize>,
}

/// What a plan does with one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Pinned,
    Summarized,
    Kept,
    Dropped,
    Untouched,
}

impl Fate {
    /// `pinned`, `summarized`, `kept`, `dropped`, or `-` for a message the plan leaves alone.
    pub fn as_str(self) -> &'static str {
        match self {
            Fate::Pinned => "pinned",
            Fate::Summarized => "summarized",
            Fate::Kept => "kept",
            Fate::Dropped => "dropped",
            Fate::Untouched => "-",
        }
    }
}

impl Split {
    /// Each of `len` messages' fate, in one pass over the lists (asking each list per message
    /// would be quadratic on a long session). Where a message is in several lists (a framework
    /// that renders a message it also keeps), pinned wins over kept over summarized over
    /// dropped.
    pub fn fates(&self, len: usize) -> Vec<Fate> {
        let mut fates = vec![Fate::Untouched; len];
        for (list, fate) in [
            (&self.dropped, Fate::Dropped),
            (&self.summarized, Fate::Summarized),
            (&self.kept, Fate::Kept),
            (&self.pinned, Fate::Pinned),
        ] {
            for &i in list {
                if let Some(slot) = fates.get_mut(i) {
                    *slot = fate;
                }
            }
        }
        fates
    }
}

/// Where and how the framework inserts the summary it gets back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insertion {
    pub role: PromptRole,
    /// Index in the compacted history.
    pub position: usize,
    /// Text the framework puts before the summary.
    pub prefix: String,
    /// Text the framework puts after the summary.
    pub suffix: String,
    /// A kept message the framework merges the summary into (its text is in `prefix`): the
    /// summary message takes its place instead of joining it.
    pub replaces: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub preset: &'static str,
    pub framework: &'static str,
    pub settings: Settings,
    pub trigger: Trigger,
    pub split: Split,
    /// The summarizer request, rendered (empty when it is `deferred`).
    pub summarizer: Vec<PromptMessage>,
    /// The request left to be rendered when read, when the plan was asked for one
    /// (`PlanInput::defer_request`) and its preset renders from the session: read the request
    /// with [`Plan::request`], which gives either.
    pub deferred: Option<Deferred>,
    pub insertion: Option<Insertion>,
    pub findings: Vec<Finding>,
    /// What the preset kept of the work that made this plan.
    pub made: Made,
}

impl Plan {
    /// The summarizer request one message at a time, rendered or deferred alike (`session`:
    /// the session the plan was made of).
    pub fn request<'a>(
        &'a self,
        session: &'a Session,
    ) -> Box<dyn Iterator<Item = std::borrow::Cow<'a, PromptMessage>> + 'a> {
        super::request::messages(&self.summarizer, self.deferred.as_ref(), session)
    }

    /// Whether the request has no message.
    pub fn request_is_empty(&self) -> bool {
        self.summarizer.is_empty() && self.deferred.as_ref().is_none_or(|d| d.is_empty())
    }
}

/// What a preset kept of the work that made a plan, so that carrying the plan out
/// (`Preset::compacted`, in the same replay) does not do that work again. Opaque outside the
/// preset that made it, and no part of what the plan says: never written, never compared.
#[derive(Clone, Default)]
pub struct Made(Option<Arc<dyn Any + Send + Sync>>);

impl Made {
    pub fn keep<T: Any + Send + Sync>(kept: T) -> Made {
        Made(Some(Arc::new(kept)))
    }

    /// What was kept, if it is a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.as_deref()?.downcast_ref()
    }
}

/// Which session a kept plan was made of (its address, message count and last message's
/// record), to tell it from another: work kept for one session never serves another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionKey(usize, usize, Option<usize>);

impl SessionKey {
    pub fn of(session: &Session) -> SessionKey {
        let messages = &session.messages;
        SessionKey(
            std::ptr::from_ref(session) as usize,
            messages.len(),
            messages.last().map(|m| m.source_index),
        )
    }
}

impl std::fmt::Debug for Made {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not what the plan says: a plan made keeping its work shows as one made without.
        f.write_str("Made")
    }
}

/// The contract's source-record lists: kept, summarized, dropped — each record in one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceFates {
    pub kept: Vec<usize>,
    pub summarized: Vec<usize>,
    pub dropped: Vec<usize>,
}

/// Derives which source records are kept, summarized or dropped from a message split.
pub fn source_fates(session: &Session, split: &Split) -> SourceFates {
    let records_of = |indices: &[usize]| -> BTreeSet<usize> {
        indices
            .iter()
            .filter_map(|&i| session.messages.get(i))
            .flat_map(|m| m.source_indices.iter().copied())
            .collect()
    };
    let kept: BTreeSet<usize> = records_of(&split.pinned)
        .union(&records_of(&split.kept))
        .copied()
        .collect();
    let summarized: BTreeSet<usize> = records_of(&split.summarized)
        .difference(&kept)
        .copied()
        .collect();
    let mut all: BTreeSet<usize> = session.source.record_indices.iter().copied().collect();
    all.extend(
        session
            .messages
            .iter()
            .flat_map(|m| m.source_indices.iter().copied()),
    );
    all.extend(session.marks.iter().map(|k| k.source_index));
    let dropped = all
        .iter()
        .filter(|r| !kept.contains(r) && !summarized.contains(r))
        .copied()
        .collect();
    SourceFates {
        kept: kept.into_iter().collect(),
        summarized: summarized.into_iter().collect(),
        dropped,
    }
}

/// The compacted history's message indices in order (pinned and kept; no summary).
pub fn surviving(split: &Split) -> Vec<usize> {
    let set: BTreeSet<usize> = split.pinned.iter().chain(&split.kept).copied().collect();
    set.into_iter().collect()
}

/// Findings every plan gets: tool-call integrity of what survives, lost messages, drift.
pub fn common_findings(
    session: &Session,
    split: &Split,
    trigger: &Trigger,
    real_tokens: usize,
) -> Vec<Finding> {
    let mut out = integrity_findings(session, split);
    let placed: BTreeSet<usize> = split
        .pinned
        .iter()
        .chain(&split.kept)
        .chain(&split.summarized)
        .chain(&split.dropped)
        .copied()
        .collect();
    let lost: Vec<usize> = (0..session.messages.len())
        .filter(|i| !placed.contains(i))
        .filter(|&i| session.messages[i].role != crate::session::Role::Event)
        .collect();
    if !lost.is_empty() {
        out.push(Finding {
            code: "messages-lost",
            severity: Severity::Error,
            detail: format!(
                "{} message(s) are neither kept, summarized nor deliberately dropped",
                lost.len()
            ),
            messages: lost,
        });
    }
    if trigger.measure == "tokens" && real_tokens > 0 && trigger.value > 0 {
        let ratio = trigger.value as f64 / real_tokens as f64;
        if !(0.8..=1.25).contains(&ratio) {
            out.push(Finding {
                code: "estimator-drift",
                severity: Severity::Info,
                messages: Vec::new(),
                detail: format!(
                    "the framework's estimator ({}) measures {} tokens where the encoding counts {} ({:+.0}%)",
                    trigger.estimator,
                    trigger.value,
                    real_tokens,
                    (ratio - 1.0) * 100.0
                ),
            });
        }
    }
    out
}

/// Secrets in the summarizer request: `plan` shows the request as the framework would send
/// it, secrets included, and says so (a real summarizer call masks them first).
pub fn secret_findings(session: &Session, plan: &Plan) -> Vec<Finding> {
    let mut kinds: Vec<&'static str> = Vec::new();
    let mut count = 0;
    // Each message read a piece at a time (a transcript is never held whole), unless a match
    // could cross from one piece into the next: that rare message is searched whole.
    let found = |_: PromptRole, pieces: &mut dyn Iterator<Item = Cow<'_, str>>| {
        crate::secrets::kinds_of_pieces(pieces)
    };
    let deferred = plan.deferred.as_ref();
    let by_piece = super::request::map_pieces(&plan.summarizer, deferred, session, found);
    let whole = |k: usize| -> Vec<&'static str> {
        let m = super::request::messages(&plan.summarizer, deferred, session).nth(k);
        let text = m.map(|m| super::request::content(m).into_owned());
        crate::secrets::find(&text.unwrap_or_default())
            .into_iter()
            .map(|f| f.kind)
            .collect()
    };
    let each: Vec<Vec<&'static str>> = by_piece
        .into_iter()
        .enumerate()
        .map(|(k, kinds)| kinds.unwrap_or_else(|| whole(k)))
        .collect();
    for kind in each.into_iter().flatten() {
        count += 1;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if count == 0 {
        return Vec::new();
    }
    // Each summarized message searched on every core.
    let holds_secret = |&i: &usize| {
        session.messages.get(i).is_some_and(|m| {
            m.parts
                .iter()
                .any(|p| !crate::secrets::find(&p.plain_text()).is_empty())
        })
    };
    let held = crate::par::map(&plan.split.summarized, 256, holds_secret, |_| {});
    let messages = (plan.split.summarized.iter().zip(held))
        .filter_map(|(&i, held)| held.then_some(i))
        .collect();
    vec![Finding {
        code: "secret-in-summarizer-input",
        severity: Severity::Error,
        messages,
        detail: format!(
            "{count} secret(s) ({}) would be sent to the summarizer; a real summarizer call masks them",
            kinds.join(", ")
        ),
    }]
}

/// Tool calls left without their result, and results left without their call, in what
/// survives the compaction.
fn integrity_findings(session: &Session, split: &Split) -> Vec<Finding> {
    let survivors = surviving(split);
    let mut calls: BTreeSet<&str> = BTreeSet::new();
    let mut results: BTreeSet<&str> = BTreeSet::new();
    for &i in &survivors {
        for p in &session.messages[i].parts {
            match p {
                Part::ToolCall {
                    id, server: false, ..
                } => {
                    calls.insert(id);
                }
                Part::ToolResult { call_id, .. } => {
                    results.insert(call_id);
                }
                _ => {}
            }
        }
    }
    let server: BTreeSet<&str> = session
        .messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .filter_map(|p| match p {
            Part::ToolCall {
                id, server: true, ..
            } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    let mut dangling = Vec::new();
    let mut orphaned = Vec::new();
    for &i in &survivors {
        let m = &session.messages[i];
        if m.client_calls().any(|(id, _)| !results.contains(id)) {
            dangling.push(i);
        }
        if m.result_ids()
            .any(|id| !calls.contains(id) && !server.contains(id))
        {
            orphaned.push(i);
        }
    }
    if !dangling.is_empty() {
        out.push(Finding {
            code: "dangling-tool-call",
            severity: Severity::Warn,
            detail: format!(
                "{} kept message(s) call tools whose results do not survive the compaction",
                dangling.len()
            ),
            messages: dangling,
        });
    }
    if !orphaned.is_empty() {
        out.push(Finding {
            code: "orphaned-tool-result",
            severity: Severity::Warn,
            detail: format!(
                "{} kept message(s) hold tool results whose calls do not survive the compaction",
                orphaned.len()
            ),
            messages: orphaned,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One pass gives each message the fate the lists give it, the strongest where lists
    /// overlap, and leaves alone what no list names and what lies past the session.
    #[test]
    fn fates_follow_the_lists_with_pinned_over_kept_over_summarized_over_dropped() {
        let split = Split {
            pinned: vec![0, 3],
            summarized: vec![1, 2, 3, 4],
            kept: vec![4, 5],
            dropped: vec![2, 6, 99],
        };
        assert_eq!(
            split.fates(8),
            [
                Fate::Pinned,
                Fate::Summarized,
                Fate::Summarized,
                Fate::Pinned,
                Fate::Kept,
                Fate::Kept,
                Fate::Dropped,
                Fate::Untouched,
            ]
        );
        let names: Vec<&str> = split.fates(8).iter().map(|f| f.as_str()).collect();
        assert_eq!(
            names,
            [
                "pinned",
                "summarized",
                "summarized",
                "pinned",
                "kept",
                "kept",
                "dropped",
                "-"
            ]
        );
    }
}
