//! Parameters of each Agent Framework strategy, with the constructors' own names, defaults and
//! validation messages, and the nested `strategies=` list of `TokenBudgetComposedStrategy`
//! (`ClassName(name=value, …),ClassName` — each class resolved against its own parameters).

use super::strategies::{ContextWindow, Truncation};
use super::summarize::{Summarization, DEFAULT_PROMPT};
use super::PresetKind;
use crate::compaction::settings::{Kind, ParamSpec, Settings};

/// A strategy, configured.
#[derive(Debug, Clone)]
pub enum Strategy {
    Summarization(Summarization),
    Sliding {
        keep: i64,
        preserve_system: bool,
    },
    Truncation(Truncation),
    Selective {
        keep: i64,
    },
    ToolResult {
        keep: i64,
    },
    TokenBudget {
        budget: i64,
        strategies: Vec<Strategy>,
        early_stop: bool,
    },
    ContextWindow(ContextWindow),
}

const TOKENIZER: Kind = Kind::Choice(&["CharacterEstimatorTokenizer"]);

const fn p(
    name: &'static str,
    kind: Kind,
    default: &'static str,
    nullable: bool,
    help: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        kind,
        default,
        nullable,
        help,
    }
}

const SUMMARIZATION: &[ParamSpec] = &[
    p(
        "target_count",
        Kind::Int,
        "4",
        false,
        "included non-system messages to retain (whole groups, newest first)",
    ),
    p(
        "threshold",
        Kind::Int,
        "2",
        true,
        "extra messages allowed above target_count before it fires (null = 0)",
    ),
    p(
        "prompt",
        Kind::Str,
        "null",
        true,
        "summarizer system prompt (null = DEFAULT_SUMMARIZATION_PROMPT)",
    ),
    p(
        "max_summary_input_tokens",
        Kind::Int,
        "8000",
        true,
        "budget for prompt + transcript, whole groups (null = no budget)",
    ),
    p(
        "tokenizer",
        TOKENIZER,
        "null",
        true,
        "estimator for the input budget (null = CharacterEstimatorTokenizer)",
    ),
];

const SLIDING: &[ParamSpec] = &[
    p(
        "keep_last_groups",
        Kind::Int,
        "null",
        true,
        "required: most recent non-system groups to keep",
    ),
    p(
        "preserve_system",
        Kind::Bool,
        "true",
        false,
        "system groups always stay included",
    ),
];

const TRUNCATION: &[ParamSpec] = &[
    p("max_n", Kind::Int, "null", true, "required: fires when the metric exceeds it (tokens with a tokenizer, else included messages)"),
    p("compact_to", Kind::Int, "null", true, "required: oldest groups are excluded until the metric is at most this"),
    p("tokenizer", TOKENIZER, "null", true, "null measures included messages (system included)"),
    p("preserve_system", Kind::Bool, "true", false, "system groups are never excluded"),
    p("preserve_first_user_group", Kind::Bool, "false", false, "the first user group is never excluded"),
];

const KEEP_TOOL_GROUPS: &[ParamSpec] = &[p(
    "keep_last_tool_call_groups",
    Kind::Int,
    "1",
    false,
    "newest included tool-call groups left untouched",
)];

const TOKEN_BUDGET: &[ParamSpec] = &[
    p(
        "token_budget",
        Kind::Int,
        "null",
        true,
        "included-token budget (null = the context window in force)",
    ),
    p(
        "tokenizer",
        TOKENIZER,
        "CharacterEstimatorTokenizer",
        false,
        "per-message estimator",
    ),
    p(
        "strategies",
        Kind::Str,
        "",
        false,
        "comma-separated `Class(name=value, …)` list run in order before the fallback",
    ),
    p(
        "early_stop",
        Kind::Bool,
        "true",
        false,
        "stop as soon as the budget is met",
    ),
];

const CONTEXT_WINDOW: &[ParamSpec] = &[
    p(
        "max_context_window_tokens",
        Kind::Int,
        "null",
        true,
        "the model's window (null = the context window in force)",
    ),
    p(
        "max_output_tokens",
        Kind::Int,
        "null",
        true,
        "required: reserved for output; input budget = window − output",
    ),
    p(
        "tokenizer",
        TOKENIZER,
        "null",
        true,
        "null = CharacterEstimatorTokenizer",
    ),
    p(
        "tool_eviction_threshold",
        Kind::Float,
        "0.5",
        false,
        "tool results collapse above int(budget × this)",
    ),
    p(
        "truncation_threshold",
        Kind::Float,
        "0.8",
        false,
        "oldest groups are truncated above int(budget × this)",
    ),
    p(
        "keep_last_tool_call_groups",
        Kind::Int,
        "4",
        false,
        "tool-call groups kept verbatim by eviction",
    ),
    p(
        "preserve_first_user_group",
        Kind::Bool,
        "false",
        false,
        "truncation keeps the first user group",
    ),
];

