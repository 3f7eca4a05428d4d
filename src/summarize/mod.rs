//! Summarizers: turn a plan's summarizer messages into a summary.
//!
//! Owns: the `Summarizer` trait, what a call returns (`Summary`), where streamed text goes
//! (`DeltaSink`), and the two network clients — `openai` (any OpenAI-compatible Chat
//! Completions endpoint) and `anthropic` (the Messages API) — with masking (`prepare`),
//! timeouts, retries and the SSE parser they share. Nothing here runs unless a caller builds a
//! network summarizer and awaits it; constructing one sends nothing. It must not print, log or
//! write the API key, and must not import ratatui or crossterm.
//!
//! Cancelling: a call is a future; dropping it (e.g. when the user presses Esc and the task is
//! aborted) drops the HTTP response, which closes the connection and stops the request. No
//! other cancel signal is needed.

pub mod anthropic;
mod choice;
mod error;
mod http;
mod key;
pub mod openai;
mod prepare;
mod retry;
pub mod sse;

use std::future::Future;
use std::pin::Pin;

use tokio::sync::mpsc::UnboundedSender;

use crate::compaction::PromptMessage;

pub use anthropic::Anthropic;
pub use choice::{Choice, Provider};
pub use error::SummarizeError;
pub use key::ApiKey;
pub use openai::OpenAi;
pub use prepare::{prepare, Prepared};
pub use retry::HttpOptions;

/// What a summarizer returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The summary as the model wrote it (the concatenation of every streamed delta).
    pub text: String,
    /// The model that answered, as the provider names it (else the one asked for).
    pub model: String,
    /// Input tokens, when the provider reports them.
    pub input_tokens: Option<u64>,
    /// Output tokens, when the provider reports them.
    pub output_tokens: Option<u64>,
    /// Secrets masked in the messages before sending.
    pub masked_secrets: usize,
}

/// Where streamed text goes as it arrives: each delta once, in order. A closed receiver is
/// not an error (the summary is still returned whole). A sink guarding a secret (the API key a
/// server might echo back) holds back an ending that could start the secret until the next
/// delta settles it, and shows the secret as `***`.
#[derive(Debug, Clone, Default)]
pub struct DeltaSink {
    tx: Option<UnboundedSender<String>>,
    guard: Option<std::sync::Arc<Guard>>,
}

#[derive(Debug)]
struct Guard {
    secret: String,
    pending: std::sync::Mutex<String>,
}

impl DeltaSink {
    /// A sink that drops every delta.
    pub fn none() -> DeltaSink {
        DeltaSink::default()
    }

    /// This sink, never passing `secret` on.
    pub(crate) fn guarding(self, secret: &str) -> DeltaSink {
        DeltaSink {
            guard: Some(std::sync::Arc::new(Guard {
                secret: secret.to_string(),
                pending: std::sync::Mutex::new(String::new()),
            })),
            ..self
        }
    }

    pub fn send(&self, delta: &str) {
        let Some(g) = &self.guard else {
            return self.pass(delta);
        };
        let Ok(mut pending) = g.pending.lock() else {
            return;
        };
        pending.push_str(delta);
        let scrubbed = pending.replace(&g.secret, "***");
        // An ending that could be the start of the secret stays back (one of fewer than
        // three characters gives nothing away and is passed on).
        let keep = (3..g.secret.len())
            .rev()
            .find(|&l| g.secret.is_char_boundary(l) && scrubbed.ends_with(&g.secret[..l]))
            .unwrap_or(0);
        let cut = scrubbed.len() - keep;
        *pending = scrubbed[cut..].to_string();
        drop(pending);
        self.pass(&scrubbed[..cut]);
    }

    /// Passes on what a guarding sink still holds (the stream has ended).
    pub(crate) fn finish(&self) {
        if let Some(g) = &self.guard {
            let rest = g
                .pending
                .lock()
                .map(|mut p| std::mem::take(&mut *p))
                .unwrap_or_default();
            self.pass(&rest.replace(&g.secret, "***"));
        }
    }

    fn pass(&self, text: &str) {
        if let Some(tx) = &self.tx {
            if !text.is_empty() {
                let _ = tx.send(text.to_string());
            }
        }
    }
}

impl From<UnboundedSender<String>> for DeltaSink {
    fn from(tx: UnboundedSender<String>) -> DeltaSink {
        DeltaSink {
            tx: Some(tx),
            guard: None,
        }
    }
}

/// The future of one summarizer call.
pub type SummaryFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Summary, SummarizeError>> + Send + 'a>>;

/// Something that summarizes a plan's summarizer messages. Object safe, so the CLI and the
/// inspector can hold a `Box<dyn Summarizer>` chosen at run time.
pub trait Summarizer: Send + Sync {
    /// `openai`, `anthropic`, … as `--summarizer` names it.
    fn name(&self) -> &'static str;

    /// The model asked for.
    fn model(&self) -> &str;

    /// Summarizes `messages` (the plan's summarizer request). Network summarizers mask secrets
    /// first (`prepare`), stream the text into `sink` as it is written, and return the whole.
    /// Dropping the future cancels the call.
    fn summarize<'a>(&'a self, messages: &'a [PromptMessage], sink: DeltaSink)
        -> SummaryFuture<'a>;
}
