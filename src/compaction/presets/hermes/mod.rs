//! `hermes`: hermes-agent 0.19.0 `ContextCompressor`, proven against the real compressor
//! (tools/oracle/hermes → fixtures/oracle/hermes).
//!
//! Trigger: `estimate_messages_tokens_rough` — `(Σ len(str(msg_dict)) + 3)//4` — at or over
//! `threshold_tokens` (window from `config_context_length`, `--window`, or Hermes' model table;
//! percent raised to 0.75 under 512K; floor 64,000; 85% when the floor eats the window). Cut and
//! summarizer input: `prune` (one-line old tool outputs), `cut` (head / tail), `render`
//! (labelled turns, caps, prompt). Insertion and tool-pair cleanup: `assemble`. Settings beyond
//! the constructor: `compression_count` (compactions this compressor already ran: the head
//! decays to the system prompt), the auxiliary summarizer window (`aux_context_length`,
//! `aux_fit`) and newer Hermes' bounded summarizer input (`max_summary_input_chars`). Offline
//! summary: Hermes' own static fallback (`fallback`), as it writes it when no summarizer is
//! reachable; the insertion carries its prefix and the `--- END OF CONTEXT SUMMARY` marker.
//! After the compaction (`compacted`, `summary`): the message dicts `compress()` returns,
//! proven against the same goldens. Carried from one compaction to the next (`replay`):
//! `compression_count` (head decay, the lowered auxiliary threshold) and the anti-thrashing
//! `ineffective_compression_count` (two compactions in a row that leave the history at or over
//! the threshold block automatic compression).

mod assemble;
mod compacted;
mod cut;
mod fallback;
mod findings;
mod msgs;
mod prune;
mod py;
mod redact;
mod render;
mod summary;
mod text;
mod window;

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::compaction::after::{self, After};
use crate::compaction::plan::{
    common_findings, Insertion, Made, Plan, PromptMessage, PromptRole, SessionKey, Split, Trigger,
};
use crate::compaction::preset::{Done, PlanError, PlanInput, Preset};
use crate::compaction::quiet::Memo;
use crate::compaction::settings::{Kind, ParamSpec, Settings};
use crate::session::Format;

use msgs::HMsg;

pub struct Hermes;

const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "model", kind: Kind::Str, default: "null", nullable: true, help: "model name for Hermes' window table; null uses --model or the session's model" },
    ParamSpec { name: "threshold_percent", kind: Kind::Float, default: "0.5", nullable: false, help: "compress at this share of the window (raised to 0.75 under 512K)" },
    ParamSpec { name: "protect_first_n", kind: Kind::Int, default: "3", nullable: false, help: "messages after the system prompt kept verbatim (first compaction only)" },
    ParamSpec { name: "protect_last_n", kind: Kind::Int, default: "20", nullable: false, help: "minimum protected tail for pruning; tail floor min(n, 8)" },
    ParamSpec { name: "summary_target_ratio", kind: Kind::Float, default: "0.2", nullable: false, help: "tail token budget = threshold × ratio (clamped 0.10–0.80)" },
    ParamSpec { name: "config_context_length", kind: Kind::Int, default: "null", nullable: true, help: "explicit window (model.context_length); null: --window or the model table" },
    ParamSpec { name: "max_tokens", kind: Kind::Int, default: "null", nullable: true, help: "output reservation carved out of the window" },
    ParamSpec { name: "focus_topic", kind: Kind::Str, default: "null", nullable: true, help: "/compress <focus>; null derives 'Recent user focus' from the last 3 user turns" },
    ParamSpec { name: "compression_count", kind: Kind::Int, default: "0", nullable: false, help: "compactions this compressor already ran in the process (≥1: head decays to the system prompt; aux check already applied)" },
    ParamSpec { name: "aux_context_length", kind: Kind::Int, default: "null", nullable: true, help: "auxiliary summarizer window (auxiliary.compression.context_length); null: the main model summarizes" },
    ParamSpec { name: "aux_fit", kind: Kind::Bool, default: "false", nullable: false, help: "false: 0.19 lowers the session threshold to the aux window; true: fit the summarizer input to it instead" },
    ParamSpec { name: "ineffective_compression_count", kind: Kind::Int, default: "0", nullable: false, help: "compactions in a row that left the history at or over the threshold (≥2: automatic compression is blocked)" },
    ParamSpec { name: "max_summary_input_chars", kind: Kind::Int, default: "null", nullable: true, help: "bound the serialized turns (newer Hermes: 160000); null: no total cap, as in 0.19.0" },
];

