//! One V0 event at a time onto the common model.
//!
//! - `system` → System (content, plus the tool definitions' JSON: they are sent and cost tokens).
//! - `message` → User when the user sent it, else Assistant (V0's own rule), with `image_urls`.
//! - tool actions with `tool_call_metadata` → Assistant: the response's text, its reasoning and
//!   one tool call per action, the arguments being the string the model returned. Actions of one
//!   `model_response.id` (parallel calls) are one message, wherever their observations fall, and
//!   the response's usage is counted once.
//! - `finish` → Assistant text (thought and response text), as V0 renders it: no tool call.
//! - a user's `run` → User `User executed the command:` text (V0's rendering).
//! - observations answering a call (by `tool_call_metadata` or `cause`) → Tool results; other
//!   content-bearing observations → User text, as V0 sends them.
//! - `condensation` → a `condensation` mark, plus a user message holding its summary.
//! - state changes, null observations, recall queries → consumed; anything else → Event.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::fields::{error_flag, recall_parts, response_arguments, thought_text, usage};
use crate::formats::common::{str_at, to_json, u64_at, Item};
use crate::formats::image;
use crate::session::{CompactionMark, Message, Part, Role, Session};

/// Actions the model never sees.
const QUIET_ACTIONS: &[&str] = &[
    "change_agent_state",
    "recall",
    "null",
    "pause",
    "resume",
    "stop",
    "start",
    "condensation_request",
    "reject",
];
/// Observations the model never sees.
const QUIET_OBSERVATIONS: &[&str] = &["agent_state_changed", "null", "success"];
/// Observations V0 sends to the model (as tool results when they answer a call).
const CONTENT_OBSERVATIONS: &[&str] = &[
    "run",
    "run_ipython",
    "read",
    "write",
    "edit",
    "browse",
    "error",
    "user_rejected",
    "delegate",
    "think",
    "mcp",
    "download",
    "task_tracking",
    "chat",
    "message",
    "loop_recovery",
];

pub(super) struct Builder {
    session: Session,
    /// `model_response.id` → the assistant message holding that response's calls.
    responses: HashMap<String, usize>,
    /// Responses whose usage is already on a message (a response's usage counts once).
    counted: HashSet<String>,
    /// Event id of an action → the call id it made (for observations that only name a `cause`).
    calls: HashMap<u64, String>,
}

impl Builder {
    pub fn new(session: Session) -> Builder {
        Builder {
            session,
            responses: HashMap::new(),
            counted: HashSet::new(),
            calls: HashMap::new(),
        }
    }

    pub fn finish(self) -> Session {
        self.session
    }

    pub fn event(&mut self, item: &Item<'_>) {
        let v = item.value;
        if let Some(action) = str_at(v, "action") {
            self.action(item, action);
        } else if let Some(observation) = str_at(v, "observation") {
            self.observation(item, observation);
        } else {
            self.unknown(item, "event");
        }
    }

