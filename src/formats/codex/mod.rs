//! OpenAI Codex CLI rollouts (`~/.codex/sessions/…/rollout-*.jsonl`): JSON Lines of
//! `{timestamp, type, payload}`.
//!
//! Owns: the rollout envelope — `session_meta` (id, base instructions), `turn_context` (model),
//! `response_item` (mapped by `formats::openai_responses`, the one place item shapes live),
//! `event_msg` (token counts, compaction events, and user/agent messages for old files that
//! have no `response_item` messages), and `compacted` marks. The `replacement_history` a
//! `compacted` line carries is the history Codex continued with; its items are not lines of
//! this session and do not become messages (the lines before the mark stay).

mod home;
mod usage;

#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod tests;

use std::path::Path;

use serde_json::Value;

use super::common::{carries_nothing, str_at, u64_at, Doc, Item, Loaded};
use super::image;
use super::openai_responses::{map_item, opaque, History, Meta};
use super::stream::LineReader;
use super::LoadError;
use crate::session::{Format, ImageRef, Part, Role, Session};
use usage::Counter;

/// Codex in the format registry.
pub struct Codex;

impl super::session_format::SessionFormat for Codex {
    fn format(&self) -> Format {
        Format::CODEX
    }

    fn description(&self) -> &'static str {
        "OpenAI Codex CLI rollout JSONL (~/.codex/sessions)"
    }

    fn sniff_record(&self, v: &Value) -> bool {
        let enveloped =
            v.get("timestamp").is_some() && v.get("payload").is_some_and(Value::is_object);
        enveloped
            && matches!(
                str_at(v, "type"),
                Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
            )
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }

    fn lines(&self, loaded: &Loaded) -> Option<Result<Box<dyn LineReader>, LoadError>> {
        Some(open(loaded).map(|r| Box::new(r) as Box<dyn LineReader>))
    }

    fn writes_lines(&self) -> bool {
        true
    }

    fn home(&self) -> Option<super::home::Home> {
        Some(super::home::Home {
            tool: "Codex",
            dir: ".codex",
            var: Some("CODEX_HOME"),
            var_below: "",
            layout: "sessions/**/rollout-*.jsonl, archived_sessions/",
        })
    }

    fn find(&self, root: &Path, finder: &mut super::home::Finder) {
        home::find(root, finder)
    }

    fn picker_role(&self) -> &'static str {
        "agent_codex"
    }

    /// The day directory under `sessions/`, or `archived`.
    fn picker_place(&self, names: &[String]) -> Option<String> {
        let after_sessions = names.iter().rposition(|n| n == "sessions").and_then(|at| {
            let rest = names.get(at + 1..names.len().saturating_sub(1))?;
            Some(rest.join("/"))
        });
        after_sessions.or_else(|| {
            names
                .iter()
                .any(|n| n == "archived_sessions")
                .then(|| "archived".to_string())
        })
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    Ok(open(loaded)?.history.finish())
}

/// Reads `loaded` into a [`Rollout`] that can take more lines.
pub(super) fn open(loaded: &Loaded) -> Result<Rollout, LoadError> {
    if !matches!(&loaded.doc, Doc::Lines(lines) if !lines.is_empty()) {
        return Err(LoadError::not_session(
            &loaded.shown,
            "expected Codex rollout JSON Lines of {timestamp, type, payload}",
        ));
    }
    // Lines are read one at a time. Files of current Codex versions record their messages as
    // `response_item`s; only when none was seen is the file read again taking them from the
    // `event_msg`s of older versions.
    let mut rollout = Rollout::new(loaded, Source::Items);
    loaded.each_line(|line| rollout.line(&line));
    if !rollout.consistent() {
        rollout = Rollout::new(loaded, rollout.source_read());
        loaded.each_line(|line| rollout.line(&line));
    }
    Ok(rollout)
}

impl LineReader for Rollout {
    fn feed(&mut self, item: &Item) {
        self.line(item)
    }

    fn consistent(&self) -> bool {
        Rollout::consistent(self)
    }

    fn session(&self) -> &Session {
        &self.history.session
    }

    fn session_mut(&mut self) -> &mut Session {
        &mut self.history.session
    }

    /// The lowest message changed in place since the last call.
    fn take_touched(&mut self) -> Option<usize> {
        self.history.take_touched()
    }

    fn settle(&mut self, _path: Option<&std::path::Path>, buffer: &std::sync::Arc<Vec<u8>>) {
        self.history.session.buffer = std::sync::Arc::clone(buffer);
    }

