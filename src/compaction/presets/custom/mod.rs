//! `custom`: ctxray's own configurable compaction, every choice a `--set`.
//!
//! Trigger, by precedence: `trigger_tokens` (exact tokens of the history ≥ it), else
//! `trigger_messages` (messages ≥ it), else `trigger_ratio` × the window. Cut: system messages
//! are pinned (`pin_system`), then the first `keep_first` other messages; the tail keeps the
//! last `keep_last` messages, or the newest messages fitting `keep_tokens` when set. Tool-call
//! groups are kept whole: a cut inside a group (or between the messages of groups that
//! interleave) moves back to the nearest cut that splits none, never into the pinned head, and
//! a head that ends inside a group takes all of it.
//! Summarizer: a `system` message with `prompt` and one `user` message with one block per
//! summarized message, `[role] text`, tool calls as `name(arguments)`, tool results as
//! `result <call id>: text`, blocks `\n\n`-joined; `role=user` sends one user message, the
//! prompt, a blank line and the blocks. `max_message_chars` caps each block and
//! `max_input_chars` the whole transcript, keeping `head_chars` + `tail_chars` (half and half by
//! default) around a `[… N chars omitted …]` marker. Counts are the encoding's exact counts.

mod render;

use std::collections::HashMap;

use render::render_request;

use crate::compaction::findings::{Finding, Severity};
use crate::compaction::plan::{common_findings, Insertion, Plan, PromptRole, Split, Trigger};
use crate::compaction::preset::{PlanError, PlanInput, Preset};
use crate::compaction::quiet::Memo;
use crate::compaction::settings::{Kind, ParamSpec, Settings};
use crate::session::Role;

pub struct Custom;

pub const DEFAULT_PROMPT: &str = "Summarize the conversation below so that an agent can continue the work from the summary alone. Keep the user's goals and constraints, decisions taken, files and commands involved, tool results that matter, errors and how they were handled, and what remains to be done.";

/// Where the summary goes in the compacted history.
pub const SUMMARY_PREFIX: &str = "[Summary of the earlier conversation]\n";

const fn int(name: &'static str, default: &'static str, help: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: Kind::Int,
        default,
        nullable: true,
        help,
    }
}

const PARAMS: &[ParamSpec] = &[
    int("context_window", "null", "window for trigger_ratio; null takes the window in force"),
    int("trigger_tokens", "null", "compact when the history counts at least this many tokens"),
    ParamSpec {
        name: "trigger_ratio",
        kind: Kind::Float,
        default: "0.8",
        nullable: true,
        help: "compact at this fraction of the window (when trigger_tokens and trigger_messages are null)",
    },
    int("trigger_messages", "null", "compact when the history has at least this many messages"),
    int("keep_last", "10", "keep this many newest messages verbatim"),
    int("keep_tokens", "null", "keep the newest messages fitting this many tokens (over keep_last)"),
    int("keep_first", "0", "pin this many first messages (after system messages)"),
    ParamSpec {
        name: "pin_system",
        kind: Kind::Bool,
        default: "true",
        nullable: false,
        help: "keep system and developer messages verbatim",
    },
    int("max_message_chars", "null", "cap each summarized message at this many characters"),
    int("max_input_chars", "null", "cap the whole summarizer transcript at this many characters"),
    int("head_chars", "null", "characters a capped text keeps from its head (default half)"),
    int("tail_chars", "null", "characters a capped text keeps from its tail (default the rest)"),
    ParamSpec {
        name: "role",
        kind: Kind::Choice(&["system", "user"]),
        default: "system",
        nullable: false,
        help: "role of the summarizer prompt (user: prompt and transcript in one user message)",
    },
    ParamSpec {
        name: "prompt",
        kind: Kind::Str,
        default: DEFAULT_PROMPT,
        nullable: false,
        help: "the summarizer instruction",
    },
];

