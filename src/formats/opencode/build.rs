//! opencode's stored messages and parts as the common model: what the model was sent.
//!
//! Owns: mapping one message record and its part records onto messages, following what
//! opencode sends (`toModelMessages` in `packages/opencode/src/session/message-v2.ts`):
//! - a user message's `text` parts (not `ignored` ones); `file` parts that are not text or a
//!   directory (those opencode has already turned into synthetic text parts) as images or
//!   files; a `compaction` part as the text "What did we do so far?" and a compaction mark;
//!   a `subtask` part as "The following tool was executed by the user";
//! - an assistant message's `text`, `reasoning` and `tool` parts, cut into one message per
//!   step (`step-start`), as the AI SDK does; each tool part is a call in the assistant
//!   message and a result in a tool message right after it, paired by `callID`: the
//!   `output` of a completed call (the placeholder "[Old tool result content cleared]" once
//!   `time.compacted` is set), the `error` of a failed one, "[Tool execution was
//!   interrupted]" for one still pending or running;
//! - an assistant `summary: true` message (the compaction's answer) as a summary;
//! - an assistant message that failed, which opencode does not send again, and a message with
//!   nothing opencode sends, are reported as skipped records, not made empty messages.
//!
//! Usage is the message's `tokens` (Anthropic style: `input` excludes the cache).

use serde_json::Value;

use super::super::common::{str_at, to_json, u64_at};
use super::storage::Record;
use crate::formats::image;
use crate::session::{CompactionMark, ImageRef, Message, Part, Role, Session, Usage};

/// The text opencode sends for a compaction part.
const COMPACTION_PROMPT: &str = "What did we do so far?";
/// The text opencode sends for a subtask part.
const SUBTASK_PROMPT: &str = "The following tool was executed by the user";
/// The output opencode sends for a tool result it has compacted (pruned).
pub const CLEARED: &str = "[Old tool result content cleared]";
/// The error opencode sends for a call that never finished.
const INTERRUPTED: &str = "[Tool execution was interrupted]";

/// Builds a session's messages from its records, in order.
pub struct Builder {
    pub session: Session,
    /// Context the last assistant message left (input, cache and output), for the next
    /// compaction mark's `pre_tokens`.
    last_context: Option<u64>,
}

impl Builder {
    pub fn new(session: Session) -> Builder {
        Builder {
            session,
            last_context: None,
        }
    }

    /// One message record and its parts.
    pub fn message(&mut self, record: &Record, parts: &[Record]) {
        let v = &record.value;
        match str_at(v, "role") {
            Some("user") => self.user(record, parts),
            Some("assistant") => self.assistant(record, parts),
            other => {
                let role = other.map_or("no role".to_string(), |r| format!("role `{r}`"));
                self.session.skip(
                    record.index + 1,
                    format!("an opencode message with {role}: expected user or assistant"),
                );
            }
        }
    }

    fn new_message(&self, role: Role, record: &Record, parts: &[Record]) -> Message {
        let mut m = Message::new(role, record.index);
        m.source_indices.extend(parts.iter().map(|p| p.index));
        m.raw = Some(record.range.0..record.range.1);
        m.id = str_at(&record.value, "id").map(str::to_string);
        m.timestamp = record
            .value
            .pointer("/time/created")
            .and_then(Value::as_f64)
            .and_then(|ms| crate::formats::shared::iso_from_epoch(ms / 1000.0));
        m
    }

    fn user(&mut self, record: &Record, parts: &[Record]) {
        let mut m = self.new_message(Role::User, record, parts);
        let mut compaction: Option<&Value> = None;
        for part in parts {
            let p = &part.value;
            match str_at(p, "type") {
                Some("text") if p.get("ignored").and_then(Value::as_bool) != Some(true) => {
                    m.parts
                        .push(Part::text(str_at(p, "text").unwrap_or_default()));
                }
                Some("file") => {
                    let mime = str_at(p, "mime").unwrap_or_default();
                    if mime != "text/plain" && mime != "application/x-directory" {
                        m.parts.push(file(p, mime));
                    }
                }
                Some("compaction") => {
                    compaction = Some(p);
                    m.parts.push(Part::text(COMPACTION_PROMPT));
                }
                Some("subtask") => m.parts.push(Part::text(SUBTASK_PROMPT)),
                _ => {}
            }
        }
        if let Some(part) = compaction {
            let auto = part.get("auto").and_then(Value::as_bool);
            self.session.mark(CompactionMark {
                kind: "compaction".to_string(),
                source_index: record.index,
                before_message: 0,
                trigger: auto.map(|a| if a { "auto" } else { "manual" }.to_string()),
                pre_tokens: self.last_context,
                post_tokens: None,
                summary: None,
            });
        }
        if m.parts.is_empty() {
            self.session.skip(
                record.index + 1,
                "an opencode user message with no part opencode sends (text, file, compaction, subtask)",
            );
            return;
        }
        self.session.push(m);
    }

