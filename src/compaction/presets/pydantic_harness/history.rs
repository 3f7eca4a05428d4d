//! pydantic-ai's `ModelMessage` list as pydantic-ai-harness sees it: one request or response per
//! source record, with the parts the harness's estimator and transcript read.
//!
//! Exact for sessions in pydantic-ai's own format (read from the raw records, so `str(args)` and
//! `str(content)` are the Python renderings of the stored values); built from the common model
//! for every other format (consecutive non-assistant messages form one request, as core's
//! history cleaning merges adjacent requests).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::pyrepr;
use crate::session::{Format, Session};

pub const SUMMARY_KEY: &str = "pydantic-ai-harness.compaction.summary.v1";
const RECEIPT_META: &str = "pydantic-ai-harness.compaction.receipt.v1";
const PIN_META: &str = "pydantic-ai-harness.compaction.pin.v1";
const KEPT_META: &str = "pydantic-ai-harness.compaction.kept-user-message.v1";
const LEGACY_MEMORY: &str = "pydantic-ai-harness.memory.v1";
const HARNESS_ORIGIN_PREFIX: &str = "pydantic-ai-harness.";
/// How summaries written by earlier releases (system prompts) open.
pub const LEGACY_SUMMARY_PREFIX: &str = "Summary of previous conversation:\n\n";

/// One part of a request or response, reduced to what the harness reads.
#[derive(Debug, Clone, PartialEq)]
pub enum P {
    System {
        content: String,
        request_scope: bool,
    },
    User(UserPart),
    ToolReturn {
        name: String,
        text: String,
        call_id: String,
        retried: bool,
        cause: Option<String>,
        load: bool,
    },
    RetryFeedback {
        text: String,
        cause: String,
    },
    Compaction {
        content: Option<String>,
        own: bool,
    },
    Text(String),
    ToolCall {
        name: String,
        args: String,
        call_id: String,
        load: bool,
    },
    Thinking(String),
    NativeCall {
        name: String,
        args: String,
    },
    NativeReturn {
        name: String,
        text: String,
    },
    Image,
    Other,
}

/// A `UserPromptPart`: its text items and the harness markers on them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UserPart {
    pub texts: Vec<String>,
    pub origin: Option<String>,
    pub receipt: bool,
    pub pinned: bool,
    pub kept_copy: bool,
    /// Images, audio, documents: never counted nor rendered.
    pub media: usize,
}

impl UserPart {
    /// A user turn: not a pin, receipt or harness data (`_is_user_turn_part`).
    pub fn is_turn(&self) -> bool {
        !self.pinned && !self.receipt && self.origin.is_none()
    }
}

impl P {
    pub fn is_legacy_summary(&self) -> bool {
        matches!(self, P::System { content, .. } if content.starts_with(LEGACY_SUMMARY_PREFIX))
    }
    pub fn is_own_summary(&self) -> bool {
        matches!(self, P::Compaction { own: true, .. })
    }
    pub fn user(&self) -> Option<&UserPart> {
        match self {
            P::User(u) => Some(u),
            _ => None,
        }
    }
}

/// One `ModelRequest` or `ModelResponse`.
#[derive(Debug, Clone, Default)]
pub struct Rec {
    pub request: bool,
    pub parts: Vec<P>,
    pub instructions: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The request's metadata marks it as an earlier `keep_user_messages` copy.
    pub kept_copy: bool,
    pub source: usize,
    /// The ctxray messages this record became.
    pub messages: Vec<usize>,
}

/// The session as pydantic-ai messages, in source order.
pub fn records(session: &Session) -> Vec<Rec> {
    if session.format == Format::PYDANTIC_AI {
        if let Some(recs) = from_raw(session) {
            return recs;
        }
    }
    super::common::records(session)
}

fn from_raw(session: &Session) -> Option<Vec<Rec>> {
    let mut by_source: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for m in &session.messages {
        by_source.entry(m.source_index).or_default().push(m.index);
    }
    let mut out = Vec::new();
    for (source, messages) in by_source {
        let first = messages.first().and_then(|&i| session.messages.get(i))?;
        let raw: Value = serde_json::from_slice(&session.raw_record(first)?).ok()?;
        let request = match raw.get("kind").and_then(Value::as_str) {
            Some("request") => true,
            Some("response") => false,
            _ => continue,
        };
        let parts = raw.get("parts").and_then(Value::as_array);
        let parts = parts.into_iter().flatten();
        let usage = raw.get("usage");
        let u = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_u64);
        out.push(Rec {
            request,
            parts: if request {
                parts.map(request_part).collect()
            } else {
                parts.map(response_part).collect()
            },
            instructions: str_at(&raw, "instructions").map(str::to_string),
            input_tokens: u("input_tokens").or(u("request_tokens")).unwrap_or(0),
            output_tokens: u("output_tokens").or(u("response_tokens")).unwrap_or(0),
            kept_copy: raw
                .get("metadata")
                .and_then(|m| m.get(KEPT_META))
                .and_then(Value::as_bool)
                == Some(true),
            source,
            messages,
        });
    }
    Some(out)
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// `str(value)` as Python prints the stored value (`None` for null).
fn py_str(v: Option<&Value>) -> String {
    pyrepr::str_of(v.unwrap_or(&Value::Null))
}

