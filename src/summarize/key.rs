//! The API key of a network summarizer: read from its environment variable, sent only in a
//! request header, never shown.
//!
//! Owns: `ApiKey` (Debug and Display print `***`) and scrubbing a key out of text that came back
//! from a provider. It must not log, print or persist the key, nor put it in a URL.

use std::fmt;

use super::error::SummarizeError;

/// A secret API key. Its `Debug` and `Display` print `***`; the value is read only by the HTTP
/// clients of this module, to build a header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey {
    value: String,
    var: &'static str,
}

impl ApiKey {
    /// The key in environment variable `var` (e.g. `OPENAI_API_KEY`); unset or blank is
    /// `SummarizeError::MissingKey` naming the variable.
    pub fn from_env(var: &'static str) -> Result<ApiKey, SummarizeError> {
        match std::env::var(var) {
            Ok(v) => ApiKey::new(v, var),
            Err(_) => Err(SummarizeError::MissingKey { var }),
        }
    }

    /// A key given directly; `var` names where it would come from, for error messages.
    /// Surrounding whitespace (a pasted newline) is dropped; blank is `MissingKey`.
    pub fn new(value: impl Into<String>, var: &'static str) -> Result<ApiKey, SummarizeError> {
        let value = value.into().trim().to_string();
        if value.is_empty() {
            return Err(SummarizeError::MissingKey { var });
        }
        Ok(ApiKey { value, var })
    }

    /// The environment variable the key belongs to.
    pub fn var(&self) -> &'static str {
        self.var
    }

    pub(crate) fn expose(&self) -> &str {
        &self.value
    }

    /// `text` with every occurrence of the key replaced by `***` — unless the key is too short
    /// to be a real one (a local server's `ollama`), whose letters would be masked everywhere.
    pub(crate) fn scrub(&self, text: &str) -> String {
        if self.is_guarded() {
            text.replace(&self.value, "***")
        } else {
            text.to_string()
        }
    }

    /// Whether the key is long enough to be a real key, and so is kept out of what is shown.
    pub(crate) fn is_guarded(&self) -> bool {
        self.value.len() >= crate::secrets::MIN_KEY_LEN
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({}=***)", self.var)
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dummy_key_masks_nothing() {
        let k = ApiKey::new("ollama", "OPENAI_API_KEY").unwrap();
        assert_eq!(
            k.scrub("first, llama then ollama"),
            "first, llama then ollama"
        );
        let real = ApiKey::new("sk-local-0123456789abcdef", "OPENAI_API_KEY").unwrap();
        assert_eq!(real.scrub("echo sk-local-0123456789abcdef"), "echo ***");
    }

    #[test]
    fn debug_and_display_hide_the_value() {
        let k = ApiKey::new(" sk-test-0123456789abcdef\n", "OPENAI_API_KEY").unwrap();
        assert_eq!(format!("{k}"), "***");
        assert_eq!(format!("{k:?}"), "ApiKey(OPENAI_API_KEY=***)");
        assert_eq!(k.expose(), "sk-test-0123456789abcdef");
        assert_eq!(
            k.scrub("Incorrect API key provided: sk-test-0123456789abcdef."),
            "Incorrect API key provided: ***."
        );
    }

    #[test]
    fn a_blank_key_is_missing_and_names_the_variable() {
        let e = ApiKey::new("  ", "ANTHROPIC_API_KEY").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ANTHROPIC_API_KEY is not set: export it to use this summarizer"
        );
    }
}
