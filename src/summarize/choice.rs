//! Which network summarizer the user chose, as plain data: the provider, the endpoint and the
//! model. The inspector keeps it in its state and hands it to the task that runs the call; the
//! client (and the API key it reads from the environment) is built only there.
//!
//! Owns: the choice and building a client from it. Must not: send anything (building a client
//! sends nothing) or hold the key.

use std::time::Duration;

use super::{Anthropic, HttpOptions, OpenAi, SummarizeError, Summarizer};

/// A provider reached over HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Any OpenAI-compatible Chat Completions endpoint (`OPENAI_API_KEY`).
    OpenAi,
    /// The Anthropic Messages API (`ANTHROPIC_API_KEY`).
    Anthropic,
}

impl Provider {
    /// The name `--summarizer` uses.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
        }
    }

    pub fn parse(name: &str) -> Option<Provider> {
        match name {
            "openai" => Some(Provider::OpenAi),
            "anthropic" => Some(Provider::Anthropic),
            _ => None,
        }
    }
}

/// A network summarizer as chosen on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub provider: Provider,
    /// The endpoint (`None`: the provider's public API).
    pub base_url: Option<String>,
    /// The model (`None`: the client's default).
    pub model: Option<String>,
    /// Deadline of the whole call, retries included (`None`: the client's default).
    pub timeout: Option<Duration>,
}

impl Choice {
    /// The client, with its key read from the environment. Sends nothing.
    pub fn build(&self) -> Result<Box<dyn Summarizer>, SummarizeError> {
        let (base, model) = (self.base_url.as_deref(), self.model.as_deref());
        let options = HttpOptions {
            total_timeout: self.timeout.or(HttpOptions::default().total_timeout),
            ..HttpOptions::default()
        };
        Ok(match self.provider {
            Provider::OpenAi => Box::new(OpenAi::from_env(base, model)?.with_options(options)?),
            Provider::Anthropic => {
                Box::new(Anthropic::from_env(base, model)?.with_options(options)?)
            }
        })
    }

    /// `openai:gpt-4o-mini`, or the provider alone when the model is the client's default.
    pub fn label(&self) -> String {
        match &self.model {
            Some(m) => format!("{}:{m}", self.provider.name()),
            None => self.provider.name().to_string(),
        }
    }
}
