//! One agent's events (the main agent's, or one sub-agent's) read into messages.
//!
//! Owns: what the model sees of each event, as the CLI's requests show it (the request bodies
//! `tools/oracle/copilot/run.sh` keeps):
//! - `system.message` is the system (or developer) prompt. The CLI records it again with each
//!   user message and sends only the latest, so the prompts are one message, first, holding the
//!   latest text and every record's index.
//! - `user.message`: the `transformedContent` sent (the typed `content` with the CLI's
//!   `<current_datetime>` and the like), else the `content`.
//! - `assistant.message`: reasoning (`reasoningText`, or the `assistant.reasoning` events
//!   before it; encrypted reasoning counted by its length), the `content` text and one tool call
//!   per `toolRequests` entry (`toolCallId`, `name`, `arguments`).
//! - `tool.execution_complete`: a tool message answering `toolCallId` with `result.content`
//!   (what the model is sent), or `error.message` when `success` is false.
//! - `session.usage_record` (`usage`, this CLI) and `assistant.usage` (older CLIs persisted it):
//!   the usage of the API call `apiCallId`, put on the first assistant message of that call.
//!   `inputTokens` includes the cached tokens: the CLI itself takes the uncached input as
//!   `inputTokens - cacheReadTokens - cacheWriteTokens` and the cache-read ratio as
//!   `cacheReadTokens / inputTokens`.
//! - `session.compaction_complete`: a `compaction` mark (its trigger from the matching
//!   `session.compaction_start`, the token counts before and after) and the summary, which the
//!   CLI sends as a user message (wrapped with the user's earlier messages); a failed
//!   compaction is an event. `session.truncation` is a `truncation` mark.
//! - Bookkeeping (turn and tool starts, usage checkpoints, model and mode changes, sub-agent
//!   lifecycle, the summarizer call's own `model.*` trace, …) makes no message; any other event
//!   (errors, warnings, notifications, types this reader does not know) is kept as an event.

use std::collections::HashMap;

use serde_json::Value;

use crate::formats::common::{arguments_text, str_at, to_json, u64_at, Item};
use crate::session::{CompactionMark, Message, Part, Role, Session, Usage};

/// Events that carry nothing the model is sent and nothing a reader of the session needs.
const BOOKKEEPING: &[&str] = &[
    "session.start",
    "session.resume",
    "session.shutdown",
    "session.idle",
    "session.title_changed",
    "session.model_change",
    "session.mode_changed",
    "session.context_changed",
    "session.usage_info",
    "session.usage_checkpoint",
    "session.tools_updated",
    "session.skills_loaded",
    "session.mcp_servers_loaded",
    "session.background_tasks_changed",
    "session.remote_steerable_changed",
    "session.permissions_changed",
    "pending_messages.modified",
    "assistant.turn_start",
    "assistant.turn_end",
    "assistant.idle",
    "assistant.intent",
    "assistant.message_start",
    "assistant.message_delta",
    "assistant.reasoning_delta",
    "assistant.streaming_delta",
    "assistant.tool_call_delta",
    "tool.execution_start",
    "tool.execution_progress",
    "tool.execution_partial_result",
    "tool.shell_output",
    "subagent.started",
    "subagent.selected",
    "subagent.deselected",
    "subagent.configured",
    "subagent.completed",
    "hook.start",
    "hook.end",
    "hook.progress",
    "permission.requested",
    "permission.completed",
];

/// One agent's session being read, event by event.
pub(super) struct Agent {
    pub session: Session,
    /// The message holding the system prompt.
    system: Option<usize>,
    /// The first assistant message of each API call (`apiCallId`), the latest call of an id.
    by_call: HashMap<String, usize>,
    /// Usage of API calls whose message is still to come.
    pending: HashMap<String, Usage>,
    /// Usage recorded without an `apiCallId`, for the next assistant message.
    loose: Option<Usage>,
    /// `assistant.reasoning` text for the next assistant message.
    reasoning: Vec<String>,
    /// The trigger of each compaction started (`compactionAttemptId`), and of the last.
    triggers: HashMap<String, String>,
    last_trigger: Option<String>,
}

impl Agent {
    pub fn new(session: Session) -> Agent {
        Agent {
            session,
            system: None,
            by_call: HashMap::new(),
            pending: HashMap::new(),
            loose: None,
            reasoning: Vec::new(),
            triggers: HashMap::new(),
            last_trigger: None,
        }
    }

    pub fn finish(self) -> Session {
        self.session
    }

