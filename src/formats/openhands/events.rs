//! One OpenHands V1 event at a time onto the common model.
//!
//! - `SystemPromptEvent` → System (prompt, dynamic context, and the tool definitions: they are
//!   sent with every request and cost tokens, so their compact JSON is a text part).
//! - `MessageEvent` → the `llm_message` role with its content, reasoning and
//!   `extended_content` (appended as the SDK's `to_llm_message` does).
//! - `ActionEvent` → Assistant (reasoning, thought, tool call); consecutive actions of one
//!   `llm_response_id` are one message, as the SDK's `events_to_messages` merges them.
//! - `ObservationEvent`, `UserRejectObservation`, `AgentErrorEvent` → Tool results. An
//!   observation's content is kept as stored: the tool's `to_llm_content` may add an error
//!   header or terminal metadata when rendering; a preset that needs that reads the raw record.
//! - `Condensation` → a `condensation` mark, plus a user message holding the summary when it
//!   has one (in the LLM view the SDK inserts that summary as a user message at
//!   `summary_offset`; in the raw history the `Condensation` record is what carries it).
//! - `CondensationSummaryEvent` (the summary as it stands in a View, which is how a compacted
//!   history is dumped) → a user message holding the summary, as its `to_llm_message` is.
//! - `ConversationStateUpdateEvent` → model, reported window and per-request usage (see
//!   `stats`); other known bookkeeping events are consumed; anything else (including
//!   `ConversationErrorEvent` and `ACPToolCallEvent`, which the user should see) is an Event.

use serde_json::Value;

use super::content::{content_parts, reasoning_parts, texts, tool_call};
use super::stats::{Delta, Tracker};
use crate::formats::common::{carries_nothing, str_at, to_json, Item};
use crate::session::{CompactionMark, Message, Part, Role, Session};

/// Known events the model never sees: read for metadata or ignored.
const BOOKKEEPING: &[&str] = &[
    "ConversationStateUpdateEvent",
    "PauseEvent",
    "InterruptEvent",
    "TokenEvent",
    "StreamingDeltaEvent",
    "LLMCompletionLogEvent",
    "HookExecutionEvent",
    "CondensationRequest",
    "WarningEvent",
    "AskUserRequestEvent",
    "AskUserResponseEvent",
];

pub(super) struct Builder {
    session: Session,
    stats: Tracker,
    /// Usage of the request whose output has not been seen yet: the SDK writes the stats update
    /// just before the events the response produced.
    pending: Option<Delta>,
    /// `llm_response_id` of the last message pushed, when it came from an `ActionEvent`.
    open_response: Option<String>,
}

impl Builder {
    pub fn new(session: Session, agent_usage_id: Option<String>) -> Builder {
        Builder {
            session,
            stats: Tracker::new(agent_usage_id),
            pending: None,
            open_response: None,
        }
    }

    pub fn finish(self) -> Session {
        self.session
    }

    pub fn event(&mut self, item: &Item<'_>) {
        let v = item.value;
        let kind = str_at(v, "kind").unwrap_or("");
        match kind {
            "SystemPromptEvent" => self.system_prompt(item),
            "MessageEvent" => self.message(item),
            "ActionEvent" => self.action(item),
            "ObservationEvent" => self.observation(item),
            "UserRejectObservation" => {
                let reason = str_at(v, "rejection_reason").unwrap_or("User rejected the action");
                // The SDK's `to_llm_message` renders exactly this text.
                self.error_result(item, format!("Action rejected: {reason}"));
            }
            "AgentErrorEvent" if v.get("tool_call_id").is_some() => {
                let error = str_at(v, "error").unwrap_or_default().to_string();
                self.error_result(item, error);
            }
            "Condensation" => self.condensation(item),
            "CondensationSummaryEvent" => {
                let mut msg = self.new_message(Role::User, item);
                let text = str_at(v, "summary").unwrap_or_default().to_string();
                msg.parts.push(Part::Summary { text });
                self.push(msg);
            }
            "ConversationStateUpdateEvent" => self.state_update(v),
            known if BOOKKEEPING.contains(&known) => {}
            "" if carries_nothing(v) => {}
            other => self.unknown(item, if other.is_empty() { "event" } else { other }),
        }
    }

    fn new_message(&self, role: Role, item: &Item<'_>) -> Message {
        let mut msg = Message::new(role, item.index);
        msg.raw = item.range();
        msg.id = str_at(item.value, "id").map(str::to_string);
        msg.timestamp = str_at(item.value, "timestamp").map(str::to_string);
        msg
    }

    fn push(&mut self, mut msg: Message) {
        if msg.role == Role::Assistant {
            if let Some(delta) = self.pending.take() {
                msg.usage = Some(delta.usage);
                msg.model = delta.model;
            }
        }
        self.open_response = None;
        self.session.push(msg);
    }

    fn system_prompt(&mut self, item: &Item<'_>) {
        let v = item.value;
        let mut msg = self.new_message(Role::System, item);
        if let Some(text) = v.pointer("/system_prompt/text").and_then(Value::as_str) {
            msg.parts.push(Part::text(text));
        }
        if let Some(text) = v.pointer("/dynamic_context/text").and_then(Value::as_str) {
            msg.parts.push(Part::text(text));
        }
        // The tool definitions go to the model with every request: kept as their JSON.
        if let Some(tools) = v
            .get("tools")
            .filter(|t| t.as_array().is_some_and(|a| !a.is_empty()))
        {
            msg.parts.push(Part::text(to_json(tools)));
        }
        self.push(msg);
    }

