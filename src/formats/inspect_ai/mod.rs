//! inspect_ai eval logs: a `.json` log, or a `.eval` zip (`header.json` + `samples/*.json`).
//!
//! Owns: reading the log (here, and the zip in `archive`), turning each `EvalSample` into a
//! session (`sample`, `content`). A log holds many samples, each its own conversation: with one
//! sample the session is that sample; with several, the session itself has no messages and each
//! sample is a child session titled `sample <id> epoch <n>` (so no two conversations are
//! interleaved, and each keeps its own usage and marks).

mod archive;
mod content;
mod sample;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use serde_json::Value;

use super::common::{Doc, Loaded};
use super::{spans, LoadError};
use crate::session::{Format, Session};

use sample::{Header, Place};

/// inspect_ai eval logs in the format registry.
pub struct InspectAi;

impl super::session_format::SessionFormat for InspectAi {
    fn format(&self) -> Format {
        Format::INSPECT_AI
    }

    fn description(&self) -> &'static str {
        "inspect_ai eval log (.json, or .eval zip)"
    }

    /// A log: a numeric `version`, `eval.task`, and `samples` or a `status`.
    fn sniff_document(&self, v: &Value) -> bool {
        v.get("version").is_some_and(Value::is_u64)
            && v.pointer("/eval/task").is_some()
            && (v.get("samples").is_some() || v.get("status").is_some())
    }

    fn reads_zip(&self) -> bool {
        true
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    if matches!(loaded.doc, Doc::Zip) {
        return archive::parse(loaded);
    }
    let log = loaded.document().ok_or_else(|| {
        LoadError::not_session(&loaded.shown, "expected one inspect_ai log document")
    })?;
    let header = Header::read(log);
    let empty = Vec::new();
    let samples = log
        .get("samples")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let ranges = loaded
        .document_range()
        .and_then(|doc| spans::array_items(&loaded.buffer, doc, &["samples"]))
        .filter(|r| r.len() == samples.len());
    let children = samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let place = Place {
                path: loaded.shown.clone(),
                buffer: Arc::clone(&loaded.buffer),
                range: ranges.as_ref().and_then(|r| r.get(i).cloned()),
            };
            sample::build(s, place, &header)
        })
        .collect();
    Ok(assemble(
        super::start(Format::INSPECT_AI, loaded),
        &header,
        children,
    ))
}

/// The log's session: the only sample itself, or one child per sample.
fn assemble(mut session: Session, header: &Header, mut samples: Vec<Session>) -> Session {
    session.model = header.model.clone();
    session.id = header.id.clone();
    session.title = header.task.clone();
    if samples.len() == 1 {
        if let Some(only) = samples.pop() {
            session.source.records = only.source.records;
            session.source.skipped.extend(only.source.skipped);
            session.buffer = only.buffer;
            session.messages = only.messages;
            session.marks = only.marks;
            session.id = only.id.or(session.id);
            session.title = match (&header.task, only.title) {
                (Some(task), Some(title)) => Some(format!("{task}: {title}")),
                (task, title) => title.or_else(|| task.clone()),
            };
        }
        return session;
    }
    session.source.records = samples.len();
    session.children = samples;
    session
}
