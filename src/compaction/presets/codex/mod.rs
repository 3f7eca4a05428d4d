//! `codex`: OpenAI Codex CLI's local (inline) auto-compaction, from its documented behaviour and
//! its public source — approximate: Codex is a closed agent binary as far as ctxray's oracle
//! goes, so no golden proves this preset.
//!
//! Trigger: after a sampling request, `total_usage_tokens >= limit` where
//! `limit = min(model_auto_compact_token_limit, context_window * 9 / 10)` and the usage is the
//! last request's reported `total_tokens` (`token_count.info.last_token_usage`); sessions
//! without Codex usage fall back to the exact count of the history. Summarizer: the whole
//! history (instructions as the system message, every item after them in order) plus a final
//! user message holding `SUMMARIZATION_PROMPT`; when that request exceeds the window Codex
//! removes the oldest history item and retries (emulated with exact counts). New history:
//! the initial context, the prior real user messages newest-first up to
//! `COMPACT_USER_MESSAGE_MAX_TOKENS` (the one that overflows is truncated), then a user message
//! `SUMMARY_PREFIX\n<summary>`. Tool calls and outputs do not survive.
//!
//! `SUMMARIZATION_PROMPT` and `SUMMARY_PREFIX` are the exact texts of
//! `codex-rs/core/templates/compact/prompt.md` and `summary_prefix.md` in the public
//! openai/codex repository (commit 928a707f6a5ed63d89f1575f794aa7135be2f5c9); the constants and
//! the history rebuild follow `codex-rs/core/src/compact.rs` of the same repository.

use std::collections::BTreeSet;

mod after;
mod history;
mod quiet;

use super::wire::{self, Wire};
use crate::compaction::findings::{Finding, Severity};
use crate::compaction::plan::{
    common_findings, Insertion, Plan, PromptMessage, PromptRole, Split, Trigger,
};
use crate::compaction::preset::{PlanError, PlanInput, Preset};
use crate::compaction::quiet::Memo;
use crate::compaction::request::Deferred;
use crate::compaction::settings::{Kind, ParamSpec, Settings};
use crate::session::{Part, Session};
use history::{carry_user_messages, measure, Carried, History};

pub struct Codex;

/// `codex-rs/core/templates/compact/prompt.md` (openai/codex, public repository).
pub const SUMMARIZATION_PROMPT: &str = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary so another LLM can continue the single active task (the most recent user request that is still in progress).\n\nRules:\n- Focus only on the active task. Do not restate or reopen earlier, completed tasks.\n- Do not propose audits or re-checking unless the user explicitly asked.\n- If earlier tasks exist, note them as completed in one short bullet.\n\nUse this format:\n- Active task:\n- Progress so far:\n- Next steps (active task only):\n- Key context / constraints / preferences (still relevant only):\n- Completed tasks (optional, brief):\n\nBe concise and structured so the next LLM can continue without broad backtracking.\n";

/// `codex-rs/core/templates/compact/summary_prefix.md` (openai/codex, public repository).
pub const SUMMARY_PREFIX: &str = "You are resuming an in-progress task after context compaction. Another language model produced a handoff summary. Treat the summary as authoritative for what is already done. Continue from the \"Next steps\" for the active task; do not re-open completed tasks or audit prior work unless the user explicitly asked. You also have access to the state of the tools that were used by that language model. Here is the summary:\n";

/// `compact.rs`: the token budget of prior user messages carried into the new history.
pub const COMPACT_USER_MESSAGE_MAX_TOKENS: usize = 20_000;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "context_window",
        kind: Kind::Int,
        default: "null",
        nullable: true,
        help: "model context window; null takes --window, then the rollout's model_context_window, then the model registry",
    },
    ParamSpec {
        name: "model_auto_compact_token_limit",
        kind: Kind::Int,
        default: "null",
        nullable: true,
        help: "config.toml model_auto_compact_token_limit; the limit is min(this, context_window × 9/10)",
    },
];

