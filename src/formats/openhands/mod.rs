//! OpenHands V1 (software-agent-sdk) conversations: events as JSONL, as a JSON array, a single
//! event object, or a directory of event files: a conversation directory (`base_state.json` +
//! `events/event-<idx>-<id>.json`), its `events/` alone, or the event files at the top level of
//! a directory (as the CLI leaves its runs).
//!
//! Owns: finding and ordering the event records (here) and mapping each event onto the common
//! model (`events`, `content`, `stats`). It knows nothing of tokens or compaction presets: a
//! preset that needs OpenHands' own rendering (`str(event)`) re-reads the raw record.

mod content;
mod events;
mod home;
mod stats;

#[cfg(test)]
mod tests;

use std::fs;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::common::{str_at, Doc, Item, Loaded};
use super::LoadError;
use crate::session::{Format, Session};

use events::Builder;

/// Parses events already loaded from one file (JSONL, array, or one event object).
/// OpenHands (the SDK's events) in the format registry.
pub struct OpenHands;

impl super::session_format::SessionFormat for OpenHands {
    fn format(&self) -> Format {
        Format::OPENHANDS
    }

    fn description(&self) -> &'static str {
        "OpenHands SDK events: a conversation directory with events/, or events as JSONL/array"
    }

    fn sniff_record(&self, v: &Value) -> bool {
        is_event(v)
    }

    fn sniff_document(&self, v: &Value) -> bool {
        match v.as_array() {
            Some(items) => items.iter().take(64).any(is_event),
            None => is_event(v),
        }
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }

    fn load_dir(&self, path: &Path) -> Result<Option<Session>, LoadError> {
        load_dir(path)
    }

    fn claims_dir(&self, path: &Path) -> bool {
        path.join("events").is_dir()
            || path.join("base_state.json").is_file()
            || event_file_names(path).is_ok_and(|names| !names.is_empty())
    }

    fn writes_lines(&self) -> bool {
        true
    }

    fn home(&self) -> Option<super::home::Home> {
        Some(super::home::Home {
            tool: "OpenHands",
            dir: ".openhands",
            var: Some("OPENHANDS_PERSISTENCE_DIR"),
            var_below: "",
            layout: "conversations/*/, agent-canvas/conversations/*/",
        })
    }

    fn find(&self, root: &Path, finder: &mut super::home::Finder) {
        home::find(root, finder)
    }

    fn picker_role(&self) -> &'static str {
        "agent_openhands"
    }

    /// The conversation id.
    fn picker_place(&self, names: &[String]) -> Option<String> {
        names.last().cloned()
    }
}

/// An SDK event: a `kind` naming an event, observation or condensation, a `source` and a
/// string `id`.
pub(crate) fn is_event(v: &Value) -> bool {
    let Some(kind) = str_at(v, "kind") else {
        return false;
    };
    let known = kind.ends_with("Event")
        || kind.ends_with("Observation")
        || matches!(kind, "Condensation" | "CondensationRequest");
    known && v.get("source").is_some() && v.get("id").is_some_and(Value::is_string)
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    if matches!(loaded.doc, Doc::Zip) {
        return Err(LoadError::not_session(
            &loaded.shown,
            "a zip archive, not OpenHands events",
        ));
    }
    let session = super::start(Format::OPENHANDS, loaded);
    let mut builder = Builder::new(session, None);
    if matches!(loaded.doc, Doc::Lines(_)) && loaded.document().is_none() {
        // One line's value at a time: the values of a long file are never all alive.
        loaded.each_line(|item| builder.event(&item));
    } else {
        for item in &event_items(loaded) {
            builder.event(item);
        }
    }
    Ok(builder.finish())
}

/// Reads events another source holds (an evaluation output's `history`) into `session`.
pub(crate) fn read_events(session: Session, items: &[Item<'_>]) -> Session {
    let mut builder = Builder::new(session, None);
    for item in items {
        builder.event(item);
    }
    builder.finish()
}

/// The event records of a loaded file, whatever its shape.
fn event_items(loaded: &Loaded) -> Vec<Item<'_>> {
    match (&loaded.doc, loaded.document()) {
        (_, Some(Value::Array(_))) => loaded.items(&[]),
        (Doc::Json(value), _) => {
            let end = trimmed_len(&loaded.buffer);
            vec![Item {
                index: 0,
                range: Some((loaded.start, end.max(loaded.start))),
                value,
            }]
        }
        _ => loaded.lines(),
    }
}

fn trimmed_len(buffer: &[u8]) -> usize {
    buffer
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1)
}