/// Resolved settings.
#[derive(Debug, Clone)]
pub struct Config {
    pub budgets: window::Budgets,
    /// Threshold at construction, before any auxiliary lowering.
    pub original_threshold: u64,
    pub protect_first_n: usize,
    pub protect_last_n: usize,
    pub compression_count: usize,
    /// `_ineffective_compression_count`: at 2 or more `should_compress()` says no.
    pub ineffective: usize,
    pub focus_topic: Option<String>,
    pub aux: Option<u64>,
    pub aux_fit: bool,
    pub max_input_chars: Option<usize>,
}

const ESTIMATOR: &str =
    "Hermes estimate_messages_tokens_rough: (Σ len(str(message dict)) + 3)//4, +1500 per image";

fn config(input: &PlanInput, s: &Settings) -> Result<Config, PlanError> {
    let int = |name: &str| s.int(name).map(|v| v.max(0) as u64);
    let model = s
        .str("model")
        .map(str::to_string)
        .or_else(|| input.model.map(str::to_string))
        .or_else(|| input.session.model.clone());
    let context_length = match (
        int("config_context_length").filter(|&w| w > 0),
        input.window_flag,
    ) {
        (Some(w), _) | (None, Some(w)) => w,
        (None, None) => model
            .as_deref()
            .map_or(input.window, window::table_context_length),
    };
    if context_length == 0 {
        return Err(PlanError::Invalid {
            preset: "hermes".into(),
            message: "the context window must be positive".into(),
        });
    }
    let mut budgets = window::budgets(
        context_length,
        s.float("threshold_percent").unwrap_or(0.5),
        int("max_tokens"),
        s.float("summary_target_ratio").unwrap_or(0.2),
    );
    let original_threshold = budgets.threshold_tokens;
    let compression_count = int("compression_count").unwrap_or(0) as usize;
    let aux = int("aux_context_length");
    let aux_fit = s.bool("aux_fit").unwrap_or(false);
    if let Some(a) =
        aux.filter(|&a| !aux_fit && compression_count >= 1 && a >= window::MINIMUM_CONTEXT_LENGTH)
    {
        if a < budgets.threshold_tokens {
            budgets.threshold_tokens = a;
            budgets.threshold_percent = a as f64 / context_length as f64;
        }
    }
    Ok(Config {
        budgets,
        original_threshold,
        protect_first_n: int("protect_first_n").unwrap_or(3) as usize,
        protect_last_n: int("protect_last_n").unwrap_or(20) as usize,
        compression_count,
        ineffective: int("ineffective_compression_count").unwrap_or(0) as usize,
        focus_topic: s.str("focus_topic").map(str::to_string),
        aux,
        aux_fit,
        max_input_chars: int("max_summary_input_chars").map(|v| v as usize),
    })
}

