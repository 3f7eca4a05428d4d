//! `claude-code`: Claude Code's auto-compact, from third-party descriptions of its behaviour —
//! approximate: Claude Code is a closed agent CLI and no golden proves this preset.
//!
//! Trigger: `count >= threshold` with `threshold = context_window − min(max_output_tokens,
//! 20,000) − 13,000` (200,000 → 167,000); `autocompact_pct_override` (the
//! `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` environment variable) lowers it to that percentage of the
//! window. The count is the last reported API usage (input + cache read + cache creation +
//! output) plus chars/4 for the messages after it (chars/4 of everything when nothing reports
//! usage). Only the history since the last compaction counts; what an earlier compaction
//! replaced is dropped. Summarizer: the history as Claude Code sends it (the session
//! messages, tool calls and results as Anthropic content blocks) plus a final user message
//! asking for `<analysis>` then `<summary>` in nine sections. Nothing is kept verbatim except
//! the system prompt: the summary comes back as the first user message, prefixed
//! "This session is being continued from a previous conversation that ran out of context.
//! The conversation is summarized below:".
//!
//! The compact instruction text is a RECONSTRUCTION: no public copy of Claude Code's prompt
//! exists in its public repository or documentation, so `COMPACT_PROMPT` is a faithful
//! paraphrase of its documented structure (an `<analysis>` pass, then a `<summary>` with the
//! nine sections), not the byte-exact text Claude Code sends.

use std::collections::BTreeSet;

mod quiet;

use super::wire::{self, Wire};
use crate::compaction::after::{self, After};
use crate::compaction::apply;
use crate::compaction::findings::{Finding, Severity};
use crate::compaction::plan::{
    common_findings, Insertion, Plan, PromptMessage, PromptRole, Split, Trigger,
};
use crate::compaction::preset::{PlanError, PlanInput, Preset};
use crate::compaction::quiet::Memo;
use crate::compaction::request::Deferred;
use crate::compaction::settings::{Kind, ParamSpec, Settings};
use crate::session::{Format, RawLines, Role, Session};

pub struct ClaudeCode;

/// Reconstruction (see the module doc): the compact instruction's documented structure.
pub const COMPACT_PROMPT: &str = "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions. The summary must capture the technical details, code patterns and architectural decisions needed to continue the work without losing context.

Before the summary, write your analysis inside <analysis> tags: go through the conversation in order and, for each part, note the user's explicit requests and intents, your approach, the key decisions and technical concepts, and the specific details (file names, full code snippets, function signatures, edits), the errors you ran into and how they were fixed, and any feedback the user gave. Check that every point below is covered accurately.

Then write the summary inside <summary> tags with these sections:
1. Primary Request and Intent: all of the user's explicit requests and intents, in detail.
2. Key Technical Concepts: the important technologies, frameworks and concepts discussed.
3. Files and Code Sections: the files and code sections examined, modified or created, why each matters, with full code snippets where relevant.
4. Errors and fixes: every error met and how it was fixed, including user feedback on it.
5. Problem Solving: problems solved and any troubleshooting still under way.
6. All user messages: every user message that is not a tool result.
7. Pending Tasks: tasks you were explicitly asked to do that are not done.
8. Current Work: precisely what was being worked on just before this request, with file names and code snippets.
9. Optional Next Step: the next step, directly in line with the most recent explicit request, quoting the latest conversation verbatim where it helps.

Respond with text only: do not call any tools.";

/// What the summary is inserted after, as a user message.
pub const CONTINUATION_PREFIX: &str = "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n";

/// Space reserved for the summary's own output, capped at this.
const MAX_OUTPUT_RESERVE: i64 = 20_000;
/// The buffer below the effective window where auto-compact fires.
const AUTOCOMPACT_BUFFER: i64 = 13_000;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "context_window",
        kind: Kind::Int,
        default: "200000",
        nullable: false,
        help: "model context window in tokens (--window applies unless this is set)",
    },
    ParamSpec {
        name: "max_output_tokens",
        kind: Kind::Int,
        default: "32000",
        nullable: false,
        help: "the model's max output tokens; min(this, 20,000) is reserved below the window",
    },
    ParamSpec {
        name: "autocompact_pct_override",
        kind: Kind::Float,
        default: "null",
        nullable: true,
        help: "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: compact at this percentage of the window when that is lower",
    },
];

