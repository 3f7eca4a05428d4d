//! SWE-agent trajectories (`.traj`): one JSON document per run, as `Agent.save_trajectory`
//! writes it (SWE-agent's `sweagent/agent/agents.py`, types in `sweagent/types.py`):
//! `history` (the chat messages the model is sent), `trajectory` (one step per action),
//! `info` (`model_stats`, `exit_status`, `submission`), and from 1.0 on `environment` and
//! `replay_config`.
//!
//! Owns: recognising the document, choosing what the context is (`history` when present, else
//! the `trajectory` steps), the run's metadata (the model named in `replay_config`), and a
//! retry loop's `attempts` (each attempt a child session; the document itself holds the chosen
//! attempt's run when the loop chose one). Turning
//! history items into messages is `history`'s job, steps `steps`'.
//!
//! `info.model_stats` only holds totals over every call (`tokens_sent` adds up each call's
//! prompt), not one request's context, so no message carries it as usage.

mod history;
mod steps;

#[cfg(test)]
mod tests;

use std::ops::Range;
use std::sync::Arc;

use serde_json::Value;

use super::common::{str_at, Doc, Item, Loaded};
use super::{spans, LoadError};
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

    /// A run (see [`looks_like_run`]), or a retry loop's `attempts` list of runs.
    fn sniff_document(&self, v: &Value) -> bool {
        let attempts = v.get("attempts").and_then(Value::as_array);
        looks_like_run(v) || attempts.and_then(|a| a.first()).is_some_and(looks_like_run)
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
    if is_run(doc) {
        read_run(&mut session, &loaded.buffer, doc, loaded.document_range());
    }
    // A retry loop's every attempt, each a run of its own (the document itself holds the chosen
    // one, if any).
    for (n, attempt) in loaded.items(&["attempts"]).iter().enumerate() {
        let mut child = Session::new(
            Format::SWE_AGENT,
            loaded.shown.clone(),
            Arc::clone(&loaded.buffer),
        );
        child.title = Some(format!("attempt {}", n + 1));
        child.model = model(attempt.value);
        if is_run(attempt.value) {
            read_run(&mut child, &loaded.buffer, attempt.value, attempt.range());
        } else {
            session.skip(
                n + 1,
                format!("attempt {} holds neither `history` nor `trajectory`", n + 1),
            );
        }
        session.children.push(child);
    }
    Ok(session)
}

/// A `trajectory` list of steps (`action` with `observation` or `response`; empty when the run
/// ended before its first step) beside a `history` list or an `info` object, or a `history`
/// list of SWE-agent's own items (`role` with `agent` or `message_type`).
fn looks_like_run(v: &Value) -> bool {
    let Some(obj) = v.as_object() else {
        return false;
    };
    let steps = obj.get("trajectory").and_then(Value::as_array);
    let history = obj.get("history").and_then(Value::as_array);
    let step_like = |s: &Value| {
        s.get("action").is_some() && (s.get("observation").is_some() || s.get("response").is_some())
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

fn is_run(v: &Value) -> bool {
    v.get("history").is_some_and(Value::is_array)
        || v.get("trajectory").is_some_and(Value::is_array)
}

/// Reads one run (the document, or one of its `attempts`, lying at `range` in `buffer`):
/// its `history` when present, else its `trajectory`.
fn read_run(session: &mut Session, buffer: &[u8], run: &Value, range: Option<Range<usize>>) {
    let key = if run.get("history").is_some_and(Value::is_array) {
        "history"
    } else {
        "trajectory"
    };
    let empty = Vec::new();
    let list = run.get(key).and_then(Value::as_array).unwrap_or(&empty);
    let ranges = range
        .and_then(|r| spans::array_items(buffer, r, &[key]))
        .filter(|r| r.len() == list.len());
    let items: Vec<Item<'_>> = list
        .iter()
        .enumerate()
        .map(|(index, value)| Item {
            index,
            range: ranges.as_ref().map(|r| (r[index].start, r[index].end)),
            value,
        })
        .collect();
    session.source.records = items.len();
    session.source.record_indices = (0..items.len()).collect();
    if key == "history" {
        history::read(session, &items);
    } else {
        steps::read(session, &items);
    }
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