impl Preset for Hermes {
    fn name(&self) -> &'static str {
        "hermes"
    }
    fn framework(&self) -> &'static str {
        "hermes-agent 0.19.0 ContextCompressor"
    }
    fn description(&self) -> &'static str {
        "chars/4 over str(message) ≥ threshold; old tool outputs pruned to one-liners; head + token-budget tail kept; 6,000-char per-message caps; auxiliary window lowers the threshold"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    /// The compressor counts its compactions (`compression_count`): from the first on, the head
    /// decays to the system prompt and the auxiliary-window check has run. Its anti-thrashing
    /// verdict (`update_from_response` after each compaction) counts compactions whose result
    /// is still at or over the threshold and resets on one that is not; it is judged here on
    /// Hermes' own estimate of the compacted history (a replay has no provider count).
    fn carried_settings(&self, settings: &Settings, done: &[Done]) -> Vec<String> {
        let count = |name: &str| settings.int(name).unwrap_or(0).max(0) as usize;
        let ineffective = ineffective_after(count("ineffective_compression_count"), done);
        vec![
            format!(
                "compression_count={}",
                count("compression_count") + done.len()
            ),
            format!("ineffective_compression_count={ineffective}"),
        ]
    }

    /// The dicts `compress()` returns, read back as an OpenAI chat session.
    fn compacted(&self, input: &PlanInput, plan: &Plan, summary: Option<&str>) -> After {
        let history = Value::Array(compacted_history(input, plan, summary));
        input
            .read_back(history, Format::OPENAI_CHAT)
            .unwrap_or_else(|_| after::generic(input.session, plan, summary))
    }

    /// `_compute_summary_budget`, as the prompt states it: `Target ~N tokens.`
    fn summary_budget(&self, plan: &Plan) -> Option<usize> {
        let prompt = &plan.summarizer.last()?.content;
        let at = prompt.rfind("Target ~")? + "Target ~".len();
        let digits: String = prompt[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        prompt[at + digits.len()..]
            .starts_with(" tokens")
            .then(|| digits.parse().ok())
            .flatten()
    }

    /// The rough estimate kept as running sums of each message's characters and images.
    fn quiet_trigger(
        &self,
        input: &PlanInput,
        settings: &Settings,
        memo: &mut Memo,
    ) -> Option<Trigger> {
        let cfg = config(input, settings).ok()?;
        let session = input.session;
        let [chars, images, ..] = memo.fold("hermes", session.messages.len(), |acc, i| {
            if let Some(m) = msgs::message(session, &session.messages[i]) {
                let (c, n) = msgs::rough_size(&m);
                acc[0] += c as u64;
                acc[1] += n as u64;
            }
        });
        let measure = msgs::rough_tokens(chars as usize, images as usize);
        let over = measure >= cfg.budgets.threshold_tokens;
        let blocked = over && cfg.ineffective >= 2;
        (!over || blocked).then(|| Trigger {
            fired: false,
            measure: "tokens",
            value: measure,
            threshold: cfg.budgets.threshold_tokens,
            reason: quiet_reason(&cfg, measure, blocked),
            estimator: ESTIMATOR.into(),
        })
    }

    fn plan(&self, input: &PlanInput, settings: &Settings) -> Result<Plan, PlanError> {
        let cfg = config(input, settings)?;
        let history = msgs::messages(input.session);
        let measure = msgs::estimate_messages(&history);
        let over = measure >= cfg.budgets.threshold_tokens;
        let blocked = over && cfg.ineffective >= 2;
        let fired = over && !blocked;
        let outcome = if fired {
            assemble::compress(&history, &cfg, input.now)
        } else {
            assemble::Outcome::unchanged(&history, "below the threshold")
        };
        let trigger = Trigger {
            fired,
            measure: "tokens",
            value: measure,
            threshold: cfg.budgets.threshold_tokens,
            reason: trigger_reason(&cfg, measure, (fired, blocked), &outcome),
            estimator: ESTIMATOR.into(),
        };
        let split = outcome.split(&history);
        let mut all = common_findings(input.session, &split, &trigger, input.real_tokens());
        all.extend(findings::hermes_findings(
            input.session,
            &history,
            &cfg,
            &outcome,
            fired,
        ));
        let summarizer = outcome
            .prompt
            .iter()
            .map(|p| PromptMessage {
                role: PromptRole::User,
                content: p.clone(),
            })
            .collect();
        let insertion = outcome.insertion.as_ref().map(|ins| Insertion {
            role: ins.role,
            position: ins.position,
            prefix: ins.prefix.clone(),
            suffix: format!("\n\n{}", text::SUMMARY_END_MARKER),
            replaces: ins
                .merged_into
                .and_then(|p| history.get(p))
                .map(|m| m.index),
        });
        // A fired plan that is carried out (every one of a replay's) keeps its compression for
        // the digest and the compaction.
        let made = if fired && (input.parsed.is_some() || input.carries_out) {
            Made::keep(Kept {
                session: SessionKey::of(input.session),
                outcome,
                fallback: OnceLock::new(),
            })
        } else {
            Made::default()
        };
        Ok(Plan {
            preset: self.name(),
            framework: self.framework(),
            settings: settings.clone(),
            trigger,
            split,
            summarizer,
            deferred: None,
            insertion,
            findings: all,
            made,
        })
    }

    /// The static fallback summary Hermes writes when no summarizer is reachable (the failure
    /// `no auxiliary LLM provider configured`, which does not abort): everything after the
    /// `SUMMARY_PREFIX` line the insertion already carries.
    fn offline_summary(&self, input: &PlanInput, plan: &Plan) -> Option<String> {
        compression(input, plan, |c| {
            c.outcome.insertion.as_ref()?;
            c.fallback()
                .strip_prefix(text::SUMMARY_PREFIX)
                .and_then(|rest| rest.strip_prefix('\n'))
                .map(str::to_string)
        })?
    }
}

