//! `dimos`: dimos' `compact_history` (PR #3455 branch). No released package has it; goldens of
//! its module run on LangChain sessions (fixtures/oracle/dimos) check trigger, cut, digest and
//! summarizer prompt. Marked approximate: other formats reach it through ctxray's own
//! LangChain view of the session (`lc`), which no golden covers.
//!
//! Trigger: `estimate_tokens(history) > context_window * trigger_ratio` (and more than one
//! message). Cut: a leading SystemMessage is kept; walking back from the newest message, keep
//! messages while their cost fits in `int(context_window * keep_ratio)` (the last message is
//! always kept), then move the cut past leading ToolMessages (never past the last message — a
//! trailing lone ToolMessage can stay orphaned). Summarizer: `make_model_summarizer` — one user
//! message, the prompt plus `{ClassName}: {first text}` lines (tool calls, non-text and empty
//! messages skipped), cut to its last `max_chars` characters. The summary comes back as
//! `HumanMessage("[compacted history]\n" + summary)` after the system message. Offline summary:
//! dimos' own digest (`digest`), what it writes without a model or when the model fails.
//! Compacted history: `history`, the list `messages_to_dict` gives (checked against the goldens).

mod digest;
mod history;
mod quiet;

use std::borrow::Cow;

use super::lc::{self, LcContent, LcKind, LcMessage};
use crate::compaction::after::After;
use crate::compaction::findings::{Finding, Severity};
use crate::compaction::plan::{
    common_findings, Insertion, Plan, PromptMessage, PromptRole, Split, Trigger,
};
use crate::compaction::preset::{CheckPoint, PlanError, PlanInput, Preset};
use crate::compaction::quiet::Memo;
use crate::compaction::settings::{Kind, ParamSpec, Settings};
use crate::pyrepr;

pub struct Dimos;

const ESTIMATOR: &str = "dimos estimate_tokens: 4 per message + len(content)//4 + len(str(args))//4 + len(name)//4; images 1,500";

/// The window: `context_window`, else `--window`, else dimos' own table for the model.
fn window(input: &PlanInput, settings: &Settings) -> u64 {
    match settings.int("context_window") {
        Some(w) => w.max(0) as u64,
        None => input
            .window_flag
            .unwrap_or_else(|| resolve_context_window(input.model.unwrap_or(""))),
    }
}

pub const PROMPT: &str = "Summarise the following portion of an agent conversation. It is being removed to free up context, so preserve anything the agent still needs: the user's goals, decisions taken, tools run and their outcomes, and any unfinished work. Be concise and factual.";

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "context_window",
        kind: Kind::Int,
        default: "null",
        nullable: true,
        help: "window in tokens; null resolves it from the model name with dimos' own table",
    },
    ParamSpec {
        name: "trigger_ratio",
        kind: Kind::Float,
        default: "0.8",
        nullable: false,
        help: "compact when the estimate exceeds context_window × trigger_ratio",
    },
    ParamSpec {
        name: "keep_ratio",
        kind: Kind::Float,
        default: "0.35",
        nullable: false,
        help: "keep the newest messages that fit in context_window × keep_ratio",
    },
    ParamSpec {
        name: "summarize_with_model",
        kind: Kind::Bool,
        default: "true",
        nullable: false,
        help: "false uses the offline digest (no summarizer call)",
    },
    ParamSpec {
        name: "max_chars",
        kind: Kind::Int,
        default: "6000",
        nullable: false,
        help: "the summarizer transcript keeps only its last max_chars characters",
    },
];

