//! GitHub Copilot CLI sessions (npm `@github/copilot`): the event log
//! `~/.copilot/session-state/<session-id>/events.jsonl` (older CLIs: `session-state/<id>.jsonl`).
//!
//! Every line is an event envelope `{type, data, id, timestamp, parentId, agentId?}` with a
//! dotted `type`. The CLI's writer is closed source; the shapes followed are those of the JSON
//! Schema the CLI ships, `schemas/session-events.schema.json` in the 1.0.102 package ("JSON
//! Schema for session events emitted by the Copilot CLI runtime": `SessionEvent`, one
//! definition per event type), checked against files the real CLI wrote
//! (`fixtures/copilot-cli/`). Events a sub-agent (the `task` tool) emits carry the envelope's
//! `agentId`; each sub-agent is a child session, named by its `subagent.started` event.
//!
//! Owns: recognising the events, the session's id, title and model, and routing each event to
//! the main agent or its sub-agent (`agent` reads the events into messages; `home` finds the
//! sessions on disk). A malformed line
//! is skipped and reported by the loader.

mod agent;
mod home;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::common::{str_at, Item, Loaded};
use super::LoadError;
use crate::session::{Format, Session};
use agent::Agent;

/// GitHub Copilot CLI in the format registry.
pub struct CopilotCli;

impl super::session_format::SessionFormat for CopilotCli {
    fn format(&self) -> Format {
        Format::COPILOT_CLI
    }

    fn description(&self) -> &'static str {
        "GitHub Copilot CLI session events (events.jsonl: session.start, user.message, \
         assistant.message, tool.execution_*, …)"
    }

    fn sniff_record(&self, v: &Value) -> bool {
        is_event(v)
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        Ok(parse(loaded))
    }

    /// A session directory (`session-state/<id>/`): its `events.jsonl`.
    fn load_dir(&self, path: &Path) -> Result<Option<Session>, LoadError> {
        if !self.claims_dir(path) {
            return Ok(None);
        }
        super::load_path(&path.join("events.jsonl"), Some(Format::COPILOT_CLI)).map(Some)
    }

    /// `events.jsonl` beside the CLI's `workspace.yaml` or `checkpoints/`.
    fn claims_dir(&self, path: &Path) -> bool {
        path.join("events.jsonl").is_file()
            && (path.join("workspace.yaml").is_file() || path.join("checkpoints").is_dir())
    }

    fn writes_lines(&self) -> bool {
        true
    }

    fn home(&self) -> Option<super::home::Home> {
        Some(super::home::Home {
            tool: "Copilot CLI",
            dir: ".copilot",
            var: Some("COPILOT_HOME"),
            var_below: "",
            layout: "session-state/*/events.jsonl, session-state/*.jsonl",
        })
    }

    fn find(&self, root: &Path, finder: &mut super::home::Finder) {
        home::find(root, finder)
    }
}

/// `{type: "<area>.<event>", data: {…}, id, timestamp}`: the CLI's event envelope, with one of
/// the areas the schema's event types use for a conversation.
pub fn is_event(v: &Value) -> bool {
    let Some(kind) = str_at(v, "type") else {
        return false;
    };
    let area = matches!(
        kind.split_once('.'),
        Some((
            "session" | "user" | "assistant" | "tool" | "system" | "hook" | "subagent",
            _
        ))
    );
    area && v.get("data").is_some_and(Value::is_object)
        && str_at(v, "id").is_some()
        && str_at(v, "timestamp").is_some()
}

pub fn parse(loaded: &Loaded) -> Session {
    let mut main = Agent::new(super::start(Format::COPILOT_CLI, loaded));
    let mut subagents = Subagents::default();
    loaded.each_line(|item| {
        let v = item.value;
        let data = v.get("data").unwrap_or(&Value::Null);
        match str_at(v, "type") {
            Some("session.start" | "session.resume") if !is_subagent(v) => {
                let session = &mut main.session;
                if session.id.is_none() {
                    session.id = str_at(data, "sessionId").map(str::to_string);
                }
                if let Some(model) = str_at(data, "selectedModel") {
                    session.model = Some(model.to_string());
                }
            }
            Some("session.model_change") if !is_subagent(v) => {
                if let Some(model) = str_at(data, "newModel") {
                    main.session.model = Some(model.to_string());
                }
            }
            Some("session.title_changed") if !is_subagent(v) => {
                main.session.title = str_at(data, "title").map(str::to_string);
            }
            Some("subagent.started") => subagents.started(&main, item),
            _ => match subagents.of(&main, item) {
                Some(agent) => agent.read(item),
                None => main.read(item),
            },
        }
    });
    let mut session = main.finish();
    session.children = subagents.finish();
    session
}

/// Whether an event is a sub-agent's (the envelope's `agentId`, or the `parentToolCallId`
/// of the `task` call that runs it).
fn is_subagent(v: &Value) -> bool {
    subagent_key(v).is_some()
}

fn subagent_key(v: &Value) -> Option<&str> {
    str_at(v, "agentId").or_else(|| v.get("data").and_then(|d| str_at(d, "parentToolCallId")))
}

/// The sub-agents of a session, each read into a child, in the order they appear.
#[derive(Default)]
struct Subagents {
    agents: Vec<Agent>,
    /// An `agentId` or a `task` call id to its agent.
    keys: HashMap<String, usize>,
}

impl Subagents {
    /// `subagent.started`: the sub-agent `agentId` runs for the `task` call `toolCallId`; both
    /// name the same child, titled by the call's description.
    fn started(&mut self, main: &Agent, item: Item<'_>) {
        let v = item.value;
        let data = v.get("data").unwrap_or(&Value::Null);
        let keys = [str_at(v, "agentId"), str_at(data, "toolCallId")];
        let at = match keys.iter().flatten().find_map(|k| self.keys.get(*k)) {
            Some(&at) => at,
            None => self.open(main, keys.iter().flatten().next().copied()),
        };
        for key in keys.into_iter().flatten() {
            self.keys.insert(key.to_string(), at);
        }
        if let Some(agent) = self.agents.get_mut(at) {
            let session = &mut agent.session;
            session.id = str_at(v, "agentId")
                .map(str::to_string)
                .or(session.id.take());
            session.title = ["agentDescription", "agentDisplayName", "agentName"]
                .iter()
                .find_map(|k| str_at(data, k))
                .map(str::to_string);
            session.model = str_at(data, "model").map(str::to_string);
        }
    }

    /// The sub-agent an event belongs to; `None` for the main agent's.
    fn of(&mut self, main: &Agent, item: Item<'_>) -> Option<&mut Agent> {
        let key = subagent_key(item.value)?;
        let at = match self.keys.get(key) {
            Some(&at) => at,
            None => {
                let at = self.open(main, Some(key));
                self.keys.insert(key.to_string(), at);
                at
            }
        };
        self.agents.get_mut(at)
    }

    fn open(&mut self, main: &Agent, id: Option<&str>) -> usize {
        let mut session = main.session.sharing_source();
        session.id = id.map(str::to_string);
        self.agents.push(Agent::new(session));
        self.agents.len() - 1
    }

    fn finish(self) -> Vec<Session> {
        self.agents.into_iter().map(Agent::finish).collect()
    }
}