impl Preset for ClaudeCode {
    fn name(&self) -> &'static str {
        "claude-code"
    }
    fn framework(&self) -> &'static str {
        "Anthropic Claude Code (auto-compact, third-party descriptions)"
    }
    fn description(&self) -> &'static str {
        "approximate: compact at window − min(max_output, 20,000) − 13,000 of reported usage + chars/4; whole history summarized (prompt text is a reconstruction); nothing kept"
    }
    fn approximate(&self) -> bool {
        true
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    /// A Claude Code source: the lines Claude Code keeps after a compaction (the kept lines,
    /// the `compact_boundary` and the `isCompactSummary` line), as `write::claude_code` writes
    /// them; any other source: the generic splice.
    fn compacted(&self, input: &PlanInput, plan: &Plan, summary: Option<&str>) -> After {
        let session = input.session;
        let original = (session.format == Format::CLAUDE_CODE)
            .then(|| RawLines::of_session(session))
            .flatten();
        if let Some(original) = original {
            let applied = apply::apply(session, plan, summary);
            let (bytes, _) =
                crate::write::claude_code::to_jsonl(&original, &applied, input.real_tokens());
            if let Ok(after) = after::from_jsonl(session, bytes, Format::CLAUDE_CODE) {
                return after;
            }
        }
        after::generic(session, plan, summary)
    }
    fn keeps_claude_code_lines(&self) -> bool {
        true
    }
    /// The measure kept as a running fold (`quiet`).
    fn quiet_trigger(
        &self,
        input: &PlanInput,
        settings: &Settings,
        memo: &mut Memo,
    ) -> Option<Trigger> {
        quiet::quiet(input, settings, memo)
    }

    fn plan(&self, input: &PlanInput, settings: &Settings) -> Result<Plan, PlanError> {
        let session = input.session;
        let (window, base, lowered) = thresholds(input, settings);
        let threshold = lowered.unwrap_or(base) as u64;
        let start = live_start(session);
        let live: Vec<usize> = (start..session.messages.len())
            .filter(|&i| session.messages[i].role != Role::Event)
            .collect();
        let (value, estimator) = measure(session, &live);
        let fired = value >= threshold && !live.is_empty();
        let trigger = quiet::trigger(
            fired,
            value,
            estimator,
            window,
            threshold,
            lowered.is_some(),
        );
        let split = make_split(session, &live, fired);
        let (summarizer, deferred) = match fired {
            true if input.defer_request => (Vec::new(), Some(deferred_request(session, &live))),
            true => (request(session, &live), None),
            false => (Vec::new(), None),
        };
        let mut findings = common_findings(session, &split, &trigger, input.real_tokens());
        if let Some(t) = lowered {
            findings.push(Finding {
                code: "threshold-lowered",
                severity: Severity::Info,
                messages: Vec::new(),
                detail: format!(
                    "autocompact_pct_override lowers the threshold from {base} to {t} tokens"
                ),
            });
        }
        if fired {
            let sent = Sent {
                rendered: &summarizer,
                deferred: deferred.as_ref(),
                session,
            };
            findings.extend(claude_findings(input, &split, &sent, window, start));
        }
        let position = split.pinned.len();
        Ok(Plan {
            preset: self.name(),
            framework: self.framework(),
            settings: settings.clone(),
            trigger,
            split,
            summarizer,
            deferred,
            insertion: fired.then(|| Insertion {
                role: PromptRole::User,
                position,
                prefix: CONTINUATION_PREFIX.to_string(),
                suffix: String::new(),
                replaces: None,
            }),
            findings,
            made: Default::default(),
        })
    }
}

/// The window, the default threshold, and the lower one `autocompact_pct_override` sets.
pub(super) fn thresholds(input: &PlanInput, settings: &Settings) -> (i64, i64, Option<i64>) {
    let window = if settings.is_set("context_window") {
        settings.int("context_window").unwrap_or(200_000)
    } else {
        input.window_flag.map_or(200_000, |w| w as i64)
    };
    let reserve = settings
        .int("max_output_tokens")
        .unwrap_or(32_000)
        .clamp(0, MAX_OUTPUT_RESERVE);
    let base = (window - reserve - AUTOCOMPACT_BUFFER).max(0);
    let pct = settings.float("autocompact_pct_override");
    let lowered = pct
        .filter(|p| *p > 0.0 && *p <= 100.0)
        .map(|p| (window as f64 * p / 100.0).floor() as i64)
        .filter(|&t| t < base);
    (window, base, lowered)
}

/// The first message after the last full compaction (boundary or summary); 0 without one.
fn live_start(session: &Session) -> usize {
    session
        .marks
        .iter()
        .rev()
        .find(|m| m.kind == "compact_boundary" || m.kind == "compact_summary")
        .map_or(0, |m| m.before_message)
}

/// Characters of a message as sent (its rendered content).
pub(super) fn chars_of(session: &Session, i: usize) -> usize {
    session
        .messages
        .get(i)
        .and_then(|m| wire::render(m, Wire::Anthropic))
        .map_or(0, |p| p.content.chars().count())
}