impl Preset for Custom {
    fn name(&self) -> &'static str {
        "custom"
    }
    fn framework(&self) -> &'static str {
        "ctxray custom"
    }
    fn description(&self) -> &'static str {
        "ctxray's own: any trigger, keep_first/keep_last/keep_tokens, groups kept whole, per-message and total caps, your prompt"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    /// The trigger over the visible messages' exact tokens and their number, both running sums.
    fn quiet_trigger(
        &self,
        input: &PlanInput,
        settings: &Settings,
        memo: &mut Memo,
    ) -> Option<Trigger> {
        let messages = &input.session.messages;
        let [tokens, visible, ..] = memo.fold("custom", messages.len(), |acc, i| {
            if messages[i].role != Role::Event {
                acc[0] += input.counts.messages.get(i).map_or(0, |c| c.total()) as u64;
                acc[1] += 1;
            }
        });
        trigger(input, settings, tokens, visible)
            .ok()
            .filter(|t| !t.fired)
    }

    fn plan(&self, input: &PlanInput, settings: &Settings) -> Result<Plan, PlanError> {
        let session = input.session;
        let visible: Vec<usize> = session
            .messages
            .iter()
            .filter(|m| m.role != Role::Event)
            .map(|m| m.index)
            .collect();
        let tokens_of = |i: usize| input.counts.messages.get(i).map_or(0, |c| c.total());
        let total: usize = visible.iter().map(|&i| tokens_of(i)).sum();
        let trigger = trigger(input, settings, total as u64, visible.len() as u64)?;
        let cut = Cut::of(input, settings, &visible);
        let fired = trigger.fired && !cut.summarized.is_empty();
        let trigger = Trigger { fired, ..trigger };
        let events: Vec<usize> = session
            .messages
            .iter()
            .filter(|m| m.role == Role::Event)
            .map(|m| m.index)
            .collect();
        let split = if fired {
            Split {
                pinned: cut.pinned.clone(),
                summarized: cut.summarized.clone(),
                kept: cut.kept.clone(),
                dropped: events,
            }
        } else {
            Split {
                kept: visible.clone(),
                dropped: events,
                ..Split::default()
            }
        };
        let (summarizer, deferred, mut extra) = if fired {
            render_request(session, settings, &cut.summarized, input.defer_request)
        } else {
            (Vec::new(), None, Vec::new())
        };
        if fired {
            extra.extend(every_turn(input, &cut, &trigger));
        }
        let mut findings = common_findings(session, &split, &trigger, input.real_tokens());
        findings.extend(extra);
        Ok(Plan {
            preset: self.name(),
            framework: self.framework(),
            settings: settings.clone(),
            insertion: fired.then(|| Insertion {
                role: PromptRole::User,
                position: cut.pinned.len(),
                prefix: SUMMARY_PREFIX.to_string(),
                suffix: String::new(),
                replaces: None,
            }),
            trigger,
            split,
            summarizer,
            deferred,
            findings,
            made: Default::default(),
        })
    }
}

fn trigger(
    input: &PlanInput,
    settings: &Settings,
    tokens: u64,
    messages: u64,
) -> Result<Trigger, PlanError> {
    let estimator = "exact count of the encoding".to_string();
    let (measure, value, threshold, what) = if let Some(t) = settings.int("trigger_tokens") {
        (
            "tokens",
            tokens,
            t.max(0) as u64,
            "trigger_tokens".to_string(),
        )
    } else if let Some(n) = settings.int("trigger_messages") {
        (
            "messages",
            messages,
            n.max(0) as u64,
            "trigger_messages".to_string(),
        )
    } else if let Some(r) = settings.float("trigger_ratio") {
        let window = settings
            .int("context_window")
            .map_or(input.window, |w| w.max(0) as u64);
        let t = (window as f64 * r) as u64;
        (
            "tokens",
            tokens,
            t,
            format!("context_window {window} × trigger_ratio {r}"),
        )
    } else {
        return Err(PlanError::Invalid {
            preset: "custom".into(),
            message: "set one of trigger_tokens, trigger_messages or trigger_ratio".into(),
        });
    };
    let fired = value >= threshold;
    Ok(Trigger {
        fired,
        measure,
        value,
        threshold,
        reason: format!(
            "{measure} {value} {} {threshold} ({what})",
            if fired { "≥" } else { "<" }
        ),
        estimator,
    })
}

/// Pinned head, summarized middle, kept tail (message indices).
struct Cut {
    pinned: Vec<usize>,
    summarized: Vec<usize>,
    kept: Vec<usize>,
}