impl Preset for Dimos {
    fn name(&self) -> &'static str {
        "dimos"
    }
    fn framework(&self) -> &'static str {
        "dimos compact_history (PR #3455 branch)"
    }
    fn description(&self) -> &'static str {
        "trigger_ratio/keep_ratio over a chars/4 estimate; split advanced past leading tool messages; last 6,000 chars to the summarizer"
    }
    fn approximate(&self) -> bool {
        true
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    /// McpClient compacts once per incoming message, before the graph loop, never between
    /// tool steps.
    fn checks_at(&self) -> CheckPoint {
        CheckPoint::UserTurn
    }

    fn quiet_trigger(
        &self,
        input: &PlanInput,
        settings: &Settings,
        memo: &mut Memo,
    ) -> Option<Trigger> {
        quiet::trigger(input, settings, memo)
    }

    fn plan(&self, input: &PlanInput, settings: &Settings) -> Result<Plan, PlanError> {
        let trigger_ratio = settings.float("trigger_ratio").unwrap_or(0.8);
        let keep_ratio = settings.float("keep_ratio").unwrap_or(0.35);
        if keep_ratio >= trigger_ratio {
            return Err(PlanError::Invalid {
                preset: self.name().into(),
                message: format!(
                    "keep_ratio ({keep_ratio}) must be below trigger_ratio ({trigger_ratio})"
                ),
            });
        }
        let window = window(input, settings);
        let history = lc::messages(input.session);
        let costs: Vec<u64> = history.iter().map(estimate_tokens).collect();
        let tokens: u64 = costs.iter().sum();
        let threshold = window as f64 * trigger_ratio;
        let over = tokens as f64 > threshold && history.len() > 1;
        let system = usize::from(history.first().is_some_and(|m| m.kind == LcKind::System));
        let split_at = if over {
            system
                + split_index(
                    &history[system..],
                    &costs[system..],
                    (window as f64 * keep_ratio) as u64,
                )
        } else {
            system
        };
        let fired = over && split_at > system;
        let mut split = Split::default();
        if let Some(first) = history.first().filter(|_| system == 1) {
            split.pinned.push(first.index);
        }
        let (gone, tail) = if fired {
            (&history[system..split_at], &history[split_at..])
        } else {
            (&history[..0], &history[system..])
        };
        split.summarized = gone.iter().map(|m| m.index).collect();
        split.kept = tail.iter().map(|m| m.index).collect();
        let summarize_with_model = settings.bool("summarize_with_model").unwrap_or(true);
        let max_chars = settings.int("max_chars").unwrap_or(6000).max(0) as usize;
        let (summarizer, cut_chars) = if fired && summarize_with_model {
            let (content, cut) = summarizer_prompt(gone, max_chars);
            (
                vec![PromptMessage {
                    role: PromptRole::User,
                    content,
                }],
                cut,
            )
        } else {
            (Vec::new(), 0)
        };
        let reason = if !over {
            quiet::reason(tokens, threshold, window, trigger_ratio)
        } else if !fired {
            format!("estimate {tokens} > {threshold:.0}, but every message fits the keep budget: nothing to drop")
        } else {
            format!("estimate {tokens} > {threshold:.0} (context_window {window} × trigger_ratio {trigger_ratio})")
        };
        let trigger = Trigger {
            fired,
            measure: "tokens",
            value: tokens,
            threshold: threshold as u64,
            reason,
            estimator: ESTIMATOR.into(),
        };
        let mut findings = common_findings(input.session, &split, &trigger, input.real_tokens());
        if fired {
            findings.extend(dimos_findings(
                input,
                gone,
                tail,
                &costs[split_at..],
                threshold,
                cut_chars,
                summarize_with_model,
            ));
        }
        Ok(Plan {
            preset: self.name(),
            framework: self.framework(),
            settings: settings.clone(),
            trigger,
            split,
            summarizer,
            deferred: None,
            insertion: fired.then(|| Insertion {
                role: PromptRole::User,
                position: system,
                prefix: "[compacted history]\n".into(),
                suffix: String::new(),
                replaces: None,
            }),
            findings,
            made: Default::default(),
        })
    }

    /// dimos' offline digest of the dropped messages (`_default_summarizer`): what
    /// `compact_history` writes with `summarize_with_model` off or when the model call raises.
    fn offline_summary(&self, input: &PlanInput, plan: &Plan) -> Option<String> {
        if !plan.trigger.fired {
            return None;
        }
        let history = lc::messages(input.session);
        let summarized: std::collections::HashSet<usize> =
            plan.split.summarized.iter().copied().collect();
        let dropped: Vec<&LcMessage> = history
            .iter()
            .filter(|m| summarized.contains(&m.index))
            .collect();
        Some(digest::digest(&dropped))
    }
    /// The list `compact_history` returns, as `messages_to_dict` serialises it.
    fn compacted(&self, input: &PlanInput, plan: &Plan, summary: Option<&str>) -> After {
        history::compacted(input, plan, summary)
    }
}