    pub fn read(&mut self, item: Item<'_>) {
        let v = item.value;
        let line = item.index + 1;
        let Some(kind) = str_at(v, "type") else {
            return self
                .session
                .skip(line, "a Copilot CLI event without its type");
        };
        let Some(data) = v.get("data").filter(|d| d.is_object()) else {
            return self
                .session
                .skip(line, format!("a Copilot CLI {kind} event without data"));
        };
        match kind {
            "system.message" => self.system(item, data),
            "user.message" => self.user(item, data),
            "assistant.reasoning" => match str_at(data, "content") {
                Some(text) => self.reasoning.push(text.to_string()),
                None => self
                    .session
                    .skip(line, "an assistant.reasoning event without content"),
            },
            "assistant.message" => self.assistant(item, data),
            "tool.execution_complete" => self.result(item, data),
            "session.usage_record" => match data.get("usage").filter(|u| u.is_object()) {
                Some(u) => self.usage(u),
                None => self
                    .session
                    .skip(line, "a session.usage_record without its usage"),
            },
            "assistant.usage" => self.usage(data),
            "session.compaction_start" => {
                let trigger = str_at(data, "trigger").map(str::to_string);
                if let (Some(id), Some(t)) = (str_at(data, "compactionAttemptId"), &trigger) {
                    self.triggers.insert(id.to_string(), t.clone());
                }
                self.last_trigger = trigger;
            }
            "session.compaction_complete" => self.compaction(item, data),
            "session.truncation" => self.session.mark(CompactionMark {
                kind: "truncation".to_string(),
                source_index: item.index,
                before_message: 0,
                trigger: str_at(data, "performedBy").map(str::to_string),
                pre_tokens: u64_at(data, "preTruncationTokensInMessages"),
                post_tokens: u64_at(data, "postTruncationTokensInMessages"),
                summary: None,
            }),
            _ if kind.starts_with("model.") || BOOKKEEPING.contains(&kind) => {}
            _ => {
                let part = Part::Opaque {
                    kind: kind.to_string(),
                    raw: to_json(data),
                };
                self.push(item, Role::Event, vec![part]);
            }
        }
    }

    /// The system prompt: the first makes the session's first message, a later one replaces
    /// its text (the CLI sends only the latest).
    fn system(&mut self, item: Item<'_>, data: &Value) {
        let Some(text) = str_at(data, "content") else {
            return self
                .session
                .skip(item.index + 1, "a system.message without content");
        };
        let role = match str_at(data, "role") {
            Some("developer") => Role::Developer,
            _ => Role::System,
        };
        if let Some(msg) = self.system.and_then(|at| self.session.messages.get_mut(at)) {
            msg.parts = vec![Part::text(text)];
            msg.source_indices.push(item.index);
            return;
        }
        let mut msg = message(item, role);
        msg.parts.push(Part::text(text));
        let session = &mut self.session;
        session.messages.insert(0, msg);
        session.renumber();
        for mark in &mut session.marks {
            mark.before_message += 1;
        }
        for at in self.by_call.values_mut() {
            *at += 1;
        }
        self.system = Some(0);
    }

    fn user(&mut self, item: Item<'_>, data: &Value) {
        let text = str_at(data, "transformedContent").or_else(|| str_at(data, "content"));
        let Some(text) = text else {
            return self
                .session
                .skip(item.index + 1, "a user.message without content");
        };
        self.push(item, Role::User, vec![Part::text(text)]);
    }

    fn assistant(&mut self, item: Item<'_>, data: &Value) {
        let Some(content) = str_at(data, "content") else {
            return self
                .session
                .skip(item.index + 1, "an assistant.message without content");
        };
        let mut parts = Vec::new();
        let pending = std::mem::take(&mut self.reasoning);
        match str_at(data, "reasoningText").filter(|t| !t.is_empty()) {
            Some(text) => parts.push(reasoning(text, 0)),
            None => parts.extend(pending.iter().map(|t| reasoning(t, 0))),
        }
        let opaque = ["reasoningOpaque", "encryptedContent"]
            .iter()
            .find_map(|k| str_at(data, k))
            .map_or(0, str::len);
        if opaque > 0 && parts.is_empty() {
            parts.push(reasoning("", opaque));
        }
        if !content.is_empty() {
            parts.push(Part::text(content));
        }
        let requests = data.get("toolRequests").and_then(Value::as_array);
        for request in requests.into_iter().flatten() {
            parts.push(Part::ToolCall {
                id: str_at(request, "toolCallId").unwrap_or("").to_string(),
                name: str_at(request, "name").unwrap_or("").to_string(),
                arguments: arguments_text(request.get("arguments")),
                server: false,
            });
        }
        if parts.is_empty() {
            return self.session.skip(
                item.index + 1,
                "an assistant.message with no text, reasoning or tool requests",
            );
        }
        let call = str_at(data, "apiCallId");
        let recorded = call.and_then(|id| self.pending.remove(id));
        // The first message of a call; a call's later chunks come with none of its usage.
        let first = recorded.is_some() || call.is_some_and(|id| !self.by_call.contains_key(id));
        let usage = recorded.or_else(|| self.loose.take());
        let at = self.push(item, Role::Assistant, parts);
        if let Some(msg) = self.session.messages.get_mut(at) {
            msg.usage = usage;
            msg.model = str_at(data, "model").map(str::to_string);
            msg.id = str_at(data, "messageId")
                .map(str::to_string)
                .or(msg.id.take());
        }
        if let Some(id) = call.filter(|_| first) {
            self.by_call.insert(id.to_string(), at);
        }
    }

