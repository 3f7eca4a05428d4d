//! The OpenAI-compatible summarizer: Chat Completions, streamed.
//!
//! Owns: the request (`POST {base}/chat/completions`, bearer key, `stream: true` with usage
//! asked for) and reading its SSE answer (`choices[0].delta.content`, the usage chunk, `[DONE]`,
//! error objects). Works with any server that speaks this format (`--base-url`). It must not
//! send anything but the prepared (masked) summarizer messages.

use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use reqwest::Client;
use serde_json::{json, Value};

use super::error::SummarizeError;
use super::http::{self, Call, Decoder, Endpoint};
use super::key::ApiKey;
use super::retry::HttpOptions;
use super::sse::SseEvent;
use super::{prepare, DeltaSink, Summarizer, Summary, SummaryFuture};
use crate::compaction::PromptMessage;
use crate::formats::surrogates::parse_value;

/// The public endpoint, used when no `--base-url` is given.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The model used when no `--summarizer-model` is given.
pub const DEFAULT_MODEL: &str = "gpt-4.1-mini";
/// Where the key is read from.
pub const KEY_VAR: &str = "OPENAI_API_KEY";

/// A Chat Completions summarizer. Building one sends nothing.
#[derive(Debug)]
pub struct OpenAi {
    endpoint: Endpoint,
    model: String,
    key: ApiKey,
    options: HttpOptions,
    client: Client,
}

impl OpenAi {
    /// With the key from `OPENAI_API_KEY`; `None` picks the default base URL or model.
    pub fn from_env(base_url: Option<&str>, model: Option<&str>) -> Result<OpenAi, SummarizeError> {
        OpenAi::new(base_url, model, ApiKey::from_env(KEY_VAR)?)
    }

    pub fn new(
        base_url: Option<&str>,
        model: Option<&str>,
        key: ApiKey,
    ) -> Result<OpenAi, SummarizeError> {
        let options = HttpOptions::default();
        Ok(OpenAi {
            endpoint: Endpoint::new(
                base_url.unwrap_or(DEFAULT_BASE_URL),
                "",
                "/chat/completions",
            )?,
            model: model.unwrap_or(DEFAULT_MODEL).to_string(),
            key,
            client: http::client(&options)?,
            options,
        })
    }

    /// The same summarizer with other timeouts and retries.
    pub fn with_options(mut self, options: HttpOptions) -> Result<OpenAi, SummarizeError> {
        self.client = http::client(&options)?;
        self.options = options;
        Ok(self)
    }

    fn headers(&self) -> Result<HeaderMap, SummarizeError> {
        let mut auth =
            HeaderValue::from_str(&format!("Bearer {}", self.key.expose())).map_err(|_| {
                SummarizeError::BadKey {
                    var: self.key.var(),
                }
            })?;
        auth.set_sensitive(true);
        let mut h = HeaderMap::new();
        h.insert(AUTHORIZATION, auth);
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        Ok(h)
    }

    async fn call(
        &self,
        messages: &[PromptMessage],
        sink: DeltaSink,
    ) -> Result<Summary, SummarizeError> {
        let prepared = prepare(messages);
        let body = request_body(&self.model, &prepared.messages);
        let call = Call {
            client: &self.client,
            options: &self.options,
            endpoint: &self.endpoint,
            headers: self.headers()?,
            body: serde_json::to_vec(&body).map_err(|e| SummarizeError::Request(e.to_string()))?,
            key: &self.key,
            model: &self.model,
        };
        http::summarize::<ChatStream>(&call, sink, prepared.masked).await
    }
}

impl Summarizer for OpenAi {
    fn name(&self) -> &'static str {
        "openai"
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

/// The Chat Completions request for `messages`, each sent as `{role, content}` unchanged.
pub fn request_body(model: &str, messages: &[PromptMessage]) -> Value {
    let messages: Vec<Value> = messages
        .iter()
        .map(|m| json!({"role": m.role.as_str(), "content": m.content}))
        .collect();
    json!({
        "model": model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    })
}

/// What the chunks have said so far.
#[derive(Debug, Default)]
struct ChatStream {
    text: String,
    model: Option<String>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    finish_reason: Option<String>,
    done: bool,
}

impl Decoder for ChatStream {
    fn answer(self) -> (String, Option<String>, Option<u64>, Option<u64>) {
        (self.text, self.model, self.input_tokens, self.output_tokens)
    }

