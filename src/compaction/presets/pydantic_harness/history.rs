//! pydantic-ai's `ModelMessage` list as pydantic-ai-harness sees it: one request or response per
//! source record, with the parts the harness's estimator and transcript read.
//!
//! Exact for sessions in pydantic-ai's own format (read from the raw records, so `str(args)` and
//! `str(content)` are the Python renderings of the stored values); built from the common model
//! for every other format (consecutive non-assistant messages form one request, as core's
//! history cleaning merges adjacent requests).
//!
//! Owns: `P`, `Rec` and `UserPart`, and reading them from a native record. The parts borrow
//! their texts from the `Session` they were built from; a text the session does not hold as it
//! is (read from a raw record, `str()` of parsed arguments, a tool result joined from several
//! texts) is owned.

use std::borrow::Cow;
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
pub enum P<'a> {
    System {
        content: Cow<'a, str>,
        request_scope: bool,
    },
    User(UserPart<'a>),
    ToolReturn {
        name: Cow<'a, str>,
        text: Cow<'a, str>,
        call_id: Cow<'a, str>,
        retried: bool,
        cause: Option<String>,
        load: bool,
    },
    RetryFeedback {
        text: Cow<'a, str>,
        cause: String,
    },
    Compaction {
        content: Option<Cow<'a, str>>,
        own: bool,
    },
    Text(Cow<'a, str>),
    ToolCall {
        name: Cow<'a, str>,
        args: Cow<'a, str>,
        call_id: Cow<'a, str>,
        load: bool,
    },
    Thinking(Cow<'a, str>),
    NativeCall {
        name: Cow<'a, str>,
        args: Cow<'a, str>,
    },
    NativeReturn {
        name: Cow<'a, str>,
        text: Cow<'a, str>,
    },
    Image,
    Other,
}

/// A `UserPromptPart`: its text items and the harness markers on them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UserPart<'a> {
    pub texts: Vec<Cow<'a, str>>,
    pub origin: Option<String>,
    pub receipt: bool,
    pub pinned: bool,
    pub kept_copy: bool,
    /// Images, audio, documents: never counted nor rendered.
    pub media: usize,
}

impl UserPart<'_> {
    /// A user turn: not a pin, receipt or harness data (`_is_user_turn_part`).
    pub fn is_turn(&self) -> bool {
        !self.pinned && !self.receipt && self.origin.is_none()
    }
}

impl<'a> P<'a> {
    pub fn is_legacy_summary(&self) -> bool {
        matches!(self, P::System { content, .. } if content.starts_with(LEGACY_SUMMARY_PREFIX))
    }
    pub fn is_own_summary(&self) -> bool {
        matches!(self, P::Compaction { own: true, .. })
    }
    pub fn user(&self) -> Option<&UserPart<'a>> {
        match self {
            P::User(u) => Some(u),
            _ => None,
        }
    }
}

/// One `ModelRequest` or `ModelResponse`.
#[derive(Debug, Clone, Default)]
pub struct Rec<'a> {
    pub request: bool,
    pub parts: Vec<P<'a>>,
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
pub fn records(session: &Session) -> Vec<Rec<'_>> {
    if session.format == Format::PYDANTIC_AI {
        if let Some(recs) = from_raw(session) {
            return recs;
        }
    }
    super::common::records(session)
}

fn from_raw(session: &Session) -> Option<Vec<Rec<'static>>> {
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

/// The string at `key` (empty when there is none), a copy of its own: the raw record it is read
/// from does not outlive the reading.
fn text_at(v: &Value, key: &str) -> Cow<'static, str> {
    Cow::Owned(str_at(v, key).unwrap_or_default().to_string())
}

/// `str(value)` as Python prints the stored value (`None` for null).
fn py_str(v: Option<&Value>) -> Cow<'static, str> {
    Cow::Owned(pyrepr::str_of(v.unwrap_or(&Value::Null)))
}

fn request_part(p: &Value) -> P<'static> {
    match str_at(p, "part_kind").unwrap_or("") {
        "system-prompt" => P::System {
            content: text_at(p, "content"),
            request_scope: str_at(p, "scope") == Some("request"),
        },
        "user-prompt" => P::User(user_part(p.get("content"))),
        kind @ ("tool-return" | "tool-search-return" | "capability-load-return") => {
            let retried = str_at(p, "outcome") == Some("retried");
            P::ToolReturn {
                name: text_at(p, "tool_name"),
                text: py_str(p.get("content")),
                call_id: text_at(p, "tool_call_id"),
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
fn legacy_retry(p: &Value) -> P<'static> {
    let content = p.get("content");
    let is_str = content.is_some_and(Value::is_string);
    match str_at(p, "tool_name") {
        Some(name) => P::ToolReturn {
            name: Cow::Owned(name.to_string()),
            text: py_str(content),
            call_id: text_at(p, "tool_call_id"),
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
fn feedback_text(content: Option<&Value>, cause: &str) -> Cow<'static, str> {
    let body = match content {
        Some(Value::String(s)) => s.clone(),
        Some(v) => serde_json::to_string(v).unwrap_or_default(),
        None => String::new(),
    };
    if cause == "no_output" {
        return Cow::Owned(body);
    }
    let tag = if cause == "validation_error" {
        "validation_errors"
    } else {
        "retry_feedback"
    };
    Cow::Owned(format!(
        "Your previous response failed the application's validation (this is automated feedback, not a message from the user):\n<{tag}>\n{body}\n</{tag}>"
    ))
}

fn compaction(p: &Value) -> P<'static> {
    let content: Option<Cow<str>> = str_at(p, "content").map(|c| Cow::Owned(c.to_string()));
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

fn user_part(content: Option<&Value>) -> UserPart<'static> {
    let mut u = UserPart::default();
    let items = match content {
        Some(Value::String(s)) => {
            u.texts.push(Cow::Owned(s.clone()));
            return u;
        }
        Some(Value::Array(items)) => items.as_slice(),
        _ => return u,
    };
    for (n, item) in items.iter().enumerate() {
        if let Some(s) = item.as_str() {
            u.texts.push(Cow::Owned(s.to_string()));
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
        u.texts.push(text_at(item, "content"));
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

fn response_part(p: &Value) -> P<'static> {
    let name = || text_at(p, "tool_name");
    match str_at(p, "part_kind").unwrap_or("") {
        "text" => P::Text(text_at(p, "content")),
        kind @ ("tool-call" | "capability-load-call") => P::ToolCall {
            name: name(),
            args: py_str(p.get("args")),
            call_id: text_at(p, "tool_call_id"),
            load: kind == "capability-load-call",
        },
        "thinking" => P::Thinking(text_at(p, "content")),
        "compaction" => compaction(p),
        "builtin-tool-call" => P::NativeCall {
            name: name(),
            args: py_str(p.get("args")),
        },
        "builtin-tool-return" => P::NativeReturn {
            name: name(),
            text: Cow::Owned(match p.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(v) => serde_json::to_string(v).unwrap_or_default(),
                None => String::new(),
            }),
        },
        _ => P::Other,
    }
}
