//! SWE-agent trajectories (`.traj`): one JSON document per run, as `Agent.save_trajectory`
//! writes it (SWE-agent's `sweagent/agent/agents.py`, types in `sweagent/types.py`):
//! `history` (the chat messages the model is sent), `trajectory` (one step per action),
//! `info` (`model_stats`, `exit_status`, `submission`), and from 1.0 on `environment` and
//! `replay_config`.
//!
//! Owns: recognising the document, choosing what the context is (`history` when present, else
//! the `trajectory` steps) and the run's metadata (the model named in `replay_config`). Turning
//! history items into messages is `history`'s job, steps `steps`'.
//!
//! `info.model_stats` only holds totals over every call (`tokens_sent` adds up each call's
//! prompt), not one request's context, so no message carries it as usage.

mod history;
mod steps;

#[cfg(test)]
mod tests;

use serde_json::Value;

use super::common::{str_at, Doc, Loaded};
use super::LoadError;
use crate::session::{Format, Session};

/// SWE-agent trajectories in the format registry.
pub struct SweAgent;

impl super::session_format::SessionFormat for SweAgent {
    fn format(&self) -> Format {
        Format::SWE_AGENT
    }

    fn description(&self) -> &'static str {
        "SWE-agent trajectory (.traj: history, trajectory and info of one run)"
    }

    /// A `trajectory` list of steps (`action` with `observation` or `response`; empty when the
    /// run ended before its first step) beside a `history` list or an `info` object, or a `history` list of SWE-agent's own items (`role` with
    /// `agent` or `message_type`).
    fn sniff_document(&self, v: &Value) -> bool {
        let Some(obj) = v.as_object() else {
            return false;
        };
        let steps = obj.get("trajectory").and_then(Value::as_array);
        let history = obj.get("history").and_then(Value::as_array);
        let step_like = |s: &Value| {
            s.get("action").is_some()
                && (s.get("observation").is_some() || s.get("response").is_some())
        };
        let by_steps = steps.is_some_and(|s| s.is_empty() || s.iter().take(8).any(step_like))
            && (history.is_some() || obj.get("info").is_some_and(Value::is_object));
        let item_like = |m: &Value| {
            m.get("role").is_some_and(Value::is_string)
                && (m.get("agent").is_some() || m.get("message_type").is_some())
        };
        let by_history = history.is_some_and(|h| !h.is_empty() && h.iter().take(8).all(item_like));
        by_steps || by_history
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let doc = match (&loaded.doc, loaded.document()) {
        (Doc::Zip, _) | (_, None) => None,
        (_, Some(doc)) => Some(doc).filter(|d| d.is_object()),
    };
    let doc = doc.ok_or_else(|| {
        LoadError::not_session(&loaded.shown, "expected one SWE-agent trajectory document")
    })?;
    let mut session = super::start(Format::SWE_AGENT, loaded);
    session.model = model(doc);
    if doc.get("history").is_some_and(Value::is_array) {
        let items = loaded.items(&["history"]);
        session.source.records = items.len();
        session.source.record_indices = (0..items.len()).collect();
        history::read(&mut session, &items);
    } else {
        let items = loaded.items(&["trajectory"]);
        session.source.records = items.len();
        session.source.record_indices = (0..items.len()).collect();
        steps::read(&mut session, &items);
    }
    Ok(session)
}

/// The model of the run: `replay_config` (a JSON string from 1.0 on, an object in some runs)
/// names it at `agent.model.name`.
fn model(doc: &Value) -> Option<String> {
    let config = doc.get("replay_config")?;
    let parsed;
    let config = match config {
        Value::String(text) => {
            parsed = serde_json::from_str::<Value>(text).ok()?;
            &parsed
        }
        other => other,
    };
    let name = str_at(config.pointer("/agent/model")?, "name")?;
    Some(name.to_string())
}