    fn event(&mut self, event: &SseEvent, sink: &DeltaSink) -> Result<(), SummarizeError> {
        if event.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value = parse_value(event.data.as_bytes()).map_err(|_| {
            SummarizeError::Malformed(format!("a chunk is not JSON: {}", preview(&event.data)))
        })?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            let message = error["message"].as_str().or(error.as_str());
            return Err(SummarizeError::Provider(
                message.unwrap_or("(no message)").to_string(),
            ));
        }
        if let Some(model) = chunk["model"].as_str().filter(|m| !m.is_empty()) {
            self.model = Some(model.to_string());
        }
        let choice = &chunk["choices"][0];
        if let Some(delta) = choice["delta"]["content"].as_str() {
            self.text.push_str(delta);
            sink.send(delta);
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_reason = Some(reason.to_string());
        }
        let usage = &chunk["usage"];
        if let Some(n) = usage["prompt_tokens"].as_u64() {
            self.input_tokens = Some(n);
        }
        if let Some(n) = usage["completion_tokens"].as_u64() {
            self.output_tokens = Some(n);
        }
        Ok(())
    }

    fn finished(&self) -> bool {
        self.done
    }

    /// Some compatible servers end the stream without `[DONE]`; a finish reason is enough.
    fn complete(&self) -> bool {
        self.done || self.finish_reason.is_some()
    }

    fn chars(&self) -> usize {
        self.text.chars().count()
    }
    fn bytes(&self) -> usize {
        self.text.len()
    }
}

/// The start of a bad chunk, for an error line.
pub(crate) fn preview(data: &str) -> String {
    let line: String = data.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::PromptRole;

    fn data(s: &str) -> SseEvent {
        SseEvent {
            event: String::new(),
            data: s.into(),
        }
    }

    #[test]
    fn the_body_carries_the_messages_and_asks_for_usage() {
        let m = [PromptMessage {
            role: PromptRole::System,
            content: "Be \"brief\"\n".into(),
        }];
        let body = serde_json::to_string(&request_body("gpt-x", &m)).unwrap();
        assert_eq!(
            body,
            r#"{"model":"gpt-x","messages":[{"role":"system","content":"Be \"brief\"\n"}],"stream":true,"stream_options":{"include_usage":true}}"#
        );
    }

    #[test]
    fn chunks_give_text_usage_and_model() {
        let mut s = ChatStream::default();
        let sink = DeltaSink::none();
        for d in [
            r#"{"model":"gpt-x-2025","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2}}"#,
            "[DONE]",
        ] {
            s.event(&data(d), &sink).unwrap();
        }
        assert_eq!(s.text, "Hello");
        assert_eq!(s.model.as_deref(), Some("gpt-x-2025"));
        assert_eq!((s.input_tokens, s.output_tokens), (Some(12), Some(2)));
        assert!(s.finished());
        let e = s.event(&data("{\"error\":{\"message\":\"boom\"}}"), &sink);
        assert_eq!(
            e.unwrap_err().to_string(),
            "the provider reported an error: boom"
        );
    }

    /// A delta cut inside an emoji by a proxy's `JSON.stringify` (`\ud83d` alone) is text
    /// with U+FFFD, not a malformed stream that loses the whole summary.
    #[test]
    fn a_lone_surrogate_in_a_chunk_reads_as_a_replacement_character() {
        let mut s = ChatStream::default();
        let sink = DeltaSink::none();
        s.event(
            &data(r#"{"choices":[{"index":0,"delta":{"content":"ok \ud83d"}}]}"#),
            &sink,
        )
        .unwrap();
        assert_eq!(s.text, "ok \u{fffd}");
    }
}
