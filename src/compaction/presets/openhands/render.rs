//! What the SDK makes of one event: `to_llm_message` (for the token count) and `str(event)`
//! (the summarizer's input, with its 500/497-character display previews cut by code point).
//!
//! Owns: the per-class renderings, the observations' `to_llm_content` (terminal metadata
//! lines, the error header), and the previews. It must not decide what is summarized.

use serde_json::Value;

use super::events::Record;
use super::view::{rec, Ev, Kind};

/// `N_CHAR_PREVIEW`.
pub const PREVIEW: usize = 500;
/// `Observation.ERROR_MESSAGE_HEADER`.
pub const ERROR_HEADER: &str = "[An error occurred during execution.]\n";
/// `DEFAULT_TRUNCATE_NOTICE` of `maybe_truncate`.
pub const TRUNCATE_NOTICE: &str = "<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to you.</NOTE>";
/// `MAX_CMD_OUTPUT_SIZE` of the terminal tool.
const MAX_CMD_OUTPUT: usize = 30_000;

/// One content block of an LLM message.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Text(String),
    /// An `ImageContent` with this many URLs.
    Image(usize),
}

impl Item {
    /// `content_to_str` of one block.
    pub fn display(&self) -> String {
        match self {
            Item::Text(t) => t.clone(),
            Item::Image(n) => format!("[Image: {n} URLs]"),
        }
    }
}

/// `event.to_llm_message()` as far as the count and `str()` read it.
#[derive(Debug, Clone, Default)]
pub struct LlmMessage {
    pub role: String,
    pub content: Vec<Item>,
    /// Tool-call argument strings.
    pub args: Vec<String>,
    pub tool_call_id: Option<String>,
    pub name: Option<String>,
}

impl LlmMessage {
    /// A user turn with no tool-call metadata: `events_to_messages` merges these.
    pub fn plain_user(&self) -> bool {
        self.role == "user" && self.args.is_empty() && self.tool_call_id.is_none()
    }
}

