//! The transport both network summarizers share: one POST whose answer is an event stream.
//!
//! Owns: the endpoint URL (and how it is shown: no credentials, no query), sending with
//! retries on 429/5xx, the connect / idle / total timeouts, the cap on a summary's size,
//! turning statuses and transport failures into `SummarizeError`, and feeding the body through the SSE parser into a
//! provider's `Decoder`. It knows no provider's JSON beyond the common `error.message` shape,
//! and never shows the key: provider text is scrubbed of it, and the key travels in headers.

use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{HeaderMap, CONTENT_TYPE};
use reqwest::{Client, Response, Url};
use serde_json::Value;
use tokio::time::{sleep, timeout};

use super::error::SummarizeError;
use super::key::ApiKey;
use super::retry::{is_retryable, retry_after, HttpOptions};
use super::sse::{SseEvent, SseParser};
use super::DeltaSink;

/// The largest summary accepted: 1 MiB of UTF-8 text. No model writes that much in one answer
/// (the largest output limits, 128k tokens, are about 512 KiB of text) and a summary exists
/// to be short; a server sending more is broken or hostile, and the call stops (dropping the
/// response closes the connection) rather than hold and write it.
pub const MAX_SUMMARY_BYTES: usize = 1 << 20;

/// Where a summarizer posts.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub url: Url,
    /// The URL as errors show it: scheme, host, port and path only.
    pub shown: String,
}

impl Endpoint {
    /// `base` (http or https) with `version` (unless its path already ends with it) and
    /// `suffix` appended to its path; a query on `base` is kept.
    pub fn new(base: &str, version: &str, suffix: &str) -> Result<Endpoint, SummarizeError> {
        let bad = || SummarizeError::BadUrl {
            url: shown_url_text(base),
        };
        let mut url = Url::parse(base.trim()).map_err(|_| bad())?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(bad());
        }
        let path = url.path().trim_end_matches('/').to_string();
        let version = if path.ends_with(version) { "" } else { version };
        url.set_path(&format!("{path}{version}{suffix}"));
        let mut plain = url.clone();
        let _ = plain.set_username("");
        let _ = plain.set_password(None);
        plain.set_query(None);
        plain.set_fragment(None);
        Ok(Endpoint {
            shown: plain.to_string(),
            url,
        })
    }

    pub fn path(&self) -> &str {
        self.url.path()
    }
}

/// A URL given by the user that did not parse, cut before any query or credentials.
fn shown_url_text(base: &str) -> String {
    let cut = base.split(['?', '#']).next().unwrap_or("");
    match cut.rsplit_once('@') {
        Some((_, host)) => host.to_string(),
        None => cut.to_string(),
    }
}