impl Preset for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }
    fn framework(&self) -> &'static str {
        "OpenAI Codex CLI (local compaction, codex-rs compact.rs)"
    }
    fn description(&self) -> &'static str {
        "approximate: compact at min(model_auto_compact_token_limit, 90% of the window) of reported usage; whole history + SUMMARIZATION_PROMPT; keeps user messages up to 20,000 tokens"
    }
    fn approximate(&self) -> bool {
        true
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }

    /// A Codex source: the `replacement_history` of the `compacted` item Codex writes.
    fn compacted(
        &self,
        input: &PlanInput,
        plan: &Plan,
        summary: Option<&str>,
    ) -> crate::compaction::after::After {
        after::compacted(input.session, plan, summary)
    }

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
        let (window, limit) = quiet::limit(input, settings);
        let history = History::of(session);
        let (value, estimator) = measure(input, &history);
        let fired = value >= limit && !history.items.is_empty();
        let trigger = quiet::trigger(fired, value, estimator, window, limit);
        let (split, (summarizer, deferred), insertion, extra) = if fired {
            let request = Request::build(input, &history, window);
            let carried = carry_user_messages(session, &history);
            let split = request.split(session, &history, &carried);
            let insertion = Insertion {
                role: PromptRole::User,
                // After the instructions (a system message of the history here), the initial
                // context and the carried user messages: the summary comes last.
                position: history.instructions.len() + history.initial.len() + carried.kept.len(),
                prefix: format!("{SUMMARY_PREFIX}\n"),
                suffix: String::new(),
                replaces: None,
            };
            let extra = codex_findings(input, &history, &request, &carried, limit);
            (split, request.messages, Some(insertion), extra)
        } else {
            (
                unfired_split(session, &history),
                (Vec::new(), None),
                None,
                Vec::new(),
            )
        };
        let mut findings = common_findings(session, &split, &trigger, input.real_tokens());
        findings.extend(extra);
        Ok(Plan {
            preset: self.name(),
            framework: self.framework(),
            settings: settings.clone(),
            trigger,
            split,
            summarizer,
            deferred,
            insertion,
            findings,
            made: Default::default(),
        })
    }
}

/// Below the trigger the history Codex holds stays as it is; what an earlier compaction
/// replaced stays dropped.
fn unfired_split(session: &Session, history: &History) -> Split {
    let mut kept: Vec<usize> = history.instructions.clone();
    kept.extend(history.items.iter().flatten());
    kept.sort_unstable();
    let set: BTreeSet<usize> = kept.iter().copied().collect();
    let dropped = (0..session.messages.len())
        .filter(|i| !set.contains(i))
        .collect();
    Split {
        kept,
        dropped,
        ..Split::default()
    }
}

/// The summarizer request after Codex's trim-oldest-and-retry loop.
struct Request {
    /// The request rendered, or left to render when read (`PlanInput::defer_request`).
    messages: (Vec<PromptMessage>, Option<Deferred>),
    /// History items sent (after trimming).
    sent: Vec<Option<usize>>,
    /// History items removed to fit the window.
    trimmed: Vec<Option<usize>>,
    /// Tokens of the request as first built.
    first_tokens: usize,
}

impl Request {
    fn build(input: &PlanInput, history: &History, window: u64) -> Request {
        let session = input.session;
        let render = |item: &Option<usize>| -> Option<PromptMessage> {
            match item {
                Some(i) => session
                    .messages
                    .get(*i)
                    .and_then(|m| wire::render(m, Wire::Responses)),
                None => Some(PromptMessage {
                    role: PromptRole::User,
                    content: history.summary.clone().unwrap_or_default(),
                }),
            }
        };
        let head: Vec<PromptMessage> = history
            .instructions
            .iter()
            .filter_map(|&i| session.messages.get(i))
            .filter_map(|m| wire::render(m, Wire::Responses))
            .collect();
        let prompt = PromptMessage {
            role: PromptRole::User,
            content: SUMMARIZATION_PROMPT.to_string(),
        };
        // Each item rendered and counted on the thread free to take it, in order, and only its
        // count kept: the history can be most of the session, of which the request sends what
        // fits the window. The items sent are rendered again once the oldest are trimmed.
        let defer = input.defer_request;
        let counted = crate::par::map(
            &history.items,
            64,
            |item| {
                let m = render(item)?;
                Some((*item, input.counter.count(&m.content)))
            },
            |_| {},
        );
        let body: Vec<(Option<usize>, usize)> = counted.into_iter().flatten().collect();
        let fixed: usize = head
            .iter()
            .chain([&prompt])
            .map(|m| input.counter.count(&m.content))
            .sum();
        let mut total = fixed + body.iter().map(|(_, t)| t).sum::<usize>();
        let first_tokens = total;
        // The oldest items go first while the request is over the window (one always stays).
        let mut cut = 0;
        while total as u64 > window && body.len() - cut > 1 {
            total -= body[cut].1;
            cut += 1;
        }
        let trimmed = body[..cut].iter().map(|(item, _)| *item).collect();
        let body = body.into_iter().skip(cut);
        let mut sent = Vec::new();
        let messages = if defer {
            // The instructions, already rendered to be counted, are kept as they are.
            let mut d = Deferred::default();
            head.into_iter().for_each(|m| d.push_own(m));
            for (item, _) in body {
                sent.push(item);
                match item.map(|i| session.messages.get(i)) {
                    Some(m) => m
                        .into_iter()
                        .for_each(|m| wire::defer(&mut d, m, Wire::Responses)),
                    None => d.extend_own(render(&None)),
                }
            }
            d.push_own(prompt);
            (Vec::new(), Some(d))
        } else {
            let mut messages = head;
            let items: Vec<Option<usize>> = body.map(|(item, _)| item).collect();
            messages.extend(
                crate::par::map(&items, 64, render, |_| {})
                    .into_iter()
                    .flatten(),
            );
            sent = items;
            messages.push(prompt);
            (messages, None)
        };
        Request {
            messages,
            sent,
            trimmed,
            first_tokens,
        }
    }

