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
                _ => "expected a JSON array of OpenHands events",
            };
            return Err(LoadError::not_session(&loaded.shown, why));
        }
    };
    let mut builder = events::Builder::new(super::start(Format::OpenHandsV0, loaded));
    for item in &items {
        builder.event(item);
    }
    Ok(builder.finish())
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