    fn result(&mut self, item: Item<'_>, data: &Value) {
        let line = item.index + 1;
        let Some(call_id) = str_at(data, "toolCallId") else {
            return self
                .session
                .skip(line, "a tool.execution_complete without toolCallId");
        };
        let ok = data.get("success").and_then(Value::as_bool);
        let text = match ok {
            Some(false) => data.pointer("/error/message").and_then(Value::as_str),
            _ => data.pointer("/result/content").and_then(Value::as_str),
        };
        let Some(text) = text else {
            let what = if ok == Some(false) {
                "a failed tool.execution_complete without error.message"
            } else {
                "a tool.execution_complete without result.content"
            };
            return self.session.skip(line, what);
        };
        let part = Part::ToolResult {
            call_id: call_id.to_string(),
            content: vec![Part::text(text)],
            is_error: ok.map(|ok| !ok),
        };
        self.push(item, Role::Tool, vec![part]);
    }

    /// The usage of one API call: on its message when that was read and has none (older CLIs
    /// wrote it after the message), else kept for the message to come (this CLI writes it
    /// before; a provider may reuse an id across resumed runs).
    fn usage(&mut self, u: &Value) {
        let usage = Usage {
            input: u64_at(u, "inputTokens"),
            output: u64_at(u, "outputTokens"),
            cache_read: u64_at(u, "cacheReadTokens"),
            cache_write: u64_at(u, "cacheWriteTokens"),
            reasoning: u64_at(u, "reasoningTokens"),
            total: None,
            input_includes_cache: true,
        };
        if usage.input.is_none() && usage.output.is_none() {
            return;
        }
        let Some(call) = str_at(u, "apiCallId") else {
            self.loose = Some(usage);
            return;
        };
        let read = self.by_call.get(call).copied();
        match read.and_then(|at| self.session.messages.get_mut(at)) {
            Some(msg) if msg.usage.is_none() => msg.usage = Some(usage),
            _ => {
                self.pending.insert(call.to_string(), usage);
            }
        }
    }

    /// A compaction: the mark, then the summary the model is sent in place of the history.
    fn compaction(&mut self, item: Item<'_>, data: &Value) {
        if data.get("success").and_then(Value::as_bool) == Some(false) {
            let part = Part::Opaque {
                kind: "session.compaction_complete".to_string(),
                raw: to_json(data),
            };
            self.push(item, Role::Event, vec![part]);
            return;
        }
        let attempt = str_at(data, "compactionAttemptId");
        let trigger = str_at(data, "trigger")
            .map(str::to_string)
            .or_else(|| attempt.and_then(|id| self.triggers.get(id).cloned()))
            .or_else(|| self.last_trigger.take());
        let summary = str_at(data, "summaryContent").filter(|s| !s.is_empty());
        self.session.mark(CompactionMark {
            kind: "compaction".to_string(),
            source_index: item.index,
            before_message: 0,
            trigger,
            pre_tokens: u64_at(data, "preCompactionTokens"),
            post_tokens: u64_at(data, "postCompactionTokens"),
            summary: summary.map(str::to_string),
        });
        if let Some(text) = summary {
            let part = Part::Summary {
                text: text.to_string(),
            };
            self.push(item, Role::User, vec![part]);
        }
    }

    fn push(&mut self, item: Item<'_>, role: Role, parts: Vec<Part>) -> usize {
        let mut msg = message(item, role);
        msg.parts = parts;
        self.session.push(msg)
    }
}

fn message(item: Item<'_>, role: Role) -> Message {
    let v = item.value;
    let mut msg = Message::new(role, item.index);
    msg.raw = item.range();
    msg.timestamp = str_at(v, "timestamp").map(str::to_string);
    msg.id = str_at(v, "id").map(str::to_string);
    msg
}

fn reasoning(text: &str, opaque_len: usize) -> Part {
    Part::Reasoning {
        text: text.to_string(),
        opaque_len,
    }
}