/// dimos' `estimate_tokens` for one message.
pub fn estimate_tokens(m: &LcMessage) -> u64 {
    let content = match &m.content {
        LcContent::Text(s) => s.chars().count() / 4,
        LcContent::Json(serde_json::Value::Array(parts)) => parts
            .iter()
            .map(
                |p| match p.get("type").and_then(serde_json::Value::as_str) {
                    Some("image_url" | "image") => 1500,
                    Some("text") => p.get("text").map_or(0, |t| pyrepr::str_of_chars(t) / 4),
                    _ => pyrepr::str_of_chars(p) / 4,
                },
            )
            .sum(),
        LcContent::Json(serde_json::Value::Null) => 0,
        LcContent::Json(other) => pyrepr::str_of_chars(other) / 4,
    };
    let calls: usize = m
        .tool_calls
        .iter()
        .map(|(name, args)| pyrepr::str_of_chars(args) / 4 + name.chars().count() / 4)
        .sum();
    (4 + content + calls) as u64
}

/// Index in `body` where the kept tail starts.
fn split_index(body: &[LcMessage], costs: &[u64], budget: u64) -> usize {
    let mut total = 0u64;
    let mut start = body.len();
    for i in (0..body.len()).rev() {
        if total + costs[i] > budget && i + 1 < body.len() {
            break;
        }
        total += costs[i];
        start = i;
    }
    while start + 1 < body.len() && body[start].kind == LcKind::Tool {
        start += 1;
    }
    start
}