    fn message(&mut self, item: &Item<'_>) {
        let v = item.value;
        let llm = v.get("llm_message").unwrap_or(&Value::Null);
        let role = str_at(llm, "role")
            .and_then(Role::parse)
            .unwrap_or(match str_at(v, "source") {
                Some("agent") => Role::Assistant,
                _ => Role::User,
            });
        let mut msg = self.new_message(role, item);
        msg.parts.extend(reasoning_parts(llm));
        msg.parts.extend(content_parts(llm.get("content")));
        msg.parts.extend(texts(v.get("extended_content")));
        let calls = llm.get("tool_calls").and_then(Value::as_array);
        for (n, call) in calls.into_iter().flatten().enumerate() {
            msg.parts
                .push(tool_call(call, format!("{}:{n}", item.index)));
        }
        self.push(msg);
    }

    fn action(&mut self, item: &Item<'_>) {
        let v = item.value;
        let response = str_at(v, "llm_response_id").map(str::to_string);
        let call = action_call(v, item.index);
        let same_response = response.is_some() && response == self.open_response;
        if same_response {
            if let Some(last) = self.session.messages.last_mut() {
                last.parts.extend(texts(v.get("thought")));
                last.parts.push(call);
                last.source_indices.push(item.index);
                return;
            }
        }
        let mut msg = self.new_message(Role::Assistant, item);
        msg.parts.extend(reasoning_parts(v));
        msg.parts.extend(texts(v.get("thought")));
        msg.parts.push(call);
        self.push(msg);
        self.open_response = response;
    }

    fn observation(&mut self, item: &Item<'_>) {
        let v = item.value;
        let obs = v.get("observation").unwrap_or(&Value::Null);
        let mut content = match obs.get("content") {
            Some(c) => content_parts(Some(c)),
            // Early SDK observations kept their text in `output`.
            None => content_parts(obs.get("output")),
        };
        content.extend(texts(v.get("extended_content")));
        let is_error = obs.get("is_error").and_then(Value::as_bool);
        self.result(item, content, is_error);
    }

    fn error_result(&mut self, item: &Item<'_>, text: String) {
        self.result(item, vec![Part::text(text)], Some(true));
    }

    fn result(&mut self, item: &Item<'_>, content: Vec<Part>, is_error: Option<bool>) {
        let mut msg = self.new_message(Role::Tool, item);
        msg.parts.push(Part::ToolResult {
            call_id: str_at(item.value, "tool_call_id")
                .unwrap_or_default()
                .to_string(),
            content,
            is_error,
        });
        self.push(msg);
    }

    /// The mark has no slot for `forgotten_event_ids`: the records it names are found by
    /// message id (the event id) when a preset needs them.
    fn condensation(&mut self, item: &Item<'_>) {
        let summary = str_at(item.value, "summary").map(str::to_string);
        self.session.mark(CompactionMark {
            kind: "condensation".to_string(),
            source_index: item.index,
            before_message: 0,
            trigger: None,
            pre_tokens: None,
            post_tokens: None,
            summary: summary.clone(),
        });
        if let Some(text) = summary {
            let mut msg = self.new_message(Role::User, item);
            msg.parts.push(Part::Summary { text });
            self.push(msg);
        }
    }

    fn state_update(&mut self, v: &Value) {
        let value = v.get("value").unwrap_or(&Value::Null);
        let snapshot = match str_at(v, "key") {
            Some("stats") => self.stats.update(value, false),
            Some("full_state") => {
                let model = value.pointer("/agent/llm/model").and_then(Value::as_str);
                if let Some(model) = model {
                    self.session.model = Some(model.to_string());
                }
                let stats = value.get("stats").unwrap_or(&Value::Null);
                self.stats.update(stats, true)
            }
            _ => return,
        };
        if let Some(model) = snapshot.model {
            self.session.model = Some(model);
        }
        if snapshot.context_window.is_some() {
            self.session.reported_window = snapshot.context_window;
        }
        if let Some(delta) = snapshot.delta {
            // A previous pending delta whose response never appeared is dropped: its output is
            // not in this history (a truncated log, or an LLM call outside the conversation).
            self.pending = Some(delta);
        }
    }

    fn unknown(&mut self, item: &Item<'_>, kind: &str) {
        let mut msg = self.new_message(Role::Event, item);
        msg.parts.push(Part::Opaque {
            kind: kind.to_string(),
            raw: to_json(item.value),
        });
        self.push(msg);
    }
}

/// The tool call of an `ActionEvent`: `tool_call` as received from the LLM, with the event's
/// own `tool_call_id` / `tool_name` filling any gap.
fn action_call(v: &Value, index: usize) -> Part {
    let fallback_id =
        str_at(v, "tool_call_id").map_or_else(|| format!("{index}:0"), str::to_string);
    match v.get("tool_call").filter(|c| c.is_object()) {
        Some(call) => {
            let mut part = tool_call(call, fallback_id);
            if let Part::ToolCall { name, .. } = &mut part {
                if name.is_empty() {
                    *name = str_at(v, "tool_name").unwrap_or_default().to_string();
                }
            }
            part
        }
        None => Part::ToolCall {
            id: fallback_id,
            name: str_at(v, "tool_name").unwrap_or_default().to_string(),
            arguments: v.get("action").map(to_json).unwrap_or_default(),
            server: false,
        },
    }
}