impl Cut {
    fn of(input: &PlanInput, settings: &Settings, visible: &[usize]) -> Cut {
        let session = input.session;
        let pin_system = settings.bool("pin_system").unwrap_or(true);
        let is_system = |i: usize| {
            pin_system
                && session
                    .messages
                    .get(i)
                    .is_some_and(|m| matches!(m.role, Role::System | Role::Developer))
        };
        let mut pinned: Vec<usize> = visible.iter().copied().filter(|&i| is_system(i)).collect();
        let body: Vec<usize> = visible.iter().copied().filter(|&i| !is_system(i)).collect();
        let keep_first = settings.int("keep_first").unwrap_or(0).max(0) as usize;
        let clean = clean_cuts(input, &body);
        let head = extend_past_group(&clean, keep_first.min(body.len()));
        let start = tail_start(input, settings, &body).max(head);
        let start = group_boundary(&clean, start, head);
        pinned.extend(body.iter().take(head));
        pinned.sort_unstable();
        Cut {
            pinned,
            summarized: body
                .get(head..start)
                .map(<[usize]>::to_vec)
                .unwrap_or_default(),
            kept: body.get(start..).map(<[usize]>::to_vec).unwrap_or_default(),
        }
    }
}

/// Where the kept tail starts in `body`, before groups are considered.
fn tail_start(input: &PlanInput, settings: &Settings, body: &[usize]) -> usize {
    if let Some(budget) = settings.int("keep_tokens") {
        let budget = budget.max(0) as usize;
        let mut used = 0usize;
        let mut start = body.len();
        for (pos, &i) in body.iter().enumerate().rev() {
            used += input.counts.messages.get(i).map_or(0, |c| c.total());
            if used > budget {
                break;
            }
            start = pos;
        }
        return start;
    }
    let keep_last = settings.int("keep_last").unwrap_or(10).max(0) as usize;
    body.len().saturating_sub(keep_last)
}

fn group_of(input: &PlanInput, i: usize) -> Option<usize> {
    input.grouping.of_message.get(i).copied().flatten()
}

/// For each position `c` of `body` (0 to its length), whether cutting before `body[c]` leaves
/// every tool-call group on one side: no group has a message before `c` and another at or
/// after it. Groups may interleave (a call answered after the next round began), so the whole
/// span of every group counts, not only the group at the cut.
fn clean_cuts(input: &PlanInput, body: &[usize]) -> Vec<bool> {
    let mut last: HashMap<usize, usize> = HashMap::new();
    for (pos, &i) in body.iter().enumerate() {
        if let Some(g) = group_of(input, i) {
            last.insert(g, pos);
        }
    }
    let mut clean = Vec::with_capacity(body.len() + 1);
    clean.push(true);
    let mut reach = 0usize;
    for (pos, &i) in body.iter().enumerate() {
        let end = group_of(input, i).and_then(|g| last.get(&g).copied());
        reach = reach.max(end.unwrap_or(pos));
        clean.push(reach <= pos);
    }
    clean
}

/// The first clean cut at or after `head`: a head that ends inside a group takes all of it.
fn extend_past_group(clean: &[bool], head: usize) -> usize {
    (head..clean.len())
        .find(|&c| clean.get(c) == Some(&true))
        .unwrap_or(clean.len().saturating_sub(1))
}

/// A tail start that splits a group moves back to the last clean cut, never into the pinned
/// head (`head` is clean).
fn group_boundary(clean: &[bool], start: usize, head: usize) -> usize {
    (head..=start)
        .rev()
        .find(|&c| clean.get(c) == Some(&true))
        .unwrap_or(head)
}

/// Pinned and kept messages alone at or over a token trigger: the next turn compacts again.
fn every_turn(input: &PlanInput, cut: &Cut, trigger: &Trigger) -> Option<Finding> {
    if trigger.measure != "tokens" {
        return None;
    }
    let after: usize = cut
        .pinned
        .iter()
        .chain(&cut.kept)
        .filter_map(|&i| input.counts.messages.get(i))
        .map(|c| c.total())
        .sum();
    (after as u64 >= trigger.threshold).then(|| Finding {
        code: "compacts-every-turn",
        severity: Severity::Warn,
        messages: cut.kept.clone(),
        detail: format!("pinned and kept messages alone count {after} tokens, at or over the trigger of {}: the next turn compacts again", trigger.threshold),
    })
}