    fn new_message(&self, role: Role, item: &Item<'_>) -> Message {
        let mut msg = Message::new(role, item.index);
        msg.raw = item.range();
        msg.timestamp = str_at(item.value, "timestamp").map(str::to_string);
        msg.id = item
            .value
            .get("id")
            .filter(|id| !id.is_null())
            .map(|id| match id {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
        msg
    }

    fn action(&mut self, item: &Item<'_>, action: &str) {
        let v = item.value;
        let args = v.get("args").unwrap_or(&Value::Null);
        let from_user = str_at(v, "source") == Some("user");
        let metadata = v.get("tool_call_metadata").filter(|m| m.is_object());
        match action {
            "system" => self.system(item, args),
            "message" => self.message(item, args, from_user),
            "condensation" => self.condensation(item, args),
            "finish" => self.finish_action(item, args, metadata),
            "run" if from_user && metadata.is_none() => {
                let command = str_at(args, "command").unwrap_or_default();
                let mut msg = self.new_message(Role::User, item);
                msg.parts
                    .push(Part::text(format!("User executed the command:\n{command}")));
                self.session.push(msg);
            }
            quiet if QUIET_ACTIONS.contains(&quiet) => {}
            _ => match metadata {
                Some(metadata) => self.tool_action(item, args, metadata),
                None => self.unknown(item, action),
            },
        }
    }

    fn system(&mut self, item: &Item<'_>, args: &Value) {
        let mut msg = self.new_message(Role::System, item);
        let text = str_at(args, "content").or_else(|| str_at(item.value, "message"));
        msg.parts.push(Part::text(text.unwrap_or_default()));
        if let Some(tools) = args
            .get("tools")
            .filter(|t| t.as_array().is_some_and(|a| !a.is_empty()))
        {
            msg.parts.push(Part::text(to_json(tools)));
        }
        self.session.push(msg);
    }

    fn message(&mut self, item: &Item<'_>, args: &Value, from_user: bool) {
        let role = if from_user {
            Role::User
        } else {
            Role::Assistant
        };
        let mut msg = self.new_message(role, item);
        let text = str_at(args, "content").or_else(|| str_at(item.value, "message"));
        msg.parts.push(Part::text(text.unwrap_or_default()));
        let urls = args.get("image_urls").and_then(Value::as_array);
        for url in urls.into_iter().flatten().filter_map(Value::as_str) {
            if !url.trim().is_empty() {
                msg.parts.push(Part::Image(image::from_url(url)));
            }
        }
        if let Some(response) = item.value.pointer("/tool_call_metadata/model_response") {
            self.attach_response(&mut msg, response);
        }
        self.session.push(msg);
    }

    /// V0 renders `finish` as a plain assistant message: the thought, followed by the response
    /// text when it differs.
    fn finish_action(&mut self, item: &Item<'_>, args: &Value, metadata: Option<&Value>) {
        let response = metadata.and_then(|m| m.get("model_response"));
        let content = response
            .and_then(|r| r.pointer("/choices/0/message/content"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let thought = thought_text(args);
        let mut text = match (thought.is_empty(), content.is_empty() || content == thought) {
            (true, _) => content.to_string(),
            (false, true) => thought.to_string(),
            (false, false) => format!("{thought}\n{content}"),
        };
        if text.is_empty() {
            text = str_at(args, "final_thought")
                .unwrap_or_default()
                .to_string();
        }
        let mut msg = self.new_message(Role::Assistant, item);
        msg.parts.push(Part::text(text));
        if let Some(response) = response {
            self.attach_response(&mut msg, response);
        }
        self.session.push(msg);
    }

    fn tool_action(&mut self, item: &Item<'_>, args: &Value, metadata: &Value) {
        let response = metadata.get("model_response").unwrap_or(&Value::Null);
        let call_id = str_at(metadata, "tool_call_id")
            .map_or_else(|| format!("{}:0", item.index), str::to_string);
        let name = str_at(metadata, "function_name")
            .unwrap_or_default()
            .to_string();
        let arguments = response_arguments(response, &call_id).unwrap_or_else(|| to_json(args));
        if let Some(id) = u64_at(item.value, "id") {
            self.calls.insert(id, call_id.clone());
        }
        let call = Part::ToolCall {
            id: call_id,
            name,
            arguments,
            server: false,
        };
        let response_id = str_at(response, "id").map(str::to_string);
        let existing = response_id
            .as_ref()
            .and_then(|id| self.responses.get(id).copied());
        if let Some(msg) = existing.and_then(|i| self.session.messages.get_mut(i)) {
            msg.parts.push(call);
            msg.source_indices.push(item.index);
            return;
        }
        let mut msg = self.new_message(Role::Assistant, item);
        let message = response
            .pointer("/choices/0/message")
            .unwrap_or(&Value::Null);
        if let Some(reasoning) = str_at(message, "reasoning_content").filter(|r| !r.is_empty()) {
            msg.parts.push(Part::Reasoning {
                text: reasoning.to_string(),
                opaque_len: 0,
            });
        }
        // V0 sends the response's own text (the thought is a copy of it).
        let text = str_at(message, "content").unwrap_or_else(|| thought_text(args));
        if !text.trim().is_empty() {
            msg.parts.push(Part::text(text));
        }
        msg.parts.push(call);
        self.attach_response(&mut msg, response);
        let index = self.session.push(msg);
        if let Some(id) = response_id {
            self.responses.insert(id, index);
        }
    }

    fn attach_response(&mut self, msg: &mut Message, response: &Value) {
        msg.model = str_at(response, "model").map(str::to_string);
        if msg.model.is_some() {
            self.session.model = msg.model.clone();
        }
        let first = str_at(response, "id").is_none_or(|id| self.counted.insert(id.to_string()));
        if first {
            msg.usage = response.get("usage").and_then(usage);
        }
    }

    fn observation(&mut self, item: &Item<'_>, observation: &str) {
        let v = item.value;
        if QUIET_OBSERVATIONS.contains(&observation) {
            return;
        }
        let content = str_at(v, "content").unwrap_or_default();
        let call_id = v
            .pointer("/tool_call_metadata/tool_call_id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| u64_at(v, "cause").and_then(|c| self.calls.get(&c).cloned()));
        let mut msg;
        match (call_id, observation) {
            (Some(call_id), _) => {
                msg = self.new_message(Role::Tool, item);
                msg.parts.push(Part::ToolResult {
                    call_id,
                    content: vec![Part::text(content)],
                    is_error: error_flag(v, observation),
                });
            }
            (None, "condense") => {
                msg = self.new_message(Role::User, item);
                msg.parts.push(Part::Summary {
                    text: content.to_string(),
                });
            }
            (None, "recall") => {
                let parts = recall_parts(v.get("extras").unwrap_or(&Value::Null));
                if parts.is_empty() {
                    return;
                }
                msg = self.new_message(Role::User, item);
                msg.parts = parts;
            }
            (None, known) if CONTENT_OBSERVATIONS.contains(&known) => {
                msg = self.new_message(Role::User, item);
                msg.parts.push(Part::text(content));
            }
            (None, other) => return self.unknown(item, other),
        }
        self.session.push(msg);
    }

    /// `args.forgotten_event_ids` (or a start/end id range) name what it forgets; the mark has
    /// no slot for them, the raw record keeps them.
    fn condensation(&mut self, item: &Item<'_>, args: &Value) {
        let summary = str_at(args, "summary").map(str::to_string);
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
            self.session.push(msg);
        }
    }

    fn unknown(&mut self, item: &Item<'_>, kind: &str) {
        let mut msg = self.new_message(Role::Event, item);
        msg.parts.push(Part::Opaque {
            kind: kind.to_string(),
            raw: to_json(item.value),
        });
        self.session.push(msg);
    }
}