/// The list `compress()` returns for a fired `plan` with `summary` (the summarizer's text as
/// returned; Hermes' static fallback, or none, inserts the fallback as Hermes builds it); the
/// list unchanged when nothing is compacted.
fn compacted_history(input: &PlanInput, plan: &Plan, summary: Option<&str>) -> Vec<Value> {
    let unchanged = || {
        msgs::messages(input.session)
            .into_iter()
            .map(|m| Value::Object(Arc::unwrap_or_clone(m.v)))
            .collect()
    };
    let list = compression(input, plan, |c| {
        let fallback = c.fallback();
        let fallback_body = fallback
            .strip_prefix(text::SUMMARY_PREFIX)
            .and_then(|rest| rest.strip_prefix('\n'));
        let inserted = match summary {
            Some(s) if fallback_body != Some(s) => summary::from_model(s, &c.outcome.turns),
            _ => fallback,
        };
        compacted::compressed(c.outcome, &inserted)
    });
    match list.flatten() {
        Some(list) => list.into_iter().map(Value::Object).collect(),
        None => unchanged(),
    }
}

/// What a fired plan's compression left, kept in a replay for the session the plan was made
/// of: the offline digest and the compaction read it instead of compressing again (the
/// compression without the prompt is the same but for the prompt's own cuts).
struct Kept {
    session: SessionKey,
    outcome: assemble::Outcome,
    /// Hermes' static fallback summary of the outcome, made once.
    fallback: OnceLock<String>,
}

/// The compression a fired plan stands for: the one it kept (in a replay), or made again.
struct Compression<'a> {
    outcome: &'a assemble::Outcome,
    kept: Option<&'a Kept>,
}

impl Compression<'_> {
    /// Hermes' static fallback summary of the compression (`no auxiliary LLM provider
    /// configured`), made once for a kept one.
    fn fallback(&self) -> String {
        let make = || {
            fallback::fallback_summary(
                &self.outcome.turns,
                self.outcome.carries_summary,
                Some(fallback::NO_PROVIDER_REASON),
            )
        };
        match self.kept {
            Some(k) => k.fallback.get_or_init(make).clone(),
            None => make(),
        }
    }
}