/// The HTTP client, built once per summarizer (connection pool, connect timeout).
pub(crate) fn client(options: &HttpOptions) -> Result<Client, SummarizeError> {
    Client::builder()
        .connect_timeout(options.connect_timeout)
        .user_agent(concat!("ctxray/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| SummarizeError::Request(format!("cannot start the HTTP client: {}", root(&e))))
}

/// A provider's reading of its event stream.
pub(crate) trait Decoder {
    /// Handles one event; text deltas go to `sink`. An error event or bad JSON is an error.
    fn event(&mut self, event: &SseEvent, sink: &DeltaSink) -> Result<(), SummarizeError>;
    /// Whether the provider has said the stream is over: stop reading.
    fn finished(&self) -> bool;
    /// Whether the answer is whole if the stream ends here.
    fn complete(&self) -> bool {
        self.finished()
    }
    /// Characters of text received so far.
    fn chars(&self) -> usize;
    /// Bytes of text received so far (cheap: checked after every event).
    fn bytes(&self) -> usize;
    /// The answer as read: text, the model that answered, input and output tokens.
    fn answer(self) -> (String, Option<String>, Option<u64>, Option<u64>);
}

/// Runs `call` through a fresh `D` and returns the summary. A server that echoes the key back
/// does not get it shown as it streams, nor returned.
pub(crate) async fn summarize<D: Decoder + Default>(
    call: &Call<'_>,
    sink: DeltaSink,
    masked: usize,
) -> Result<super::Summary, SummarizeError> {
    let mut decoder = D::default();
    let sink = if call.key.is_guarded() {
        sink.guarding(call.key.expose())
    } else {
        sink
    };
    run(call, &mut decoder, &sink).await?;
    sink.finish();
    let (text, model, input_tokens, output_tokens) = decoder.answer();
    Ok(super::Summary {
        text: call.key.scrub(&text),
        model: model.unwrap_or_else(|| call.model.to_string()),
        input_tokens,
        output_tokens,
        masked_secrets: masked,
    })
}

/// One summarizer request.
pub(crate) struct Call<'a> {
    pub client: &'a Client,
    pub options: &'a HttpOptions,
    pub endpoint: &'a Endpoint,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
    pub key: &'a ApiKey,
    pub model: &'a str,
}

/// Posts, retrying on 429/5xx, and feeds the streamed answer to `decoder` until it finishes.
pub(crate) async fn run<D: Decoder>(
    call: &Call<'_>,
    decoder: &mut D,
    sink: &DeltaSink,
) -> Result<(), SummarizeError> {
    let work = async {
        let response = open(call).await?;
        read_stream(call, response, decoder, sink).await
    };
    match call.options.total_timeout {
        None => work.await,
        Some(total) => timeout(total, work).await.unwrap_or_else(|_| {
            Err(SummarizeError::TooLong {
                url: call.endpoint.shown.clone(),
                after: total,
            })
        }),
    }
}

async fn open(call: &Call<'_>) -> Result<Response, SummarizeError> {
    let idle = call.options.idle_timeout;
    let mut attempt = 1;
    loop {
        let request = call
            .client
            .post(call.endpoint.url.clone())
            .headers(call.headers.clone())
            .body(call.body.clone());
        let response = match timeout(idle, request.send()).await {
            Err(_) => return Err(timed_out(call, idle)),
            Ok(Err(e)) => return Err(transport_error(call, &e)),
            Ok(Ok(r)) => r,
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(response);
        }
        let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok());
        let asked = retry_after(header("retry-after-ms"), header("retry-after"));
        let body = timeout(idle, response.text())
            .await
            .ok()
            .and_then(|r| r.ok());
        let message = error_message(body.as_deref().unwrap_or(""), call.key);
        if is_retryable(status) && attempt < call.options.max_attempts {
            sleep(call.options.delay(attempt, asked)).await;
            attempt += 1;
            continue;
        }
        return Err(status_error(call, status, message, attempt));
    }
}

async fn read_stream<D: Decoder>(
    call: &Call<'_>,
    response: Response,
    decoder: &mut D,
    sink: &DeltaSink,
) -> Result<(), SummarizeError> {
    let idle = call.options.idle_timeout;
    let json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/json"));
    if json {
        let body = timeout(idle, response.text())
            .await
            .ok()
            .and_then(|r| r.ok());
        let message = error_message(body.as_deref().unwrap_or(""), call.key);
        return Err(SummarizeError::Malformed(format!(
            "expected an event stream, got JSON: {message}"
        )));
    }
    let mut body = response.bytes_stream();
    let mut parser = SseParser::new();
    loop {
        let chunk = match timeout(idle, body.next()).await {
            Err(_) => return Err(timed_out(call, idle)),
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return Err(SummarizeError::Truncated {
                    chars: decoder.chars(),
                    reason: call.key.scrub(&root(&e)),
                })
            }
            Ok(Some(Ok(bytes))) => bytes,
        };
        for event in parser.feed(&chunk) {
            decoder.event(&event, sink)?;
            if decoder.bytes() > MAX_SUMMARY_BYTES {
                return Err(SummarizeError::TooLarge {
                    cap: MAX_SUMMARY_BYTES,
                });
            }
            if decoder.finished() {
                return Ok(());
            }
        }
    }
    if decoder.complete() && !parser.mid_event() {
        return Ok(());
    }
    Err(SummarizeError::Truncated {
        chars: decoder.chars(),
        reason: String::new(),
    })
}