    /// The session the lines read make.
    fn finish(self: Box<Self>, _path: Option<&std::path::Path>) -> Session {
        self.history.finish()
    }
}

/// Where the messages of a rollout come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// `response_item` messages and reasoning (every current file).
    Items,
    /// `event_msg` messages, `reasoning` items.
    EventMessages,
    /// `event_msg` messages and reasoning.
    Events,
}

/// Event types that are progress or metadata only: read where useful, never messages.
const CONSUMED_EVENTS: &[&str] = &[
    "user_message",
    "agent_message",
    "agent_reasoning",
    "agent_reasoning_raw_content",
    "agent_reasoning_section_break",
    "token_count",
    "task_started",
    "task_complete",
    "turn_started",
    "turn_complete",
    "entered_review_mode",
    "exited_review_mode",
    "exec_command_begin",
    "exec_command_end",
    "patch_apply_begin",
    "patch_apply_end",
    "mcp_tool_call_begin",
    "mcp_tool_call_end",
    "web_search_begin",
    "web_search_end",
    "view_image_tool_call",
    "image_generation_end",
    "item_started",
    "item_completed",
    "plan_update",
    "turn_diff",
    "session_configured",
    "background_event",
    "undo_started",
    "undo_completed",
];

pub(super) struct Rollout {
    history: History,
    counter: Counter,
    /// Model of the current turn (`turn_context.model`).
    model: Option<String>,
    /// The file has no `response_item` messages: take them from `event_msg` instead (and the
    /// reasoning too, unless it has `reasoning` items).
    messages_from_events: bool,
    reasoning_from_events: bool,
    meta_seen: bool,
    /// Marks that have had their `post_tokens` looked for.
    marks_measured: usize,
    /// A `response_item` message, or reasoning, was read.
    seen_message: bool,
    seen_reasoning: bool,
}

impl Rollout {
    /// Where the lines read so far take their messages from.
    fn source_read(&self) -> Source {
        match (self.seen_message, self.seen_reasoning) {
            (true, _) => Source::Items,
            (false, true) => Source::EventMessages,
            (false, false) => Source::Events,
        }
    }

    fn source(&self) -> Source {
        match (self.messages_from_events, self.reasoning_from_events) {
            (false, _) => Source::Items,
            (true, false) => Source::EventMessages,
            (true, true) => Source::Events,
        }
    }

    /// Whether the lines read so far read as this rollout reads them.
    fn consistent(&self) -> bool {
        self.source() == self.source_read()
    }

    fn new(loaded: &Loaded, from: Source) -> Rollout {
        Rollout {
            messages_from_events: from != Source::Items,
            reasoning_from_events: from == Source::Events,
            history: History::new(super::start(Format::CODEX, loaded)),
            counter: Counter::default(),
            model: None,
            meta_seen: false,
            marks_measured: 0,
            seen_message: false,
            seen_reasoning: false,
        }
    }

    fn line(&mut self, line: &Item) {
        let payload = line.value.get("payload").unwrap_or(&Value::Null);
        match str_at(line.value, "type") {
            Some("session_meta") => self.session_meta(payload, line),
            Some("response_item") => {
                match str_at(payload, "type") {
                    Some("message") => self.seen_message = true,
                    Some("reasoning") => self.seen_reasoning = true,
                    _ => {}
                }
                let model = self.model.clone();
                let meta = meta(line, str_at(payload, "id"), model.as_deref());
                self.history.apply(map_item(payload, line.index), &meta);
            }
            Some("turn_context") => {
                if let Some(model) = str_at(payload, "model") {
                    self.model = Some(model.to_string());
                    self.history.session.model = Some(model.to_string());
                }
            }
            Some("event_msg") => self.event(payload, line),
            // Bookkeeping Codex keeps to diff the next turn's context against.
            Some("world_state") => {}
            Some("compacted") => {
                let summary = str_at(payload, "message").filter(|m| !m.is_empty());
                let trigger = str_at(payload, "trigger").map(str::to_string);
                let summary = summary.map(str::to_string);
                self.history.mark("compacted", line.index, summary, trigger);
            }
            None if carries_nothing(line.value) => {}
            other => self.event_row(other.unwrap_or("unknown"), line.value, line),
        }
    }