/// A directory of event files in any layout the SDK and the CLI write: a conversation
/// directory (`events/` holding `event-<idx>-<id>.json` files, plus `base_state.json`), the
/// `events/` directory itself, or a directory holding the event files at its top level (the
/// CLI's runs, without `events/` or `base_state.json`); `None` when `path` holds no events.
///
/// The event files are concatenated, in index order and each followed by a newline, into one
/// buffer so that `Message::raw` ranges point into it; `source_index` is the position of the
/// file in that order. A file that cannot be read or is not JSON is reported as skipped (with
/// its file name) and keeps its position.
pub fn load_dir(path: &Path) -> Result<Option<Session>, LoadError> {
    let Some((events_dir, names)) = events_of(path)? else {
        return Ok(None);
    };
    let shown = path.display().to_string();
    let base = read_base_state(path).or_else(|| {
        // The `events/` directory given itself: its conversation's state is beside it.
        let parent = path.parent().filter(|p| p.join("events") == path)?;
        read_base_state(parent)
    });

    let mut buffer: Vec<u8> = Vec::new();
    let mut records: Vec<(usize, (usize, usize), Value)> = Vec::new();
    let mut skipped: Vec<(usize, String)> = Vec::new();
    for (position, name) in names.iter().enumerate() {
        match crate::limits::read_regular(&events_dir.join(name)) {
            Ok(mut bytes) => {
                crate::formats::surrogates::repair(&mut bytes);
                let start = buffer.len();
                buffer.extend_from_slice(&bytes);
                let end = start + trimmed_len(&bytes);
                buffer.push(b'\n');
                match serde_json::from_slice::<Value>(&bytes) {
                    Ok(value) if value.is_object() => records.push((position, (start, end), value)),
                    Ok(_) => skipped.push((position, format!("{name}: expected a JSON object"))),
                    Err(e) => skipped.push((position, format!("{name}: invalid JSON: {e}"))),
                }
            }
            Err(e) => skipped.push((position, format!("{name}: cannot read: {e}"))),
        }
    }

    let mut session = Session::new(Format::OPENHANDS, shown, Arc::new(buffer));
    session.source.records = names.len();
    for (position, reason) in skipped {
        session.skip(position + 1, reason);
    }
    let agent_usage = base
        .as_ref()
        .and_then(|b| apply_base_state(&mut session, b));
    let mut builder = Builder::new(session, agent_usage);
    for (index, range, value) in &records {
        builder.event(&Item {
            index: *index,
            range: Some(*range),
            value,
        });
    }
    Ok(Some(builder.finish()))
}

/// Where the event files of `path` are, and their names: `events/` when there is one, else
/// `path` itself when it holds event files at its top level.
fn events_of(path: &Path) -> Result<Option<(std::path::PathBuf, Vec<String>)>, LoadError> {
    let names_in = |dir: &Path| {
        event_file_names(dir).map_err(|source| LoadError::Io {
            path: dir.display().to_string(),
            source,
        })
    };
    let events_dir = path.join("events");
    if events_dir.is_dir() {
        let names = names_in(&events_dir)?;
        return Ok(Some((events_dir, names)));
    }
    let names = names_in(path)?;
    Ok((!names.is_empty()).then(|| (path.to_path_buf(), names)))
}

/// Names of the event files in `dir`, sorted by their index (other files are ignored, as the
/// SDK ignores its lock and count-marker files).
fn event_file_names(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut found: Vec<(u64, String)> = Vec::new();
    for entry in fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if let Some(idx) = event_file_index(&name) {
            found.push((idx, name));
        }
    }
    found.sort();
    Ok(found.into_iter().map(|(_, name)| name).collect())
}

/// The index of `event-<idx:05d+>-<event id>.json`, as the SDK's `EVENT_NAME_RE` reads it.
fn event_file_index(name: &str) -> Option<u64> {
    let rest = name.strip_prefix("event-")?.strip_suffix(".json")?;
    let (idx, id) = rest.split_once('-')?;
    let id_ok = id.len() >= 8 && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    if idx.len() < 5 || !idx.chars().all(|c| c.is_ascii_digit()) || !id_ok {
        return None;
    }
    idx.parse().ok()
}

fn read_base_state(dir: &Path) -> Option<Value> {
    let bytes = crate::limits::read_regular(&dir.join("base_state.json")).ok()?;
    crate::formats::surrogates::parse_value(&bytes).ok()
}

/// Reads the conversation id and the agent's model from `base_state.json`; returns the agent
/// LLM's `usage_id` (which names its counters in the stats updates). Its `stats` are the
/// final totals, so they are not used as a baseline.
fn apply_base_state(session: &mut Session, base: &Value) -> Option<String> {
    session.id = str_at(base, "id").map(str::to_string);
    let llm = base.pointer("/agent/llm");
    session.model = llm.and_then(|l| str_at(l, "model")).map(str::to_string);
    llm.and_then(|l| str_at(l, "usage_id")).map(str::to_string)
}
