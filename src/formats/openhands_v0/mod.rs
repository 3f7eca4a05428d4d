//! OpenHands 0.x trajectories: the UI's "export trajectory" JSON array of actions and
//! observations (or one stored event object from `sessions/<sid>/events/<n>.json`).
//!
//! Owns: mapping V0 events onto the common model the way V0's `ConversationMemory` turns them
//! into LLM messages (which event becomes which role, what text is sent), without its
//! templates, truncation or vision switches: a result's text is the observation's `content`
//! as stored. Tokens, presets and rendering are not its business.

mod events;
mod fields;

#[cfg(test)]
mod tests;

use serde_json::Value;

use super::common::{Doc, Item, Loaded};
use super::LoadError;
use crate::session::{Format, Session};

/// OpenHands 0.x trajectories in the format registry.
pub struct OpenHandsV0;

impl super::session_format::SessionFormat for OpenHandsV0 {
    fn format(&self) -> Format {
        Format::OPENHANDS_V0
    }

    fn description(&self) -> &'static str {
        "OpenHands 0.x trajectory export (JSON array of actions and observations)"
    }

    /// An array holding an event with a numeric `id`, a `source` and an action or observation.
    fn sniff_document(&self, v: &Value) -> bool {
        let items = v.as_array().map(|a| a.iter().take(64));
        items.into_iter().flatten().any(|e| {
            e.get("id").is_some_and(Value::is_u64)
                && matches!(
                    e.get("source").and_then(Value::as_str),
                    Some("user" | "agent" | "environment")
                )
                && (e.get("action").is_some() || e.get("observation").is_some())
        })
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }

    fn picker_role(&self) -> &'static str {
        "agent_openhands"
    }

    fn picker_place(&self, names: &[String]) -> Option<String> {
        names.last().cloned()
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let items = match loaded.document() {
        Some(Value::Array(_)) => loaded.items(&[]),
        Some(value @ Value::Object(_)) => vec![Item {
            index: 0,
            range: whole_range(loaded),
            value,
        }],
        _ => {
            let why = match loaded.doc {
                Doc::Zip => "a zip archive, not an OpenHands trajectory",
                Doc::Text(_) => "text, not an OpenHands trajectory",
                _ => "expected a JSON array of OpenHands events",
            };
            return Err(LoadError::not_session(&loaded.shown, why));
        }
    };
    let mut builder = events::Builder::new(super::start(Format::OPENHANDS_V0, loaded));
    for item in &items {
        builder.event(item);
    }
    Ok(builder.finish())
}

/// Reads V0 events another source holds (an evaluation output's `history`) into `session`.
pub(crate) fn read_events(session: Session, items: &[Item<'_>]) -> Session {
    let mut builder = events::Builder::new(session);
    for item in items {
        builder.event(item);
    }
    builder.finish()
}

/// The byte range of a one-object document (without trailing whitespace).
fn whole_range(loaded: &Loaded) -> Option<(usize, usize)> {
    if let Some(line) = loaded.lines().first() {
        return line.range;
    }
    let end = loaded
        .buffer
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(loaded.start, |i| i + 1);
    Some((loaded.start, end.max(loaded.start)))
}
