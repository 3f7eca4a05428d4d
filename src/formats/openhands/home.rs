//! Where OpenHands keeps its conversations: directories (`<id>/base_state.json` +
//! `events/event-*.json`, or the CLI's `<id>/event-*.json`) under `conversations/` and
//! `agent-canvas/conversations/`.
//!
//! Owns: deciding whether a directory is a conversation, its size and last activity (newest of
//! its files, not of the directories), and a title from the first user `MessageEvent` among its first few events. Must
//! not read every event (message counts are left `None`: one file per event is too costly).

use std::path::Path;
use std::time::SystemTime;

use serde_json::Value;

use crate::formats::home::peek::clean;
use crate::formats::home::walk::Entry;
use crate::formats::home::{Finder, Found};
use crate::session::Format;

/// Every conversation directory under `root`.
pub(super) fn find(root: &Path, finder: &mut Finder) {
    for parent in [
        root.join("conversations"),
        root.join("agent-canvas/conversations"),
    ] {
        for dir in finder.dirs(&parent) {
            if let Some(c) = conversation(finder, &dir) {
                finder.push(Found {
                    path: dir.path,
                    tool: Format::OPENHANDS,
                    size_bytes: c.size,
                    modified: c.modified,
                    title: c.title,
                    messages: None,
                    exact: None,
                    cwd: None,
                });
            }
        }
    }
}

/// Events read, at most, looking for the first user message.
const TITLE_EVENTS: usize = 12;

/// Largest event file read for a title.
const TITLE_EVENT_BYTES: u64 = 1 << 20;

/// What a conversation directory holds, cheaply.
struct Conversation {
    size: u64,
    modified: SystemTime,
    title: Option<String>,
}

/// Looks at `dir`; `None` if it is not a conversation (no `events/`, no `base_state.json` and
/// no event files at its top, as the CLI leaves its runs).
fn conversation(finder: &mut Finder, dir: &Entry) -> Option<Conversation> {
    let (base, rest): (Vec<Entry>, Vec<Entry>) = finder
        .list(&dir.path)
        .into_iter()
        .partition(|e| e.name() == "base_state.json" && e.is_file());
    let events_dir = rest
        .iter()
        .find(|e| e.name() == "events" && e.is_dir())
        .map(|e| e.path.clone());
    let mut events: Vec<Entry> = match &events_dir {
        Some(d) => finder.list(d),
        None => rest
            .into_iter()
            .filter(|e| super::event_file_index(e.name()).is_some())
            .collect(),
    };
    if base.is_empty() && events_dir.is_none() && events.is_empty() {
        return None;
    }
    events.retain(|e| e.is_file() && e.name().ends_with(".json"));
    let files = base.iter().chain(events.iter());
    let mut size = 0;
    let mut newest: Option<SystemTime> = None;
    for file in files {
        size += file.meta.len();
        if let Ok(m) = file.meta.modified() {
            newest = Some(newest.map_or(m, |n| n.max(m)));
        }
    }
    let modified = newest
        .or_else(|| dir.meta.modified().ok())
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let title = events
        .iter()
        .take(TITLE_EVENTS)
        .filter(|e| e.meta.len() <= TITLE_EVENT_BYTES)
        .find_map(|e| user_message(&e.path));
    Some(Conversation {
        size,
        modified,
        title,
    })
}

/// The text of the event at `path` if it is a user `MessageEvent`.
fn user_message(path: &Path) -> Option<String> {
    let bytes = crate::limits::read_regular(path).ok()?;
    let v: Value = crate::formats::surrogates::parse_value(&bytes).ok()?;
    if v.get("kind").and_then(Value::as_str) != Some("MessageEvent")
        || v.get("source").and_then(Value::as_str) != Some("user")
    {
        return None;
    }
    let content = v.get("llm_message")?.get("content")?;
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    clean(&text)
}
