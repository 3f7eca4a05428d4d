//! Why a summarizer call failed, each reason one clear line.
//!
//! Owns: `SummarizeError` and the wording of every failure. It must not carry the API key: text
//! that came from a provider is scrubbed of the key before it lands here, and URLs are shown
//! without query or credentials.

use std::time::Duration;

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SummarizeError {
    /// The key's environment variable is unset or blank.
    #[error("{var} is not set: export it to use this summarizer")]
    MissingKey { var: &'static str },

    /// The key cannot be sent in an HTTP header (control characters, non-ASCII).
    #[error("{var} holds characters that cannot be sent in an HTTP header")]
    BadKey { var: &'static str },

    /// `--base-url` is not an http(s) URL.
    #[error("the base URL {url:?} is not an http:// or https:// URL")]
    BadUrl { url: String },

    /// The request cannot be built for this provider (e.g. nothing but system messages).
    #[error("cannot build the request: {0}")]
    Request(String),

    /// 401: the provider refused the key.
    #[error("the API key was refused (401): check {var}")]
    KeyRefused { var: &'static str },

    /// 404: the model or the endpoint does not exist.
    #[error(
        "model {model:?} or endpoint {path} not found (404){}",
        detail(message)
    )]
    NotFound {
        model: String,
        path: String,
        message: String,
    },

    /// Any other non-success status; for 429 and 5xx, after the last retry.
    #[error("the provider answered {status}{}{}", attempts_note(*attempts), detail(message))]
    Status {
        status: u16,
        message: String,
        attempts: u32,
    },

    /// Nothing arrived (no connection, no headers, or no byte of the stream) for `after`.
    #[error("no answer within {} from {url}", seconds(*after))]
    Timeout { url: String, after: Duration },

    /// The connection could not be made.
    #[error("cannot connect to {url}: {reason}")]
    Connect { url: String, reason: String },

    /// The connection failed after it was made (reset, closed mid-body).
    #[error("the connection to {url} failed: {reason}")]
    Network { url: String, reason: String },

    /// The stream is not what the provider's wire format says.
    #[error("malformed stream from the provider: {0}")]
    Malformed(String),

    /// The whole call (retries included) took longer than the total timeout.
    #[error("the answer took longer than {} from {url}", seconds(*after))]
    TooLong { url: String, after: Duration },

    /// The stream ended, or the connection broke, before the provider said the answer was
    /// complete.
    #[error(
        "the stream ended before the answer was complete (after {chars} characters){}",
        detail(reason)
    )]
    Truncated { chars: usize, reason: String },

    /// The provider reported an error inside the stream.
    #[error("the provider reported an error: {0}")]
    Provider(String),

    /// The summary grew past the cap (in bytes); the connection was closed.
    #[error(
        "the summary is larger than the cap of {} ({cap} bytes): the connection was closed",
        mib(*cap)
    )]
    TooLarge { cap: usize },
}

fn detail(message: &str) -> String {
    if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    }
}

fn attempts_note(attempts: u32) -> String {
    if attempts > 1 {
        format!(" after {attempts} attempts")
    } else {
        String::new()
    }
}

/// `1 MiB`, `0.5 MiB`.
fn mib(bytes: usize) -> String {
    let text = format!("{:.2}", bytes as f64 / f64::from(1u32 << 20));
    format!("{} MiB", text.trim_end_matches('0').trim_end_matches('.'))
}

/// `2 s`, `0.3 s`, `1.25 s`.
pub(crate) fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        let text = format!("{:.3}", d.as_secs_f64());
        format!("{} s", text.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_is_one_line() {
        let cases = [
            (
                SummarizeError::KeyRefused {
                    var: "OPENAI_API_KEY",
                },
                "the API key was refused (401): check OPENAI_API_KEY",
            ),
            (
                SummarizeError::NotFound {
                    model: "gpt-x".into(),
                    path: "/v1/chat/completions".into(),
                    message: "The model `gpt-x` does not exist".into(),
                },
                "model \"gpt-x\" or endpoint /v1/chat/completions not found (404): \
                 The model `gpt-x` does not exist",
            ),
            (
                SummarizeError::Status {
                    status: 500,
                    message: String::new(),
                    attempts: 3,
                },
                "the provider answered 500 after 3 attempts",
            ),
            (
                SummarizeError::Timeout {
                    url: "http://127.0.0.1:9/v1/messages".into(),
                    after: Duration::from_millis(300),
                },
                "no answer within 0.3 s from http://127.0.0.1:9/v1/messages",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
        }
        assert_eq!(seconds(Duration::from_secs(120)), "120 s");
        assert_eq!(seconds(Duration::from_millis(1250)), "1.25 s");
    }
}
