//! OpenHands evaluation output (`output.jsonl`): one benchmark instance per line, as
//! `update_progress` writes each `EvalOutput` (`result.model_dump_json()`) in OpenHands'
//! `evaluation/utils/shared.py` (V0) and the V1 `benchmarks` repository's
//! `benchmarks/utils/models.py`: `instance_id`, `instruction`, `history` (the instance's
//! events), `metrics`, `test_result`, `error`, `metadata`, `instance`.
//!
//! Owns: recognising an evaluation output and making the file a multi-session source, as a
//! multi-sample inspect-ai log is: the file is the parent (no messages of its own) and each
//! instance a child session named by its `instance_id`, read by `instance`. A line that is not
//! an instance is skipped and reported with its line number.
//!
//! The parent has its own format name, `openhands-eval`: the children's names (`openhands`,
//! `openhands-v0`) each mean one conversation's events, and one file may hold either kind.

mod instance;

#[cfg(test)]
mod tests;

use serde_json::Value;

use super::common::{Doc, Item, Loaded};
use super::LoadError;
use crate::session::{Format, Session};

/// OpenHands evaluation outputs in the format registry.
pub struct OpenHandsEval;

impl super::session_format::SessionFormat for OpenHandsEval {
    fn format(&self) -> Format {
        Format::OPENHANDS_EVAL
    }

    fn description(&self) -> &'static str {
        "OpenHands evaluation output.jsonl (one benchmark instance per line, each a child session)"
    }

    fn sniff_record(&self, v: &Value) -> bool {
        is_instance(v)
    }

    fn sniff_document(&self, v: &Value) -> bool {
        match v.as_array() {
            Some(items) => !items.is_empty() && items.iter().take(8).all(is_instance),
            None => is_instance(v),
        }
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }

    fn picker_role(&self) -> &'static str {
        "agent_openhands"
    }
}

/// An `EvalOutput`: a string `instance_id`, a `history` (a list, or null when the instance
/// failed before running) and the result of the run (`test_result`, or `error`).
fn is_instance(v: &Value) -> bool {
    v.get("instance_id").is_some_and(Value::is_string)
        && v.get("history")
            .is_some_and(|h| h.is_array() || h.is_null())
        && (v.get("test_result").is_some() || v.get("error").is_some())
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let mut session = super::start(Format::OPENHANDS_EVAL, loaded);
    match (&loaded.doc, loaded.document()) {
        (Doc::Zip, _) => {
            return Err(LoadError::not_session(
                &loaded.shown,
                "a zip archive, not an OpenHands evaluation output",
            ))
        }
        (Doc::Text(_), _) => {
            return Err(LoadError::not_session(
                &loaded.shown,
                "text, not an OpenHands evaluation output (JSON Lines)",
            ))
        }
        // One line's value at a time: a child keeps what it read, not the line's tree.
        (Doc::Lines(_), None) => loaded.each_line(|item| add(&mut session, loaded, &item)),
        (_, Some(Value::Array(_))) => {
            for item in loaded.items(&[]) {
                add(&mut session, loaded, &item);
            }
        }
        (_, Some(value)) => {
            let item = Item {
                index: 0,
                range: loaded.document_range().map(|r| (r.start, r.end)),
                value,
            };
            add(&mut session, loaded, &item);
        }
        (Doc::Json(_), None) => {}
    }
    session.source.skipped.sort_by_key(|k| k.line);
    let models: Vec<&str> = session
        .children
        .iter()
        .filter_map(|c| c.model.as_deref())
        .collect();
    if models
        .first()
        .is_some_and(|m| models.iter().all(|o| o == m))
    {
        session.model = models.first().map(|m| m.to_string());
    }
    Ok(session)
}

/// Adds the instance a record holds as a child, or reports the record.
fn add(session: &mut Session, loaded: &Loaded, item: &Item<'_>) {
    let line = item.index + 1;
    if !is_instance(item.value) {
        session.skip(
            line,
            "not an evaluation instance (expected `instance_id`, `history` and `test_result` or `error`)",
        );
        return;
    }
    let child = instance::build(loaded, item);
    if child.source.records == 0 {
        let id = child.id.as_deref().unwrap_or_default();
        let why = match item.value.get("error").and_then(Value::as_str) {
            Some(error) => format!("instance {id} recorded no history (error: {error})"),
            None => format!("instance {id} recorded no history"),
        };
        session.skip(line, why);
    }
    session.children.push(child);
}
