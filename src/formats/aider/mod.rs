//! aider chat histories (`.aider.chat.history.md`): the markdown log aider appends to as it
//! runs, written by `InputOutput` in aider's `aider/io.py` (`append_chat_history`, `user_input`,
//! `ai_output`, `tool_output`/`_tool_message`).
//!
//! Owns: recognising the history from its text, cutting it into runs (each launch of aider
//! writes `# aider chat started at <date>`), and shaping the result as `inspect_ai` shapes a
//! log of many samples: a history of one run is that run's session; a history of several is a
//! session with no messages whose children are the runs, titled with their start, so no two
//! runs' conversations are joined. Reading one run's lines into messages is `history`'s job,
//! the token reports `usage`'s.

mod history;
mod usage;

#[cfg(test)]
mod tests;

use super::common::Loaded;
use super::LoadError;
use crate::session::{Format, Session};

/// The line each run of aider starts its history with.
const STARTED: &str = "# aider chat started at ";

/// aider in the format registry.
pub struct Aider;

impl super::session_format::SessionFormat for Aider {
    fn format(&self) -> Format {
        Format::AIDER
    }

    fn description(&self) -> &'static str {
        "aider chat history (.aider.chat.history.md; one child session per run)"
    }

    /// The history's first line: the start of a run.
    fn sniff_text(&self, head: &str) -> bool {
        head.starts_with(STARTED)
    }

    fn reads_text(&self) -> bool {
        true
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let text = loaded.text().ok_or_else(|| {
        LoadError::not_session(&loaded.shown, "an aider chat history is UTF-8 text")
    })?;
    let mut session = super::start(Format::AIDER, loaded);
    // Lines of the history that happen to be JSON are not records of anything here.
    session.source.skipped.clear();
    session.source.record_indices.clear();
    session.source.records = text.lines().count();
    let runs = history::runs(text, loaded.start);
    if !runs.iter().any(|r| r.started.is_some()) {
        return Err(LoadError::not_session(
            &loaded.shown,
            format!(
                "not an aider chat history: no `{}` line",
                STARTED.trim_end()
            ),
        ));
    }
    if let [run] = &runs[..] {
        run.fill(&mut session);
        return Ok(session);
    }
    session.children = runs
        .iter()
        .map(|run| {
            let mut child = session.sharing_source();
            child.source.records = run.lines;
            run.fill(&mut child);
            child.renumber();
            child
        })
        .collect();
    session.model = session.children.iter().find_map(|c| c.model.clone());
    Ok(session)
}