/// The summarizer prompt and how many characters of the transcript were cut off its head.
fn summarizer_prompt(gone: &[LcMessage], max_chars: usize) -> (String, usize) {
    // The transcript, `class: text` lines joined by line breaks, is measured line by line and
    // only the part shown is written: the last `max_chars` characters of a range that can be
    // most of the session.
    let lines: Vec<(&str, Cow<'_, str>)> = gone
        .iter()
        .filter_map(|m| {
            let text = m.first_text();
            (!text.is_empty()).then_some((m.class, text))
        })
        .collect();
    let line_chars = |(class, text): &(&str, Cow<'_, str>)| -> usize {
        class.chars().count() + 2 + text.chars().count()
    };
    let len = lines.iter().map(line_chars).sum::<usize>() + lines.len().saturating_sub(1);
    let (shown, cut) = if len <= max_chars {
        (0, 0)
    } else {
        // The fewest last lines that hold the characters shown, with their line breaks.
        let mut chars = 0;
        let mut first = lines.len();
        while first > 0 && chars < max_chars {
            first -= 1;
            chars += line_chars(&lines[first]) + usize::from(first > 0);
        }
        (first, len - max_chars)
    };
    let mut transcript = String::new();
    for (k, (class, text)) in lines[shown..].iter().enumerate() {
        if k > 0 || shown > 0 {
            transcript.push('\n');
        }
        transcript.push_str(class);
        transcript.push_str(": ");
        transcript.push_str(text);
    }
    if cut == 0 {
        return (format!("{PROMPT}\n\n{transcript}"), 0);
    }
    let written = transcript.chars().count();
    let tail: String = transcript.chars().skip(written - max_chars).collect();
    (format!("{PROMPT}\n\n...\n{tail}"), cut)
}

fn dimos_findings(
    input: &PlanInput,
    gone: &[LcMessage],
    tail: &[LcMessage],
    tail_costs: &[u64],
    threshold: f64,
    cut_chars: usize,
    with_model: bool,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if cut_chars > 0 {
        out.push(Finding {
            code: "message-truncated",
            severity: Severity::Warn,
            messages: gone.iter().map(|m| m.index).collect(),
            detail: format!("the summarizer sees only the last characters of the transcript: {cut_chars} characters of the oldest messages are cut"),
        });
    }
    let with_calls: Vec<usize> = gone
        .iter()
        .filter(|m| !m.tool_calls.is_empty())
        .map(|m| m.index)
        .collect();
    if with_model && !with_calls.is_empty() {
        out.push(Finding {
            code: "tool-arguments-dropped",
            severity: Severity::Warn,
            detail: format!("{} summarized message(s) call tools; the summarizer sees none of the calls or their arguments", with_calls.len()),
            messages: with_calls,
        });
    }
    let session = input.session;
    let has =
        |i: usize, f: fn(&crate::session::Part) -> bool| session.messages[i].parts.iter().any(f);
    let reasoning: Vec<usize> = gone
        .iter()
        .map(|m| m.index)
        .filter(|&i| has(i, |p| matches!(p, crate::session::Part::Reasoning { .. })))
        .collect();
    if !reasoning.is_empty() {
        out.push(Finding {
            code: "reasoning-dropped",
            severity: Severity::Info,
            detail: "reasoning of summarized messages is not shown to the summarizer".into(),
            messages: reasoning,
        });
    }
    let images: Vec<usize> = gone
        .iter()
        .map(|m| m.index)
        .filter(|&i| has(i, |p| matches!(p, crate::session::Part::Image(_))))
        .collect();
    if !images.is_empty() {
        out.push(Finding {
            code: "image-dropped",
            severity: Severity::Warn,
            detail: "images of summarized messages are not shown to the summarizer".into(),
            messages: images,
        });
    }
    let tail_tokens: u64 = tail_costs.iter().sum();
    if tail_tokens as f64 > threshold {
        out.push(Finding {
            code: "compacts-every-turn",
            severity: Severity::Warn,
            messages: tail.iter().map(|m| m.index).collect(),
            detail: format!("the kept tail alone estimates {tail_tokens} tokens, over the trigger of {threshold:.0}: the next turn compacts again"),
        });
    }
    out
}

/// dimos' `resolve_context_window`: text up to the first `:` dropped, lower-cased, longest
/// prefix of its own table, else 128,000.
pub fn resolve_context_window(model: &str) -> u64 {
    let name = model
        .split_once(':')
        .map_or(model, |(_, rest)| rest)
        .to_ascii_lowercase();
    const TABLE: &[(&str, u64)] = &[
        ("gpt-3.5", 16_385),
        ("gpt-4", 8_192),
        ("gpt-4o", 128_000),
        ("gpt-4-turbo", 128_000),
        ("gpt-4.1", 1_047_576),
        ("gpt-5", 400_000),
        ("o1", 200_000),
        ("o3", 200_000),
        ("o4", 200_000),
        ("claude-3", 200_000),
        ("claude-4", 200_000),
        ("claude-sonnet", 200_000),
        ("claude-opus", 200_000),
        ("claude-haiku", 200_000),
        ("gemini-1.5", 1_048_576),
        ("gemini-2", 1_048_576),
        ("llama3", 8_192),
        ("llama3.1", 131_072),
        ("qwen2.5", 32_768),
        ("mistral", 32_768),
    ];
    TABLE
        .iter()
        .filter(|(p, _)| name.starts_with(p))
        .max_by_key(|(p, _)| p.len())
        .map_or(128_000, |(_, w)| *w)
}

#[cfg(test)]
mod prompt_tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// The prompt as built before: every line written, joined, then cut.
    fn summarizer_prompt_oracle(gone: &[LcMessage], max_chars: usize) -> (String, usize) {
        let lines: Vec<String> = gone
            .iter()
            .filter_map(|m| {
                let text = m.first_text();
                (!text.is_empty()).then(|| format!("{}: {}", m.class, text))
            })
            .collect();
        let transcript = lines.join("\n");
        let len = transcript.chars().count();
        if len <= max_chars {
            return (format!("{PROMPT}\n\n{transcript}"), 0);
        }
        let tail: String = transcript.chars().skip(len - max_chars).collect();
        (format!("{PROMPT}\n\n...\n{tail}"), len - max_chars)
    }

    proptest! {
        /// Only the shown lines written, the prompt is the one every line written and cut gives.
        #[test]
        fn the_prompt_cut_from_its_last_lines_is_the_whole_transcript_s(
            texts in proptest::collection::vec(("[ \\na-zé]{0,30}", any::<bool>()), 0..12),
            max_chars in 0usize..120,
        ) {
            let gone: Vec<LcMessage> = texts
                .iter()
                .enumerate()
                .map(|(index, (t, blocks))| LcMessage {
                    index,
                    kind: LcKind::Human,
                    class: if index % 2 == 0 { "HumanMessage" } else { "AIMessage" },
                    content: LcContent::from_value(if *blocks {
                        json!([{"type": "text", "text": t}])
                    } else {
                        json!(t)
                    }),
                    tool_calls: Vec::new(),
                })
                .collect();
            prop_assert_eq!(
                summarizer_prompt(&gone, max_chars),
                summarizer_prompt_oracle(&gone, max_chars)
            );
        }
    }
}
