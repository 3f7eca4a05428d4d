//! The Anthropic summarizer: the Messages API, streamed.
//!
//! Owns: the request (`POST {base}/v1/messages`, `x-api-key`, `anthropic-version`, system
//! messages lifted into `system`, `stream: true`) and reading its event stream
//! (`message_start`, `content_block_delta`, `message_delta`, `message_stop`, `error`). It must
//! not send anything but the prepared (masked) summarizer messages.
//!
//! Roles: the API takes system text only in the top-level `system` field and wants user and
//! assistant turns to alternate, so consecutive messages of one role are merged into one turn.
//! Merging keeps every byte: a run of several messages becomes one turn whose content is a list
//! of text blocks, one per plan message (likewise several system messages); a lone message
//! keeps a plain string.

use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use reqwest::Client;
use serde_json::{json, Value};

use super::error::SummarizeError;
use super::http::{self, Call, Decoder, Endpoint};
use super::key::ApiKey;
use super::openai::preview;
use super::retry::HttpOptions;
use super::sse::SseEvent;
use super::{prepare, DeltaSink, Summarizer, Summary, SummaryFuture};
use crate::compaction::{PromptMessage, PromptRole};
use crate::formats::surrogates::parse_value;

/// The public endpoint, used when no `--base-url` is given (a trailing `/v1` is accepted).
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The model used when no `--summarizer-model` is given.
pub const DEFAULT_MODEL: &str = "claude-haiku-4-5";
/// Where the key is read from.
pub const KEY_VAR: &str = "ANTHROPIC_API_KEY";
/// The API version sent in `anthropic-version`.
pub const API_VERSION: &str = "2023-06-01";
/// The `max_tokens` sent unless changed with `with_max_tokens`.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// A Messages API summarizer. Building one sends nothing.
#[derive(Debug)]
pub struct Anthropic {
    endpoint: Endpoint,
    model: String,
    key: ApiKey,
    max_tokens: u32,
    options: HttpOptions,
    client: Client,
}

impl Anthropic {
    /// With the key from `ANTHROPIC_API_KEY`; `None` picks the default base URL or model.
    pub fn from_env(
        base_url: Option<&str>,
        model: Option<&str>,
    ) -> Result<Anthropic, SummarizeError> {
        Anthropic::new(base_url, model, ApiKey::from_env(KEY_VAR)?)
    }

    pub fn new(
        base_url: Option<&str>,
        model: Option<&str>,
        key: ApiKey,
    ) -> Result<Anthropic, SummarizeError> {
        let options = HttpOptions::default();
        Ok(Anthropic {
            endpoint: Endpoint::new(base_url.unwrap_or(DEFAULT_BASE_URL), "/v1", "/messages")?,
            model: model.unwrap_or(DEFAULT_MODEL).to_string(),
            key,
            max_tokens: DEFAULT_MAX_TOKENS,
            client: http::client(&options)?,
            options,
        })
    }

    /// The same summarizer with other timeouts and retries.
    pub fn with_options(mut self, options: HttpOptions) -> Result<Anthropic, SummarizeError> {
        self.client = http::client(&options)?;
        self.options = options;
        Ok(self)
    }

    /// The same summarizer with another output cap.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Anthropic {
        self.max_tokens = max_tokens;
        self
    }

    fn headers(&self) -> Result<HeaderMap, SummarizeError> {
        let mut key =
            HeaderValue::from_str(self.key.expose()).map_err(|_| SummarizeError::BadKey {
                var: self.key.var(),
            })?;
        key.set_sensitive(true);
        let mut h = HeaderMap::new();
        h.insert("x-api-key", key);
        h.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        Ok(h)
    }

    async fn call(
        &self,
        messages: &[PromptMessage],
        sink: DeltaSink,
    ) -> Result<Summary, SummarizeError> {
        let prepared = prepare(messages);
        let body = request_body(&self.model, self.max_tokens, &prepared.messages)?;
        let call = Call {
            client: &self.client,
            options: &self.options,
            endpoint: &self.endpoint,
            headers: self.headers()?,
            body: serde_json::to_vec(&body).map_err(|e| SummarizeError::Request(e.to_string()))?,
            key: &self.key,
            model: &self.model,
        };
        http::summarize::<MessageStream>(&call, sink, prepared.masked).await
    }
}

impl Summarizer for Anthropic {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn summarize<'a>(
        &'a self,
        messages: &'a [PromptMessage],
        sink: DeltaSink,
    ) -> SummaryFuture<'a> {
        Box::pin(self.call(messages, sink))
    }
}

