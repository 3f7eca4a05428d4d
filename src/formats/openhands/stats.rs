//! Per-request usage from OpenHands' cumulative counters.
//!
//! `ConversationStateUpdateEvent{key: "stats"}` carries, per LLM `usage_id`, the
//! `accumulated_token_usage` of every call so far. The SDK records no per-call usage in the
//! events, so a request's figures are the difference between two successive snapshots. The
//! `condenser` usage id is the summarizer's spend and never belongs to a conversation message.
//! `prompt_tokens` counts cached tokens (litellm/OpenAI convention).

use std::collections::HashMap;

use serde_json::Value;

use crate::formats::common::{str_at, u64_at};
use crate::session::Usage;

/// The summarizer's counters.
const CONDENSER: &str = "condenser";

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counters {
    prompt: u64,
    completion: u64,
    cache_read: u64,
    cache_write: u64,
    reasoning: u64,
}

impl Counters {
    fn read(usage: &Value) -> Counters {
        let n = |key: &str| u64_at(usage, key).unwrap_or(0);
        Counters {
            prompt: n("prompt_tokens"),
            completion: n("completion_tokens"),
            cache_read: n("cache_read_tokens"),
            cache_write: n("cache_write_tokens"),
            reasoning: n("reasoning_tokens"),
        }
    }

    /// `self - base`, or `None` when a counter went down (counters were reset).
    fn since(self, base: Counters) -> Option<Counters> {
        Some(Counters {
            prompt: self.prompt.checked_sub(base.prompt)?,
            completion: self.completion.checked_sub(base.completion)?,
            cache_read: self.cache_read.checked_sub(base.cache_read)?,
            cache_write: self.cache_write.checked_sub(base.cache_write)?,
            reasoning: self.reasoning.checked_sub(base.reasoning)?,
        })
    }
}

/// One request's usage, recovered from a stats update.
#[derive(Debug, Clone)]
pub(super) struct Delta {
    pub usage: Usage,
    pub model: Option<String>,
}

/// What a stats snapshot says beyond per-request usage.
#[derive(Debug, Default)]
pub(super) struct Snapshot {
    pub delta: Option<Delta>,
    pub model: Option<String>,
    pub context_window: Option<u64>,
}

/// The last counters seen per usage id.
#[derive(Debug, Default)]
pub(super) struct Tracker {
    seen: HashMap<String, Counters>,
    /// The agent LLM's usage id, when `base_state.json` names it.
    agent: Option<String>,
}

impl Tracker {
    pub fn new(agent: Option<String>) -> Tracker {
        Tracker {
            seen: HashMap::new(),
            agent,
        }
    }

    /// Reads a `ConversationStats` value (`{usage_to_metrics: {<usage_id>: MetricsSnapshot}}`).
    /// With `baseline_only` (a `full_state` snapshot) the counters are only remembered.
    pub fn update(&mut self, stats: &Value, baseline_only: bool) -> Snapshot {
        let mut snapshot = Snapshot::default();
        let Some(metrics) = stats.get("usage_to_metrics").and_then(Value::as_object) else {
            return snapshot;
        };
        let mut changed: Vec<(&str, Counters, u64, Option<String>)> = Vec::new();
        for (usage_id, m) in metrics {
            let Some(acc) = m.get("accumulated_token_usage").filter(|a| a.is_object()) else {
                continue;
            };
            let now = Counters::read(acc);
            let before = self.seen.insert(usage_id.clone(), now).unwrap_or_default();
            if usage_id == CONDENSER {
                continue;
            }
            let model = str_at(m, "model_name")
                .or_else(|| str_at(acc, "model"))
                .map(str::to_string);
            if let Some(window) = u64_at(acc, "context_window").filter(|w| *w > 0) {
                snapshot.context_window = Some(window.max(snapshot.context_window.unwrap_or(0)));
            }
            let is_agent = self.agent.as_deref() == Some(usage_id.as_str());
            if model.is_some() && (is_agent || snapshot.model.is_none()) {
                snapshot.model = model.clone();
            }
            if now != before {
                if let Some(diff) = now.since(before) {
                    let per_turn = u64_at(acc, "per_turn_token").unwrap_or(0);
                    changed.push((usage_id.as_str(), diff, per_turn, model));
                }
            }
        }
        if !baseline_only {
            snapshot.delta = self.pick(changed);
        }
        snapshot
    }

    /// The one request this update reports, if it can be told apart: the agent's usage id when
    /// known, else the only usage id that moved. A difference that does not add up to
    /// `per_turn_token` (the last call's prompt + completion) spans several calls and is not
    /// attributed to any one message.
    fn pick(&self, changed: Vec<(&str, Counters, u64, Option<String>)>) -> Option<Delta> {
        let chosen = match &self.agent {
            Some(agent) if changed.iter().any(|c| c.0 == agent) => {
                changed.into_iter().find(|c| c.0 == agent)
            }
            _ if changed.len() == 1 => changed.into_iter().next(),
            _ => None,
        };
        let (_, diff, per_turn, model) = chosen?;
        if per_turn > 0 && per_turn != diff.prompt + diff.completion {
            return None;
        }
        let usage = Usage {
            input: Some(diff.prompt),
            output: Some(diff.completion),
            cache_read: Some(diff.cache_read),
            cache_write: Some(diff.cache_write),
            reasoning: Some(diff.reasoning),
            total: None,
            input_includes_cache: true,
        };
        Some(Delta { usage, model })
    }
}