/// Last reported usage plus chars/4 for the messages after it.
fn measure(session: &Session, live: &[usize]) -> (u64, &'static str) {
    let last = live.iter().rposition(|&i| {
        session.messages[i]
            .usage
            .as_ref()
            .and_then(|u| u.context_total())
            .is_some()
    });
    match last {
        Some(at) => {
            let reported = session.messages[live[at]]
                .usage
                .as_ref()
                .and_then(|u| u.context_total())
                .unwrap_or(0);
            let after: usize = live[at + 1..].iter().map(|&i| chars_of(session, i)).sum();
            (
                reported + (after as f64 / 4.0).round() as u64,
                quiet::USAGE_ESTIMATOR,
            )
        }
        None => {
            let all: usize = live.iter().map(|&i| chars_of(session, i)).sum();
            ((all as f64 / 4.0).round() as u64, quiet::CHARS_ESTIMATOR)
        }
    }
}

fn make_split(session: &Session, live: &[usize], fired: bool) -> Split {
    let live_set: BTreeSet<usize> = live.iter().copied().collect();
    let dropped: Vec<usize> = (0..session.messages.len())
        .filter(|i| !live_set.contains(i))
        .collect();
    if !fired {
        return Split {
            kept: live.to_vec(),
            dropped,
            ..Split::default()
        };
    }
    let pinned = live
        .iter()
        .copied()
        .filter(|&i| matches!(session.messages[i].role, Role::System | Role::Developer))
        .collect();
    Split {
        pinned,
        summarized: live.to_vec(),
        kept: Vec::new(),
        dropped,
    }
}

/// The session messages as sent, then the compact instruction.
fn request(session: &Session, live: &[usize]) -> Vec<PromptMessage> {
    let mut out: Vec<PromptMessage> = live
        .iter()
        .filter_map(|&i| session.messages.get(i))
        .filter_map(|m| wire::render(m, Wire::Anthropic))
        .collect();
    out.push(PromptMessage {
        role: PromptRole::User,
        content: COMPACT_PROMPT.to_string(),
    });
    out
}

/// The same request left to be rendered when read.
fn deferred_request(session: &Session, live: &[usize]) -> Deferred {
    let mut out = Deferred::default();
    for m in live.iter().filter_map(|&i| session.messages.get(i)) {
        wire::defer(&mut out, m, Wire::Anthropic);
    }
    out.push_own(PromptMessage {
        role: PromptRole::User,
        content: COMPACT_PROMPT.to_string(),
    });
    out
}

/// A plan's request as it was made: rendered, or deferred.
struct Sent<'a> {
    rendered: &'a [PromptMessage],
    deferred: Option<&'a Deferred>,
    session: &'a Session,
}

impl Sent<'_> {
    /// `f` of each message of the request, summed.
    fn sum(&self, f: impl Fn(&PromptMessage) -> usize + Sync) -> usize {
        crate::compaction::request::map(self.rendered, self.deferred, self.session, f)
            .into_iter()
            .sum()
    }
}

fn claude_findings(
    input: &PlanInput,
    split: &Split,
    summarizer: &Sent,
    window: i64,
    start: usize,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let gone: Vec<usize> = split
        .summarized
        .iter()
        .copied()
        .filter(|i| !split.pinned.contains(i))
        .collect();
    if !gone.is_empty() {
        out.push(Finding {
            code: "history-replaced",
            severity: Severity::Info,
            detail: format!("all {} message(s) since the last compaction are replaced by the summary: nothing is kept verbatim, tool results included", gone.len()),
            messages: gone,
        });
    }
    if let Some(counted) = request_over_window(input, split, summarizer, window) {
        out.push(Finding {
            code: "summarizer-window-overflow",
            severity: Severity::Error,
            messages: Vec::new(),
            detail: format!("the compaction request counts {counted} tokens, over the {window}-token window: the summary call itself fails (\"conversation too long\")"),
        });
    }
    if start > 0 {
        out.push(Finding {
            code: "already-compacted",
            severity: Severity::Info,
            messages: (0..start).collect(),
            detail: format!("{start} message(s) before the last compaction boundary are no longer in the context and are not summarized again"),
        });
    }
    out
}

/// How many tokens the compaction request counts, when that is over `window`. A token is at
/// least one byte, so a request of fewer bytes than the window fits without counting; one whose
/// summarized messages alone count (exactly, already) more than twice the window is over it
/// by those counts; only in between is the rendered request counted.
fn request_over_window(
    input: &PlanInput,
    split: &Split,
    summarizer: &Sent,
    window: i64,
) -> Option<String> {
    let bytes = summarizer.sum(|m| m.content.len());
    if (bytes as i64) <= window {
        return None;
    }
    let content: usize = split
        .summarized
        .iter()
        .filter_map(|&i| input.counts.messages.get(i))
        .map(|c| c.tokens)
        .sum();
    if content as i64 > 2 * window {
        return Some(format!("over {content}"));
    }
    let tokens = summarizer.sum(|m| input.counter.count(&m.content));
    (tokens as i64 > window).then(|| tokens.to_string())
}