pub fn specs(kind: PresetKind) -> &'static [ParamSpec] {
    match kind {
        PresetKind::Summarization(_) => SUMMARIZATION,
        PresetKind::Sliding => SLIDING,
        PresetKind::Truncation => TRUNCATION,
        PresetKind::Selective | PresetKind::ToolResult => KEEP_TOOL_GROUPS,
        PresetKind::TokenBudget => TOKEN_BUDGET,
        PresetKind::ContextWindow => CONTEXT_WINDOW,
    }
}

fn required(s: &Settings, name: &str) -> Result<i64, String> {
    s.int(name).ok_or_else(|| {
        format!("`{name}` is required (the framework has no default); give it with --set {name}=N")
    })
}

fn check(ok: bool, message: &str) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(message.to_string())
    }
}

/// Builds the strategy as its constructor would, with its `ValueError` messages.
pub fn build(kind: PresetKind, s: &Settings, window: u64) -> Result<Strategy, String> {
    Ok(match kind {
        PresetKind::Summarization(_) => summarization(s)?,
        PresetKind::Sliding => {
            let keep = required(s, "keep_last_groups")?;
            check(
                keep > 0,
                &format!("keep_last_groups must be more than 0, got {keep}"),
            )?;
            Strategy::Sliding {
                keep,
                preserve_system: s.bool("preserve_system").unwrap_or(true),
            }
        }
        PresetKind::Truncation => truncation(s)?,
        PresetKind::Selective | PresetKind::ToolResult => {
            let keep = s.int("keep_last_tool_call_groups").unwrap_or(1);
            check(
                keep >= 0,
                "keep_last_tool_call_groups must be greater than or equal to 0.",
            )?;
            match kind {
                PresetKind::Selective => Strategy::Selective { keep },
                _ => Strategy::ToolResult { keep },
            }
        }
        PresetKind::TokenBudget => Strategy::TokenBudget {
            budget: s.int("token_budget").unwrap_or(window as i64),
            strategies: super::nested::strategies(s.str("strategies").unwrap_or_default(), window)?,
            early_stop: s.bool("early_stop").unwrap_or(true),
        },
        PresetKind::ContextWindow => context_window(s, window)?,
    })
}

/// `SummarizationStrategy(...)`: threshold None → 0, an empty prompt → the default.
fn summarization(s: &Settings) -> Result<Strategy, String> {
    let target_count = s.int("target_count").unwrap_or(4);
    let threshold = s.int("threshold");
    let max = s.int("max_summary_input_tokens");
    check(target_count > 0, "target_count must be greater than 0.")?;
    check(
        threshold.is_none_or(|t| t >= 0),
        "threshold must be greater than or equal to 0.",
    )?;
    check(
        max.is_none_or(|m| m > 0),
        "max_summary_input_tokens must be greater than 0.",
    )?;
    let prompt = s
        .str("prompt")
        .filter(|p| !p.is_empty())
        .unwrap_or(DEFAULT_PROMPT);
    Ok(Strategy::Summarization(Summarization {
        target_count,
        threshold: threshold.unwrap_or(0),
        prompt: prompt.to_string(),
        max_summary_input_tokens: max,
    }))
}

/// `TruncationStrategy(...)`.
fn truncation(s: &Settings) -> Result<Strategy, String> {
    let (max_n, compact_to) = (required(s, "max_n")?, required(s, "compact_to")?);
    check(max_n > 0, "max_n must be greater than 0.")?;
    check(compact_to > 0, "compact_to must be greater than 0.")?;
    check(
        compact_to <= max_n,
        "compact_to must be less than or equal to max_n.",
    )?;
    Ok(Strategy::Truncation(Truncation {
        max_n,
        compact_to,
        tokens: s.str("tokenizer").is_some(),
        preserve_system: s.bool("preserve_system").unwrap_or(true),
        preserve_first_user_group: s.bool("preserve_first_user_group").unwrap_or(false),
    }))
}

fn context_window(s: &Settings, window: u64) -> Result<Strategy, String> {
    let max = s.int("max_context_window_tokens").unwrap_or(window as i64);
    let out = required(s, "max_output_tokens")?;
    let eviction = s.float("tool_eviction_threshold").unwrap_or(0.5);
    let truncation = s.float("truncation_threshold").unwrap_or(0.8);
    check(max > 0, "max_context_window_tokens must be positive.")?;
    check(
        (0..max).contains(&out),
        "max_output_tokens must be >= 0 and < max_context_window_tokens.",
    )?;
    check(
        eviction > 0.0 && eviction <= 1.0,
        "tool_eviction_threshold must be in (0.0, 1.0].",
    )?;
    check(
        truncation > 0.0 && truncation <= 1.0,
        "truncation_threshold must be in (0.0, 1.0].",
    )?;
    check(
        truncation >= eviction,
        "truncation_threshold must be >= tool_eviction_threshold.",
    )?;
    let budget = max - out;
    Ok(Strategy::ContextWindow(ContextWindow {
        input_budget: budget,
        eviction_tokens: (budget as f64 * eviction) as i64,
        truncation_tokens: (budget as f64 * truncation) as i64,
        keep_last_tool_call_groups: s.int("keep_last_tool_call_groups").unwrap_or(4),
        preserve_first_user_group: s.bool("preserve_first_user_group").unwrap_or(false),
    }))
}