    /// The first `session_meta` gives the id and `base_instructions` (the `instructions` every
    /// request carries: a system message). The old `instructions` field held the user's
    /// AGENTS.md text, which the file also records as a `<user_instructions>` message, so it is
    /// not repeated. Later `session_meta` lines (resumed or forked files) are metadata only.
    fn session_meta(&mut self, payload: &Value, line: &Item) {
        if self.meta_seen {
            return;
        }
        self.meta_seen = true;
        let session = &mut self.history.session;
        session.id = str_at(payload, "id")
            .or_else(|| str_at(payload, "session_id"))
            .map(str::to_string);
        if let Some(model) = str_at(payload, "model") {
            session.model = Some(model.to_string());
        }
        let text = payload
            .get("base_instructions")
            .and_then(|b| str_at(b, "text"))
            .filter(|t| !t.is_empty());
        if let Some(text) = text {
            let meta = meta(line, None, None);
            self.history
                .push(Role::System, vec![Part::text(text)], &meta);
        }
    }

    fn event(&mut self, payload: &Value, line: &Item) {
        let Some(kind) = str_at(payload, "type") else {
            return self.event_row("event_msg", line.value, line);
        };
        match kind {
            "token_count" => self.token_count(payload),
            "context_compacted" => {
                self.history.flush();
                let session = &self.history.session;
                let just_marked = session.marks.last().is_some_and(|m| {
                    m.kind == "compacted" && m.before_message == session.messages.len()
                });
                if !just_marked {
                    self.history
                        .mark("context_compacted", line.index, None, None);
                }
            }
            "task_started" => {
                if let Some(window) = u64_at(payload, "model_context_window") {
                    self.history.session.reported_window = Some(window);
                }
            }
            "user_message" if self.messages_from_events => {
                let meta = meta(line, None, None);
                self.history.push(Role::User, user_parts(payload), &meta);
            }
            "agent_message" if self.messages_from_events => {
                let text = str_at(payload, "message").unwrap_or_default();
                self.agent_output(Part::text(text), line);
            }
            "agent_reasoning" if self.reasoning_from_events => {
                let text = str_at(payload, "text").unwrap_or_default().to_string();
                let part = Part::Reasoning {
                    text,
                    opaque_len: 0,
                };
                self.agent_output(part, line);
            }
            known if CONSUMED_EVENTS.contains(&known) => {}
            other => self.event_row(other, payload, line),
        }
    }

    fn agent_output(&mut self, part: Part, line: &Item) {
        let model = self.model.clone();
        let meta = meta(line, None, model.as_deref());
        self.history.assistant(vec![part], &meta);
    }

    /// A record that is not a message and not known metadata: kept as an event.
    fn event_row(&mut self, kind: &str, value: &Value, line: &Item) {
        let meta = meta(line, None, None);
        self.history
            .push(Role::Event, vec![opaque(kind, value)], &meta);
    }

    /// A new request's usage goes to the assistant message it produced (which it also ends);
    /// its input size becomes the `pre_tokens` of a later mark and the `post_tokens` of marks
    /// recorded since the previous request.
    fn token_count(&mut self, payload: &Value) {
        let Some(info) = payload.get("info").filter(|i| i.is_object()) else {
            return;
        };
        if let Some(window) = u64_at(info, "model_context_window") {
            self.history.session.reported_window = Some(window);
        }
        let Some(usage) = self.counter.request(info) else {
            return;
        };
        let input = usage.input.filter(|&n| n > 0);
        self.history.attach_usage(usage);
        let marks = &mut self.history.session.marks;
        for mark in marks.iter_mut().skip(self.marks_measured) {
            if mark.post_tokens.is_none() {
                mark.post_tokens = input;
            }
        }
        self.marks_measured = marks.len();
        if input.is_some() {
            self.history.context_before = input;
        }
    }
}

fn meta<'a>(line: &'a Item, id: Option<&'a str>, model: Option<&'a str>) -> Meta<'a> {
    Meta {
        index: line.index,
        raw: line.range(),
        timestamp: str_at(line.value, "timestamp"),
        id,
        model,
    }
}

/// An `event_msg user_message`: its text, then its images (data URIs or URLs; local image
/// paths are images whose bytes the file does not hold).
fn user_parts(payload: &Value) -> Vec<Part> {
    let mut parts = vec![Part::text(str_at(payload, "message").unwrap_or_default())];
    if let Some(urls) = payload.get("images").and_then(Value::as_array) {
        parts.extend(
            urls.iter()
                .filter_map(Value::as_str)
                .map(|u| Part::Image(image::from_url(u))),
        );
    }
    if let Some(paths) = payload.get("local_images").and_then(Value::as_array) {
        parts.extend(paths.iter().map(|_| Part::Image(ImageRef::default())));
    }
    parts
}
