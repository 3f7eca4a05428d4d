//! What a condensation leaves: the `Condensation` event the condenser returns, the View the
//! SDK derives once the conversation has appended it (the kept events as they stand, the
//! `CondensationSummaryEvent` at `summary_offset`), and the event log the conversation
//! persists (every event, then the `Condensation`).
//!
//! Owns: building those three from the condenser's decision, with the values the SDK makes up
//! at that moment (the `Condensation`'s uuid4 and clock reading, the summary event's clock
//! reading, the summarizer's response id) made up here: ids from a hash of the condensation,
//! the clock from the session's last timestamp. Must not: decide the cut (that is `cut`) or
//! render the summarizer input.

use serde_json::{Map, Value};

use super::view::Kind;
use super::{decided, Decided};
use crate::compaction::after::{self, After};
use crate::compaction::plan::Plan;
use crate::compaction::preset::{PlanInput, Preset};
use crate::session::Format;

/// Events a conversation writes that are no node of its event tree: `parent_id` skips them
/// (`ConversationState._resolve_active_leaf`).
const ARTIFACTS: &[&str] = &["ConversationStateUpdateEvent", "ConversationErrorEvent"];

/// The history `plan` leaves with `summary`: `history` is the View (what the agent's next
/// request, and the condenser's next check, sees), `persisted` the event log with the
/// `Condensation` appended, and the session is the View read back with ctxray's `openhands`
/// parser. A source in another format is first converted to events (`events::synthesized`),
/// so its compacted history is event-shaped too.
pub fn compacted(
    preset: &dyn Preset,
    input: &PlanInput,
    plan: &Plan,
    summary: Option<&str>,
) -> After {
    let generic = || after::generic(input.session, plan, summary);
    let Ok(d) = decided(preset, input, &plan.settings) else {
        return generic();
    };
    if d.forgotten.0 >= d.forgotten.1 {
        return generic();
    }
    let clock = clock(input);
    let condensation = condensation(&d, summary, &clock);
    let view = view_after(&d, &condensation, &clock);
    let mut persisted: Vec<Value> = d
        .records
        .iter()
        .filter(|r| r.value.is_object())
        .map(|r| r.value.clone())
        .collect();
    persisted.push(Value::Object(condensation));
    match input.read_back(Value::Array(view), Format::OPENHANDS) {
        Ok(mut a) => {
            a.persisted = Some(Value::Array(persisted));
            a
        }
        Err(_) => generic(),
    }
}

/// `Condensation(forgotten_event_ids, summary, summary_offset, llm_response_id)` as
/// `ConversationState.append_event` stores it, in the SDK's field order.
fn condensation(d: &Decided, summary: Option<&str>, clock: &str) -> Map<String, Value> {
    let (start, end) = d.forgotten;
    let forgotten: Vec<&str> = d
        .view
        .events
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    let leaf = d
        .records
        .iter()
        .rev()
        .find(|r| r.value.is_object() && !ARTIFACTS.contains(&r.kind()))
        .and_then(|r| r.value.get("id"))
        .and_then(Value::as_str);
    let seed = format!(
        "{}\u{0}{}\u{0}{}",
        leaf.unwrap_or_default(),
        forgotten.join("\u{0}"),
        summary.unwrap_or_default()
    );
    let hash = xxhash_rust::xxh3::xxh3_128(seed.as_bytes());
    let mut m = Map::new();
    m.insert("id".into(), Value::String(uuid4_shaped(hash)));
    m.insert("timestamp".into(), Value::String(clock.to_string()));
    m.insert("source".into(), Value::String("environment".into()));
    if let Some(leaf) = leaf {
        m.insert("parent_id".into(), Value::String(leaf.to_string()));
    }
    m.insert(
        "forgotten_event_ids".into(),
        Value::Array(
            forgotten
                .iter()
                .map(|s| Value::String(s.to_string()))
                .collect(),
        ),
    );
    if let Some(text) = summary {
        m.insert("summary".into(), Value::String(text.to_string()));
    }
    m.insert("summary_offset".into(), Value::from(start));
    m.insert(
        "llm_response_id".into(),
        Value::String(format!("ctxray-summary-{:016x}", hash as u64)),
    );
    m.insert("kind".into(), Value::String("Condensation".into()));
    m
}

/// `Condensation.apply` on the view: the forgotten range out, the summary event in at its
/// start; every other event as its record holds it.
fn view_after(d: &Decided, condensation: &Map<String, Value>, clock: &str) -> Vec<Value> {
    let (start, end) = d.forgotten;
    let mut out: Vec<Value> = Vec::with_capacity(d.view.events.len() + 1 - (end - start));
    for (i, e) in d.view.events.iter().enumerate() {
        if (start..end).contains(&i) {
            continue;
        }
        let rec = d.records.get(e.rec).map_or(&Value::Null, |r| &r.value);
        match rec.as_object() {
            Some(c) if e.kind == Kind::Summary && rec["kind"] == "Condensation" => {
                out.push(summary_event(&e.id, c, clock));
            }
            _ => out.push(rec.clone()),
        }
    }
    if condensation.contains_key("summary") {
        let id = condensation.get("id").and_then(Value::as_str).unwrap_or("");
        let event = summary_event(&format!("{id}-summary"), condensation, clock);
        out.insert(start.min(out.len()), event);
    }
    out
}

/// `Condensation.summary_event`: a new `CondensationSummaryEvent` each time a View is derived.
fn summary_event(id: &str, condensation: &Map<String, Value>, clock: &str) -> Value {
    let field = |key: &str| condensation.get(key).and_then(Value::as_str);
    let mut m = Map::new();
    m.insert("id".into(), Value::String(id.to_string()));
    m.insert("timestamp".into(), Value::String(clock.to_string()));
    m.insert(
        "source".into(),
        Value::String(field("source").unwrap_or("environment").into()),
    );
    m.insert(
        "summary".into(),
        Value::String(field("summary").unwrap_or_default().into()),
    );
    m.insert(
        "kind".into(),
        Value::String("CondensationSummaryEvent".into()),
    );
    Value::Object(m)
}

/// The clock reading the SDK would take (`datetime.now().isoformat()`): the session's last
/// timestamp, else the system clock.
fn clock(input: &PlanInput) -> String {
    if let Some(now) = input.now {
        return now.to_string();
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    crate::formats::shared::iso_from_epoch(secs).unwrap_or_default()
}

/// A version-4-shaped uuid from `hash` (the same condensation always gets the same id).
fn uuid4_shaped(hash: u128) -> String {
    let hex = format!("{hash:032x}");
    let variant = ["8", "9", "a", "b"][((hash >> 62) & 3) as usize];
    format!(
        "{}-{}-4{}-{variant}{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}
