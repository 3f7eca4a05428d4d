//! One evaluation instance → one session: its `history` read by the OpenHands parser its
//! events belong to (SDK events with a `kind` by `openhands`, V0 actions and observations by
//! `openhands_v0`; the oldest outputs' `[action, observation]` pairs are read pair by pair),
//! named by its `instance_id`, its model the one its events name or else the one `metadata`
//! configured (V0 `llm_config.model`, V1 `llm.model`).
//!
//! The child shares the file's buffer, so each message's raw record is its event inside the
//! line. `instruction` is the task as the benchmark gave it, not an event of the history, so
//! it is not made a message.

use std::sync::Arc;

use serde_json::Value;

use crate::formats::common::{str_at, Item, Loaded};
use crate::formats::{openhands, openhands_v0, spans};
use crate::session::{Format, Session};

pub(super) fn build(loaded: &Loaded, item: &Item<'_>) -> Session {
    let v = item.value;
    let empty = Vec::new();
    let history = v.get("history").and_then(Value::as_array).unwrap_or(&empty);
    let pairs = history.iter().any(Value::is_array);
    let format = if history.iter().any(openhands::is_event) {
        Format::OPENHANDS
    } else {
        Format::OPENHANDS_V0
    };
    let mut child = Session::new(format, loaded.shown.clone(), Arc::clone(&loaded.buffer));
    let id = str_at(v, "instance_id").unwrap_or_default();
    child.id = Some(id.to_string());
    child.title = Some(match v.get("attempt").and_then(Value::as_u64) {
        Some(n) if n > 1 => format!("{id} (attempt {n})"),
        _ => id.to_string(),
    });

    let items: Vec<Item<'_>> = if pairs {
        // `[action, observation]` pairs: their events have no range of their own here.
        let events = history.iter().flat_map(|p| match p {
            Value::Array(pair) => pair.iter().collect::<Vec<_>>(),
            other => vec![other],
        });
        events
            .enumerate()
            .map(|(index, value)| Item {
                index,
                range: None,
                value,
            })
            .collect()
    } else {
        let ranges = item
            .range()
            .and_then(|line| spans::array_items(&loaded.buffer, line, &["history"]))
            .filter(|r| r.len() == history.len());
        history
            .iter()
            .enumerate()
            .map(|(index, value)| Item {
                index,
                range: ranges.as_ref().map(|r| (r[index].start, r[index].end)),
                value,
            })
            .collect()
    };
    child.source.records = items.len();
    child.source.record_indices = (0..items.len()).collect();
    let mut child = if format == Format::OPENHANDS {
        openhands::read_events(child, &items)
    } else {
        openhands_v0::read_events(child, &items)
    };
    child.renumber();
    // The model the responses name, else the one the run was configured with.
    child.model = child.model.or_else(|| model(v));
    child
}

/// The instance's model, as its `metadata` names it.
fn model(v: &Value) -> Option<String> {
    let metadata = v.get("metadata")?;
    let llm = metadata.get("llm_config").or_else(|| metadata.get("llm"))?;
    str_at(llm, "model").map(str::to_string)
}