    fn assistant(&mut self, record: &Record, parts: &[Record]) {
        let v = &record.value;
        if let Some(error) = v.get("error").filter(|e| !e.is_null()) {
            let name = str_at(error, "name").unwrap_or("an error");
            let aborted = name == "MessageAbortedError";
            let content = parts
                .iter()
                .any(|p| !matches!(str_at(&p.value, "type"), Some("step-start" | "reasoning")));
            if !(aborted && content) {
                self.session.skip(
                    record.index + 1,
                    format!("an opencode assistant message that failed ({name}): opencode does not send it again"),
                );
                return;
            }
        }
        let summary = v.get("summary").and_then(Value::as_bool) == Some(true);
        let usage = usage(v);
        let model = str_at(v, "modelID").map(str::to_string);

        // One block per step, as the AI SDK cuts the message at `step-start`.
        let mut blocks: Vec<Vec<&Value>> = vec![Vec::new()];
        for part in parts {
            let p = &part.value;
            match str_at(p, "type") {
                Some("step-start") if blocks.last().is_some_and(|b| !b.is_empty()) => {
                    blocks.push(Vec::new())
                }
                Some("text" | "reasoning" | "tool") => {
                    if let Some(block) = blocks.last_mut() {
                        block.push(p);
                    }
                }
                _ => {}
            }
        }
        blocks.retain(|b| !b.is_empty());
        if blocks.is_empty() {
            self.session.skip(
                record.index + 1,
                "an opencode assistant message with no text, reasoning or tool part",
            );
            return;
        }
        let last = blocks.len() - 1;
        let mut summary_text = Vec::new();
        for (i, block) in blocks.iter().enumerate() {
            let mut m = self.new_message(Role::Assistant, record, parts);
            m.model.clone_from(&model);
            let mut results = Vec::new();
            for p in block {
                match str_at(p, "type") {
                    Some("text") => {
                        let text = str_at(p, "text").unwrap_or_default().to_string();
                        if summary {
                            summary_text.push(text.clone());
                            m.parts.push(Part::Summary { text });
                        } else {
                            m.parts.push(Part::Text { text });
                        }
                    }
                    Some("reasoning") => m.parts.push(Part::Reasoning {
                        text: str_at(p, "text").unwrap_or_default().to_string(),
                        opaque_len: 0,
                    }),
                    _ => {
                        let (call, result) = tool(p);
                        m.parts.push(call);
                        results.push(result);
                    }
                }
            }
            if i == last {
                m.usage.clone_from(&usage);
            }
            self.session.push(m);
            if !results.is_empty() {
                let mut t = self.new_message(Role::Tool, record, parts);
                t.parts = results;
                self.session.push(t);
            }
        }
        if summary {
            if let Some(mark) = self.session.marks.last_mut() {
                if mark.summary.is_none() {
                    mark.summary = Some(summary_text.join("\n"));
                }
            }
        } else if let Some(context) = usage.as_ref().and_then(Usage::context_total) {
            self.last_context = Some(context);
        }
    }
}

/// A tool part as the call the assistant made and the result sent back.
fn tool(p: &Value) -> (Part, Part) {
    let id = str_at(p, "callID").unwrap_or_default().to_string();
    let state = p.get("state").unwrap_or(&Value::Null);
    let input = state.get("input").map_or_else(|| "{}".to_string(), to_json);
    let call = Part::ToolCall {
        id: id.clone(),
        name: str_at(p, "tool").unwrap_or_default().to_string(),
        arguments: input,
        server: p
            .pointer("/metadata/providerExecuted")
            .and_then(Value::as_bool)
            == Some(true),
    };
    let (text, is_error, attachments) = match str_at(state, "status") {
        Some("completed") => {
            let compacted = state
                .pointer("/time/compacted")
                .is_some_and(|c| !c.is_null());
            let text = if compacted {
                CLEARED.to_string()
            } else {
                str_at(state, "output").unwrap_or_default().to_string()
            };
            let attachments = match state.get("attachments").and_then(Value::as_array) {
                Some(list) if !compacted => list.iter().collect(),
                _ => Vec::new(),
            };
            (text, false, attachments)
        }
        Some("error") => {
            let interrupted = state
                .pointer("/metadata/interrupted")
                .and_then(Value::as_bool);
            match state.pointer("/metadata/output").and_then(Value::as_str) {
                Some(output) if interrupted == Some(true) => (output.to_string(), false, vec![]),
                _ => (
                    str_at(state, "error").unwrap_or_default().to_string(),
                    true,
                    vec![],
                ),
            }
        }
        _ => (INTERRUPTED.to_string(), true, vec![]),
    };
    let mut content = vec![Part::text(text)];
    for a in attachments {
        content.push(file(a, str_at(a, "mime").unwrap_or_default()));
    }
    let result = Part::ToolResult {
        call_id: id,
        content,
        is_error: Some(is_error),
    };
    (call, result)
}

/// A file part: an image as an image, anything else kept opaque (its bytes are not text the
/// model reads as such).
fn file(p: &Value, mime: &str) -> Part {
    let url = str_at(p, "url").unwrap_or_default();
    if mime.starts_with("image/") {
        let mut img: ImageRef = image::from_url(url);
        if img.media_type.is_none() {
            img.media_type = Some(mime.to_string());
        }
        return Part::Image(img);
    }
    Part::Opaque {
        kind: "file".to_string(),
        raw: to_json(p),
    }
}

/// The message's `tokens`: Anthropic style, `input` without the cache.
fn usage(v: &Value) -> Option<Usage> {
    let t = v.get("tokens")?;
    let cache = t.get("cache");
    Some(Usage {
        input: u64_at(t, "input"),
        output: u64_at(t, "output"),
        cache_read: cache.and_then(|c| u64_at(c, "read")),
        cache_write: cache.and_then(|c| u64_at(c, "write")),
        reasoning: u64_at(t, "reasoning"),
        total: u64_at(t, "total"),
        input_includes_cache: false,
    })
}