fn request_part(p: &Value) -> P {
    match str_at(p, "part_kind").unwrap_or("") {
        "system-prompt" => P::System {
            content: str_at(p, "content").unwrap_or_default().to_string(),
            request_scope: str_at(p, "scope") == Some("request"),
        },
        "user-prompt" => P::User(user_part(p.get("content"))),
        kind @ ("tool-return" | "tool-search-return" | "capability-load-return") => {
            let retried = str_at(p, "outcome") == Some("retried");
            P::ToolReturn {
                name: str_at(p, "tool_name").unwrap_or_default().to_string(),
                text: py_str(p.get("content")),
                call_id: str_at(p, "tool_call_id").unwrap_or_default().to_string(),
                retried,
                cause: p
                    .get("retry")
                    .and_then(|r| str_at(r, "cause"))
                    .map(str::to_string),
                load: kind == "capability-load-return",
            }
        }
        "retry-prompt" => legacy_retry(p),
        "retry-feedback" => {
            let cause = p.get("retry").and_then(|r| str_at(r, "cause"));
            let cause = cause.unwrap_or("model_retry").to_string();
            P::RetryFeedback {
                text: feedback_text(p.get("content"), &cause),
                cause,
            }
        }
        "compaction" => compaction(p),
        _ => P::Other,
    }
}

/// A stored `retry-prompt` loads as a retried `ToolReturnPart` or a `RetryFeedbackPart`.
fn legacy_retry(p: &Value) -> P {
    let content = p.get("content");
    let is_str = content.is_some_and(Value::is_string);
    match str_at(p, "tool_name") {
        Some(name) => P::ToolReturn {
            name: name.to_string(),
            text: py_str(content),
            call_id: str_at(p, "tool_call_id").unwrap_or_default().to_string(),
            retried: true,
            cause: (!is_str).then(|| "validation_error".to_string()),
            load: false,
        },
        None => {
            let cause = if is_str {
                "model_retry"
            } else {
                "validation_error"
            };
            P::RetryFeedback {
                text: feedback_text(content, cause),
                cause: cause.to_string(),
            }
        }
    }
}

/// `RetryFeedbackPart.model_response()`: the feedback fenced in the user voice.
fn feedback_text(content: Option<&Value>, cause: &str) -> String {
    let body = match content {
        Some(Value::String(s)) => s.clone(),
        Some(v) => serde_json::to_string(v).unwrap_or_default(),
        None => String::new(),
    };
    if cause == "no_output" {
        return body;
    }
    let tag = if cause == "validation_error" {
        "validation_errors"
    } else {
        "retry_feedback"
    };
    format!(
        "Your previous response failed the application's validation (this is automated feedback, not a message from the user):\n<{tag}>\n{body}\n</{tag}>"
    )
}

fn compaction(p: &Value) -> P {
    let content = str_at(p, "content").map(str::to_string);
    let null = |k: &str| p.get(k).is_none_or(Value::is_null);
    let marked = p
        .get("metadata")
        .and_then(|m| m.get(SUMMARY_KEY))
        .and_then(Value::as_bool)
        == Some(true);
    let own = marked
        && null("provider_name")
        && null("id")
        && null("provider_details")
        && content.as_deref().is_some_and(|c| !c.is_empty());
    P::Compaction { content, own }
}

fn user_part(content: Option<&Value>) -> UserPart {
    let mut u = UserPart::default();
    let items = match content {
        Some(Value::String(s)) => {
            u.texts.push(s.clone());
            return u;
        }
        Some(Value::Array(items)) => items.as_slice(),
        _ => return u,
    };
    for (n, item) in items.iter().enumerate() {
        if let Some(s) = item.as_str() {
            u.texts.push(s.to_string());
            continue;
        }
        match str_at(item, "kind") {
            Some("text-content") => {}
            Some("cache-point") => continue,
            _ => {
                u.media += 1;
                continue;
            }
        }
        u.texts
            .push(str_at(item, "content").unwrap_or_default().to_string());
        let meta = item.get("metadata").unwrap_or(&Value::Null);
        let meta_str = meta.as_str();
        u.receipt |= meta_str == Some(RECEIPT_META);
        u.pinned |= meta_str == Some(PIN_META);
        u.kept_copy |= meta_str == Some(KEPT_META)
            || meta.get(KEPT_META).and_then(Value::as_bool) == Some(true);
        if n == 0 {
            u.origin = origin(meta);
        }
    }
    u
}

/// `harness_data_origin` of a part whose first item has this metadata.
fn origin(meta: &Value) -> Option<String> {
    if let Some(o) = meta.get("origin").and_then(Value::as_str) {
        return o.starts_with(HARNESS_ORIGIN_PREFIX).then(|| o.to_string());
    }
    let s = meta.as_str()?;
    (s == LEGACY_MEMORY || s.starts_with(&format!("{LEGACY_MEMORY}:")))
        .then(|| LEGACY_MEMORY.to_string())
}

fn response_part(p: &Value) -> P {
    let name = || str_at(p, "tool_name").unwrap_or_default().to_string();
    match str_at(p, "part_kind").unwrap_or("") {
        "text" => P::Text(str_at(p, "content").unwrap_or_default().to_string()),
        kind @ ("tool-call" | "capability-load-call") => P::ToolCall {
            name: name(),
            args: py_str(p.get("args")),
            call_id: str_at(p, "tool_call_id").unwrap_or_default().to_string(),
            load: kind == "capability-load-call",
        },
        "thinking" => P::Thinking(str_at(p, "content").unwrap_or_default().to_string()),
        "compaction" => compaction(p),
        "builtin-tool-call" => P::NativeCall {
            name: name(),
            args: py_str(p.get("args")),
        },
        "builtin-tool-return" => P::NativeReturn {
            name: name(),
            text: match p.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(v) => serde_json::to_string(v).unwrap_or_default(),
                None => String::new(),
            },
        },
        _ => P::Other,
    }
}