/// `use_it` of the compression `plan` stands for; `None` when the plan did not fire or its
/// settings do not resolve.
fn compression<R>(
    input: &PlanInput,
    plan: &Plan,
    use_it: impl FnOnce(Compression<'_>) -> R,
) -> Option<R> {
    if !plan.trigger.fired {
        return None;
    }
    let kept = plan
        .made
        .get::<Kept>()
        .filter(|k| k.session == SessionKey::of(input.session));
    if let Some(kept) = kept {
        return Some(use_it(Compression {
            outcome: &kept.outcome,
            kept: Some(kept),
        }));
    }
    let cfg = config(input, &plan.settings).ok()?;
    let history = msgs::messages(input.session);
    let outcome = assemble::compress_history(&history, &cfg, input.now);
    Some(use_it(Compression {
        outcome: &outcome,
        kept: None,
    }))
}

fn trigger_reason(
    cfg: &Config,
    measure: u64,
    (fired, blocked): (bool, bool),
    outcome: &assemble::Outcome,
) -> String {
    if blocked || !fired {
        return quiet_reason(cfg, measure, blocked);
    }
    let rule = rule(cfg);
    if outcome.prompt.is_some() {
        format!("estimate {measure} ≥ {rule}")
    } else {
        format!("estimate {measure} ≥ {rule}, but {}", outcome.note)
    }
}

fn rule(cfg: &Config) -> String {
    let b = &cfg.budgets;
    format!(
        "threshold_tokens {} (context_length {} × threshold_percent {})",
        b.threshold_tokens, b.context_length, b.threshold_percent
    )
}

/// Why the trigger does not fire: below the threshold, or blocked by the anti-thrashing guard.
fn quiet_reason(cfg: &Config, measure: u64, blocked: bool) -> String {
    let rule = rule(cfg);
    if blocked {
        return format!(
            "estimate {measure} ≥ {rule}, but automatic compression is blocked: {} compactions in a row left the history at or over the threshold (anti-thrashing; /compress still runs)",
            cfg.ineffective
        );
    }
    format!("estimate {measure} < {rule}")
}

/// Positions in `history` → session message indices.
fn indices(history: &[HMsg], positions: impl IntoIterator<Item = usize>) -> Vec<usize> {
    positions
        .into_iter()
        .filter_map(|p| history.get(p).map(|m| m.index))
        .collect()
}

impl assemble::Outcome {
    fn split(&self, history: &[HMsg]) -> Split {
        Split {
            pinned: indices(history, self.head.iter().copied()),
            summarized: indices(history, self.summarized.iter().copied()),
            kept: indices(history, self.tail.iter().copied()),
            dropped: indices(history, self.dropped.iter().copied()),
        }
    }
}

/// `_ineffective_compression_count` after the compactions `done`, from `start` before them: an
/// ineffective compaction (the history left at or over the threshold) adds one, an effective one
/// starts again from 0. Read back from the last compaction, so a replay that asks after each
/// one does not fold its whole past every time (the run read is at most the two ineffective
/// compactions that block the next).
fn ineffective_after(start: usize, done: &[Done]) -> usize {
    let ineffective = |d: &Done| d.after.value >= d.after.threshold;
    let run = done.iter().rev().take_while(|d| ineffective(d)).count();
    if run == done.len() {
        start + run
    } else {
        run
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::plan::Trigger;
    use proptest::prelude::*;

    fn done(value: u64) -> Done {
        let trigger = Trigger {
            fired: true,
            measure: "tokens",
            value,
            threshold: 100,
            reason: String::new(),
            estimator: String::new(),
        };
        Done {
            before: trigger.clone(),
            after: trigger,
        }
    }

    proptest! {
        /// The count read back from the last compaction is the framework's count, kept
        /// compaction by compaction from the first.
        #[test]
        fn the_ineffective_count_is_the_count_kept_compaction_by_compaction(
            start in 0usize..4,
            values in proptest::collection::vec(prop_oneof![Just(50u64), Just(100), Just(150)], 0..12),
        ) {
            let all: Vec<Done> = values.iter().map(|&v| done(v)).collect();
            let mut kept = start;
            for d in &all {
                kept = if d.after.value >= d.after.threshold { kept + 1 } else { 0 };
            }
            prop_assert_eq!(ineffective_after(start, &all), kept);
        }
    }
}