fn timed_out(call: &Call<'_>, after: Duration) -> SummarizeError {
    SummarizeError::Timeout {
        url: call.endpoint.shown.clone(),
        after,
    }
}

fn transport_error(call: &Call<'_>, e: &reqwest::Error) -> SummarizeError {
    let url = call.endpoint.shown.clone();
    if e.is_timeout() {
        return SummarizeError::Timeout {
            url,
            after: call.options.connect_timeout,
        };
    }
    let reason = call.key.scrub(&root(e));
    if e.is_connect() {
        SummarizeError::Connect { url, reason }
    } else {
        SummarizeError::Network { url, reason }
    }
}

fn status_error(call: &Call<'_>, status: u16, message: String, attempts: u32) -> SummarizeError {
    match status {
        401 => SummarizeError::KeyRefused {
            var: call.key.var(),
        },
        404 => SummarizeError::NotFound {
            model: call.model.to_string(),
            path: call.endpoint.path().to_string(),
            message,
        },
        _ => SummarizeError::Status {
            status,
            message,
            attempts,
        },
    }
}

/// The innermost cause of a transport error, in words (`connection refused`, …); reqwest's own
/// message, which carries the URL, is not used.
fn root(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause: &(dyn std::error::Error + 'static) = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    if let Some(io) = cause.downcast_ref::<std::io::Error>() {
        match io.kind() {
            std::io::ErrorKind::ConnectionRefused => return "connection refused".into(),
            std::io::ErrorKind::ConnectionReset => return "connection reset".into(),
            _ => {}
        }
    }
    one_line(&cause.to_string())
}

/// The message of a provider's error body (`{"error":{"message"}}` for both providers,
/// `{"detail"}` or `{"message"}` for some compatible servers), else the body's text; one line,
/// at most 300 characters, the key scrubbed out.
pub(crate) fn error_message(body: &str, key: &ApiKey) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let e = &v["error"];
        let text = |x: &Value| x.as_str().map(str::to_string);
        text(&e["message"])
            .or_else(|| text(e))
            .or_else(|| text(&e["type"]))
            .or_else(|| text(&v["message"]))
            .or_else(|| text(&v["detail"]))
    });
    let text = one_line(&from_json.unwrap_or_else(|| body.to_string()));
    let text = key.scrub(&text);
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shown_url_has_no_credentials_or_query() {
        let e = Endpoint::new(
            "https://user:pw@example.com/v1/?key=abc",
            "",
            "/chat/completions",
        );
        let e = e.unwrap();
        assert_eq!(e.shown, "https://example.com/v1/chat/completions");
        assert_eq!(e.path(), "/v1/chat/completions");
        assert_eq!(e.url.query(), Some("key=abc"));
        for base in ["https://api.anthropic.com", "https://api.anthropic.com/v1/"] {
            let e = Endpoint::new(base, "/v1", "/messages").unwrap();
            assert_eq!(e.url.as_str(), "https://api.anthropic.com/v1/messages");
        }
        let bad = Endpoint::new("ftp://example.com", "", "/x").unwrap_err();
        assert_eq!(
            bad.to_string(),
            "the base URL \"ftp://example.com\" is not an http:// or https:// URL"
        );
        let bad = Endpoint::new("not a url?key=s3cret", "", "/x").unwrap_err();
        assert!(!bad.to_string().contains("s3cret"));
    }

    #[test]
    fn error_bodies_give_their_message_without_the_key() {
        let key = ApiKey::new("sk-abc123abc123abc123", "OPENAI_API_KEY").unwrap();
        let openai = r#"{"error":{"message":"Incorrect API key provided: sk-abc123abc123abc123.","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(
            error_message(openai, &key),
            "Incorrect API key provided: ***."
        );
        let anthropic =
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(error_message(anthropic, &key), "Overloaded");
        assert_eq!(
            error_message("{\"detail\":\"Not Found\"}", &key),
            "Not Found"
        );
        assert_eq!(
            error_message("<html>\n bad\n gateway</html>", &key),
            "<html> bad gateway</html>"
        );
    }
}