pub fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Content blocks of a stored content list (or a bare string).
pub fn items(v: Option<&Value>) -> Vec<Item> {
    match v {
        Some(Value::String(t)) => vec![Item::Text(t.clone())],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|c| match c.get("type").and_then(Value::as_str) {
                Some("text") => Some(Item::Text(s(c, "text").to_string())),
                Some("image") | Some("image_url") => Some(Item::Image(
                    c.get("image_urls")
                        .and_then(Value::as_array)
                        .map_or(1, Vec::len),
                )),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn texts(v: Option<&Value>) -> Vec<String> {
    items(v)
        .into_iter()
        .filter_map(|i| match i {
            Item::Text(t) => Some(t),
            Item::Image(_) => None,
        })
        .collect()
}

/// `to_llm_message` of a view event.
pub fn llm_message(records: &[Record], ev: &Ev) -> LlmMessage {
    let v = rec(records, ev);
    let tool = |role: &str, content: Vec<Item>| LlmMessage {
        role: role.into(),
        content,
        args: Vec::new(),
        tool_call_id: Some(s(v, "tool_call_id").to_string()),
        name: Some(s(v, "tool_name").to_string()),
    };
    match ev.kind {
        Kind::System => {
            let mut content = vec![Item::Text(s(&v["system_prompt"], "text").to_string())];
            if let Some(d) = v.get("dynamic_context").filter(|d| d.is_object()) {
                content.push(Item::Text(s(d, "text").to_string()));
            }
            LlmMessage {
                role: "system".into(),
                content,
                ..LlmMessage::default()
            }
        }
        Kind::Message => {
            let llm = &v["llm_message"];
            let mut content = items(llm.get("content"));
            content.extend(items(v.get("extended_content")));
            let args = llm
                .get("tool_calls")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(call_arguments).collect())
                .unwrap_or_default();
            LlmMessage {
                role: s(llm, "role").to_string(),
                content,
                args,
                ..LlmMessage::default()
            }
        }
        Kind::Action => LlmMessage {
            role: "assistant".into(),
            content: items(v.get("thought")),
            args: vec![call_arguments(&v["tool_call"])],
            ..LlmMessage::default()
        },
        Kind::Observation => tool("tool", to_llm_content(&v["observation"])),
        Kind::Reject => tool(
            "tool",
            vec![Item::Text(format!("Action rejected: {}", rejection(v)))],
        ),
        Kind::AgentError => tool("tool", vec![Item::Text(s(v, "error").to_string())]),
        Kind::Summary => LlmMessage {
            role: "user".into(),
            content: vec![Item::Text(s(v, "summary").to_string())],
            ..LlmMessage::default()
        },
    }
}

fn call_arguments(call: &Value) -> String {
    let f = call.get("function").unwrap_or(call);
    match f.get("arguments") {
        Some(Value::String(a)) => a.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

fn rejection(v: &Value) -> &str {
    v.get("rejection_reason")
        .and_then(Value::as_str)
        .unwrap_or("User rejected the action")
}

/// The observation class's `to_llm_content`.
pub fn to_llm_content(obs: &Value) -> Vec<Item> {
    let mut out = Vec::new();
    if obs.get("is_error").and_then(Value::as_bool) == Some(true) {
        out.push(Item::Text(ERROR_HEADER.to_string()));
    }
    let content = match obs.get("content") {
        Some(c) => items(Some(c)),
        None => items(obs.get("output")),
    };
    match s(obs, "kind") {
        "TerminalObservation" | "ExecuteBashObservation" => {
            out.push(Item::Text(terminal_text(obs, &content)));
        }
        _ => out.extend(content),
    }
    out
}

fn terminal_text(obs: &Value, content: &[Item]) -> String {
    let meta = obs.get("metadata").unwrap_or(&Value::Null);
    let text: String = content
        .iter()
        .filter_map(|i| match i {
            Item::Text(t) => Some(t.as_str()),
            Item::Image(_) => None,
        })
        .collect();
    let mut ret = format!("{}{text}{}", s(meta, "prefix"), s(meta, "suffix"));
    let wd = s(meta, "working_dir");
    if !wd.is_empty() {
        ret.push_str(&format!("\n[Current working directory: {wd}]"));
    }
    let py = s(meta, "py_interpreter_path");
    if !py.is_empty() {
        ret.push_str(&format!("\n[Python interpreter: {py}]"));
    }
    let exit = meta.get("exit_code").and_then(Value::as_i64).unwrap_or(-1);
    if exit != -1 {
        ret.push_str(&format!("\n[Command finished with exit code {exit}]"));
    }
    maybe_truncate(&ret, Some(MAX_CMD_OUTPUT))
}

/// `maybe_truncate` without a save directory: head + notice + tail, by code point.
pub fn maybe_truncate(content: &str, after: Option<usize>) -> String {
    let Some(after) = after.filter(|a| *a > 0) else {
        return content.to_string();
    };
    let len = content.chars().count();
    let notice_len = TRUNCATE_NOTICE.chars().count();
    if len <= after {
        return content.to_string();
    }
    if notice_len >= after {
        return TRUNCATE_NOTICE.chars().take(after).collect();
    }
    let available = after - notice_len;
    let head = available / 2 + available % 2;
    let tail = available - head;
    let mut out: String = content.chars().take(head).collect();
    out.push_str(TRUNCATE_NOTICE);
    out.extend(content.chars().skip(len - tail));
    out
}

/// A display preview: over `PREVIEW` characters, the first `keep` and `...`. Returns the
/// preview and how many characters it dropped.
pub fn preview(text: &str, keep: usize) -> (String, usize) {
    let len = text.chars().count();
    if len <= PREVIEW {
        return (text.to_string(), 0);
    }
    let mut out: String = text.chars().take(keep).collect();
    out.push_str("...");
    (out, len - keep)
}

/// `str(event)` and the characters its previews dropped.
pub fn event_str(records: &[Record], ev: &Ev) -> (String, usize) {
    let v = rec(records, ev);
    let class = match ev.kind {
        Kind::System => "SystemPromptEvent",
        Kind::Message => "MessageEvent",
        Kind::Action => "ActionEvent",
        Kind::Observation => "ObservationEvent",
        Kind::Reject => "UserRejectObservation",
        Kind::AgentError => "AgentErrorEvent",
        Kind::Summary => "CondensationSummaryEvent",
    };
    let source = match (ev.kind, v.get("source").and_then(Value::as_str)) {
        (_, Some(src)) => src,
        (Kind::AgentError, None) => "agent",
        _ => "environment",
    };
    let base = format!("{class} ({source})");
    match ev.kind {
        Kind::System => {
            let (p, cut) = preview(s(&v["system_prompt"], "text"), PREVIEW);
            let n = v.get("tools").and_then(Value::as_array).map_or(0, Vec::len);
            let ctx = v
                .get("dynamic_context")
                .filter(|d| d.is_object())
                .map(|d| {
                    format!(
                        "\n  Dynamic Context: {} chars",
                        s(d, "text").chars().count()
                    )
                })
                .unwrap_or_default();
            (
                format!("{base}\n  System: {p}\n  Tools: {n} available{ctx}"),
                cut,
            )
        }
        Kind::Message | Kind::Summary => message_str(records, ev, &base),
        Kind::Action => action_str(v, &base),
        Kind::Observation => {
            let content: String = to_llm_content(&v["observation"])
                .iter()
                .map(Item::display)
                .collect();
            let (p, cut) = preview(&content, PREVIEW);
            let tool = s(v, "tool_name");
            (format!("{base}\n  Tool: {tool}\n  Result: {p}"), cut)
        }
        Kind::Reject => {
            let (p, cut) = preview(rejection(v), PREVIEW);
            let tool = s(v, "tool_name");
            (format!("{base}\n  Tool: {tool}\n  Reason: {p}"), cut)
        }
        Kind::AgentError => {
            let (p, cut) = preview(s(v, "error"), PREVIEW);
            (format!("{base}\n  Error: {p}"), cut)
        }
    }
}

/// `ActionEvent.__str__`: the thought preview and the action's class name, never arguments.
fn action_str(v: &Value, base: &str) -> (String, usize) {
    let thought = texts(v.get("thought")).join(" ");
    let (p, cut) = preview(&thought, PREVIEW);
    let tail = match v.get("action").filter(|a| !a.is_null()) {
        Some(a) => format!("\n  Action: {}", s(a, "kind")),
        None => format!(
            "\n  Action: (not executed)\n  Call: {}:{}",
            s(&v["tool_call"], "name"),
            s(&v["tool_call"], "id")
        ),
    };
    (format!("{base}\n  Thought: {p}{tail}"), cut)
}

/// `MessageEvent.__str__` and `LLMConvertibleEvent.__str__` (the summary event).
fn message_str(records: &[Record], ev: &Ev, base: &str) -> (String, usize) {
    let v = rec(records, ev);
    let msg = llm_message(records, ev);
    if msg.content.is_empty() {
        return (format!("{base}\n  {}: [no text content]", msg.role), 0);
    }
    let joined = msg
        .content
        .iter()
        .map(Item::display)
        .collect::<Vec<_>>()
        .join(" ");
    let (p, cut) = preview(&joined, PREVIEW - 3);
    let mut extra = String::new();
    if ev.kind == Kind::Message {
        let skills: Vec<&str> = v
            .get("activated_skills")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !skills.is_empty() {
            extra.push_str(&format!(" [Skills: {}]", skills.join(", ")));
        }
        let thinking = v["llm_message"]
            .get("thinking_blocks")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if thinking > 0 {
            extra.push_str(&format!(" [Thinking blocks: {thinking}]"));
        }
    }
    (format!("{base}\n  {}: {p}{extra}", msg.role), cut)
}