/// The Messages request for `messages`: system text in `system`, same-role runs merged (see
/// the module doc). A plan with no user or assistant message cannot be sent.
pub fn request_body(
    model: &str,
    max_tokens: u32,
    messages: &[PromptMessage],
) -> Result<Value, SummarizeError> {
    let system: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == PromptRole::System)
        .map(|m| m.content.as_str())
        .collect();
    let mut turns: Vec<(PromptRole, Vec<&str>)> = Vec::new();
    for m in messages.iter().filter(|m| m.role != PromptRole::System) {
        match turns.last_mut() {
            Some((role, texts)) if *role == m.role => texts.push(&m.content),
            _ => turns.push((m.role, vec![&m.content])),
        }
    }
    if turns.is_empty() {
        return Err(SummarizeError::Request(
            "the Messages API needs a user message and this request has only system text".into(),
        ));
    }
    let messages: Vec<Value> = turns
        .iter()
        .map(|(role, texts)| json!({"role": role.as_str(), "content": content(texts)}))
        .collect();
    let mut body = json!({"model": model, "max_tokens": max_tokens});
    if !system.is_empty() {
        body["system"] = content(&system);
    }
    body["messages"] = Value::Array(messages);
    body["stream"] = Value::Bool(true);
    Ok(body)
}

/// One text as a string; several as text blocks, each unchanged.
fn content(texts: &[&str]) -> Value {
    match texts {
        [one] => json!(one),
        many => Value::Array(
            many.iter()
                .map(|t| json!({"type": "text", "text": t}))
                .collect(),
        ),
    }
}

/// What the events have said so far.
#[derive(Debug, Default)]
struct MessageStream {
    text: String,
    model: Option<String>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    stopped: bool,
}

impl MessageStream {
    fn usage(&mut self, usage: &Value) {
        if let Some(n) = usage["input_tokens"].as_u64() {
            self.input_tokens = Some(n);
        }
        if let Some(n) = usage["output_tokens"].as_u64() {
            self.output_tokens = Some(n);
        }
    }
}

impl Decoder for MessageStream {
    fn answer(self) -> (String, Option<String>, Option<u64>, Option<u64>) {
        (self.text, self.model, self.input_tokens, self.output_tokens)
    }

    fn event(&mut self, event: &SseEvent, sink: &DeltaSink) -> Result<(), SummarizeError> {
        let data: Value = parse_value(event.data.as_bytes()).map_err(|_| {
            SummarizeError::Malformed(format!("an event is not JSON: {}", preview(&event.data)))
        })?;
        let kind = data["type"].as_str().unwrap_or(&event.event);
        match kind {
            "message_start" => {
                let message = &data["message"];
                if let Some(model) = message["model"].as_str() {
                    self.model = Some(model.to_string());
                }
                self.usage(&message["usage"]);
            }
            "content_block_delta" if data["delta"]["type"] == "text_delta" => {
                if let Some(text) = data["delta"]["text"].as_str() {
                    self.text.push_str(text);
                    sink.send(text);
                }
            }
            "message_delta" => self.usage(&data["usage"]),
            "message_stop" => self.stopped = true,
            "error" => {
                let e = &data["error"];
                let message = e["message"].as_str().unwrap_or("(no message)");
                return Err(SummarizeError::Provider(match e["type"].as_str() {
                    Some(t) => format!("{t}: {message}"),
                    None => message.to_string(),
                }));
            }
            _ => {}
        }
        Ok(())
    }

    fn finished(&self) -> bool {
        self.stopped
    }

    fn chars(&self) -> usize {
        self.text.chars().count()
    }
    fn bytes(&self) -> usize {
        self.text.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: PromptRole, content: &str) -> PromptMessage {
        PromptMessage {
            role,
            content: content.into(),
        }
    }

    #[test]
    fn system_is_lifted_and_same_role_runs_become_text_blocks() {
        let ms = [
            msg(PromptRole::System, "S1"),
            msg(PromptRole::User, "u1"),
            msg(PromptRole::User, "u2"),
            msg(PromptRole::Assistant, "a1"),
            msg(PromptRole::System, "S2"),
            msg(PromptRole::User, "u3"),
        ];
        let body = request_body("claude-x", 100, &ms).unwrap();
        assert_eq!(
            body.to_string(),
            r#"{"model":"claude-x","max_tokens":100,"system":[{"type":"text","text":"S1"},{"type":"text","text":"S2"}],"messages":[{"role":"user","content":[{"type":"text","text":"u1"},{"type":"text","text":"u2"}]},{"role":"assistant","content":"a1"},{"role":"user","content":"u3"}],"stream":true}"#
        );
        let only_system = request_body("m", 1, &ms[..1]).unwrap_err();
        assert!(only_system.to_string().contains("needs a user message"));
    }

    #[test]
    fn an_error_event_names_its_type() {
        let mut s = MessageStream::default();
        let ev = SseEvent {
            event: "error".into(),
            data: r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
                .into(),
        };
        let e = s.event(&ev, &DeltaSink::none()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the provider reported an error: overloaded_error: Overloaded"
        );
    }
}