    fn split(&self, session: &Session, history: &History, carried: &Carried) -> Split {
        let mut pinned: Vec<usize> = history.instructions.clone();
        pinned.extend(&history.initial);
        pinned.sort_unstable();
        let kept = carried.kept.clone();
        let mut summarized: Vec<usize> = history.instructions.clone();
        summarized.extend(self.sent.iter().flatten());
        summarized.sort_unstable();
        let placed: BTreeSet<usize> = pinned
            .iter()
            .chain(&kept)
            .chain(&summarized)
            .copied()
            .collect();
        let dropped = (0..session.messages.len())
            .filter(|i| !placed.contains(i))
            .collect();
        Split {
            pinned,
            summarized,
            kept,
            dropped,
        }
    }
}

fn codex_findings(
    input: &PlanInput,
    history: &History,
    request: &Request,
    carried: &Carried,
    limit: u64,
) -> Vec<Finding> {
    let session = input.session;
    let mut out = Vec::new();
    out.extend(tool_finding(session, history));
    if let Some((i, tokens, keeps)) = carried.truncated {
        out.push(Finding {
            code: "message-truncated",
            severity: Severity::Warn,
            messages: vec![i],
            detail: format!("the oldest carried user message (~{tokens} tokens) is cut to ~{keeps} tokens to fit COMPACT_USER_MESSAGE_MAX_TOKENS = {COMPACT_USER_MESSAGE_MAX_TOKENS}"),
        });
    }
    if !carried.left_out.is_empty() {
        out.push(Finding {
            code: "user-messages-dropped",
            severity: Severity::Info,
            detail: format!("{} older user message(s) are over the {COMPACT_USER_MESSAGE_MAX_TOKENS}-token budget and survive only through the summary", carried.left_out.len()),
            messages: carried.left_out.clone(),
        });
    }
    if !request.trimmed.is_empty() {
        out.push(Finding {
            code: "summarizer-window-overflow",
            severity: Severity::Warn,
            messages: request.trimmed.iter().flatten().copied().collect(),
            detail: format!("the compaction request counts {} tokens, over the window: Codex removes the {} oldest history item(s) and retries, so the summarizer never sees them", request.first_tokens, request.trimmed.len()),
        });
    }
    let after: usize = history
        .instructions
        .iter()
        .chain(&history.initial)
        .chain(&carried.kept)
        .filter_map(|&i| input.counts.messages.get(i))
        .map(|c| c.total())
        .sum();
    if after as u64 >= limit {
        out.push(Finding {
            code: "compacts-every-turn",
            severity: Severity::Warn,
            messages: carried.kept.clone(),
            detail: format!("instructions, initial context and carried user messages alone count {after} tokens, at or over the limit of {limit}: the next turn compacts again"),
        });
    }
    out
}

/// Tool calls and outputs do not survive: only the summary tells what the tools did.
fn tool_finding(session: &Session, history: &History) -> Option<Finding> {
    let tools: Vec<usize> = history
        .items
        .iter()
        .flatten()
        .copied()
        .filter(|&i| {
            session.messages.get(i).is_some_and(|m| {
                m.parts
                    .iter()
                    .any(|p| matches!(p, Part::ToolCall { .. } | Part::ToolResult { .. }))
            })
        })
        .collect();
    if !tools.is_empty() {
        return Some(Finding {
            code: "tool-history-dropped",
            severity: Severity::Warn,
            detail: format!("{} message(s) with tool calls or outputs do not survive the compaction: only the summary tells what the tools did", tools.len()),
            messages: tools,
        });
    }
    None
}
