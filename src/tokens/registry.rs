//! The model registry: model name → context window, encoding and image costing.
//!
//! Owns: the bundled `models.toml`, layering a user's file over it, and longest-prefix lookup
//! with `provider:` / `provider/` prefixes stripped. Unknown models get the `[default]` entry,
//! and the lookup says so.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::encoding::Encoding;

const BUNDLED: &str = include_str!("models.toml");

/// How a model family costs images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ImageCosting {
    #[default]
    Openai,
    Anthropic,
    Gemini,
}

#[derive(Debug, Clone, Deserialize, Default)]
struct EntryFile {
    context_window: Option<u64>,
    encoding: Option<String>,
    images: Option<ImageCosting>,
    approximate: Option<bool>,
}

#[derive(Debug, Clone, Deserialize, Default)]
struct RegistryFile {
    default: Option<EntryFile>,
    #[serde(default)]
    models: BTreeMap<String, EntryFile>,
}

/// What the registry knows of one model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    /// The prefix that matched, or `None` when the default was used.
    pub matched: Option<String>,
    pub context_window: u64,
    pub encoding: Encoding,
    pub images: ImageCosting,
    /// The encoding is not the model's own tokenizer: counts are estimates.
    pub approximate: bool,
}

#[derive(Debug, Clone)]
pub struct Registry {
    default: ModelInfo,
    models: BTreeMap<String, ModelInfo>,
}

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

impl Registry {
    /// The bundled registry.
    pub fn bundled() -> Registry {
        let mut registry = Registry {
            default: ModelInfo {
                matched: None,
                context_window: 128_000,
                encoding: Encoding::O200kBase,
                images: ImageCosting::Openai,
                approximate: true,
            },
            models: BTreeMap::new(),
        };
        // The bundled file is tested to parse; a failure here would leave the defaults above.
        let _ = registry.layer(BUNDLED, "bundled models.toml");
        registry
    }

    /// Layers entries from TOML text over the current ones.
    pub fn layer(&mut self, text: &str, shown: &str) -> Result<(), RegistryError> {
        let invalid = |message: String| RegistryError::Invalid {
            path: shown.to_string(),
            message,
        };
        let file: RegistryFile = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        if let Some(d) = file.default {
            self.default = merge(&self.default, &d, None, true).map_err(invalid)?;
        }
        for (prefix, entry) in file.models {
            let existing = self.models.get(&prefix);
            let inherit = existing.is_some();
            let base = existing.unwrap_or(&self.default).clone();
            let info = merge(&base, &entry, Some(prefix.clone()), inherit).map_err(invalid)?;
            self.models.insert(prefix, info);
        }
        Ok(())
    }

    /// Longest-prefix lookup of a model name (case-insensitive, provider prefix stripped).
    pub fn lookup(&self, model: &str) -> ModelInfo {
        let name = strip_provider(model).to_ascii_lowercase();
        self.models
            .iter()
            .filter(|(prefix, _)| name.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, info)| info.clone())
            .unwrap_or_else(|| self.default.clone())
    }

    pub fn default_info(&self) -> &ModelInfo {
        &self.default
    }
}

/// `entry` over `base`; `approximate` is inherited only when overriding the same entry.
fn merge(
    base: &ModelInfo,
    entry: &EntryFile,
    matched: Option<String>,
    inherit_approximate: bool,
) -> Result<ModelInfo, String> {
    let encoding = match &entry.encoding {
        Some(name) => name.parse::<Encoding>()?,
        None => base.encoding,
    };
    Ok(ModelInfo {
        matched,
        context_window: entry.context_window.unwrap_or(base.context_window),
        encoding,
        images: entry.images.unwrap_or(base.images),
        approximate: entry
            .approximate
            .unwrap_or(inherit_approximate && base.approximate),
    })
}

/// `openai/gpt-4o` → `gpt-4o`; `anthropic:claude-…` → `claude-…`; `litellm_proxy/x/y` → `y`.
pub fn strip_provider(model: &str) -> &str {
    let after_slash = model.rsplit('/').next().unwrap_or(model);
    match after_slash.split_once(':') {
        Some((provider, rest))
            if !provider.is_empty()
                && !rest.is_empty()
                && provider
                    .chars()
                    .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '-') =>
        {
            rest
        }
        _ => after_slash,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_file_parses() {
        let file: Result<RegistryFile, _> = toml::from_str(BUNDLED);
        assert!(file.is_ok(), "{file:?}");
        assert!(Registry::bundled().models.len() > 30);
    }

    #[test]
    fn longest_prefix_wins_and_provider_is_stripped() {
        let r = Registry::bundled();
        let mini = r.lookup("openai/gpt-4o-mini-2024-07-18");
        assert_eq!(mini.matched.as_deref(), Some("gpt-4o"));
        assert_eq!(mini.context_window, 128_000);
        assert_eq!(r.lookup("gpt-4-32k-0613").context_window, 32_768);
        assert_eq!(r.lookup("gpt-4-0613").context_window, 8_192);
        assert_eq!(r.lookup("gpt-4-0613").encoding, Encoding::Cl100kBase);
        let claude = r.lookup("anthropic:claude-sonnet-4-5-20250929");
        assert_eq!(claude.matched.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(claude.images, ImageCosting::Anthropic);
        assert!(claude.approximate);
        assert_eq!(
            r.lookup("litellm_proxy/minimax-m2.7").context_window,
            204_800
        );
        assert_eq!(
            r.lookup("ollama/gemma3:1b").matched.as_deref(),
            Some("gemma3")
        );
    }

    #[test]
    fn unknown_model_gets_the_stated_default() {
        let r = Registry::bundled();
        let info = r.lookup("my-private-model");
        assert_eq!(info.matched, None);
        assert_eq!(info.context_window, 128_000);
    }

    #[test]
    fn user_layer_overrides_and_adds() {
        let mut r = Registry::bundled();
        r.layer(
            "[models.\"gpt-4o\"]\ncontext_window = 64000\n[models.\"acme\"]\ncontext_window = 9000\nencoding = \"cl100k_base\"\n",
            "user.toml",
        )
        .unwrap();
        assert_eq!(r.lookup("gpt-4o").context_window, 64_000);
        assert_eq!(r.lookup("gpt-4o").encoding, Encoding::O200kBase);
        assert_eq!(r.lookup("acme-1").encoding, Encoding::Cl100kBase);
        let err = r
            .layer("[models.x]\nencoding = \"p50k\"\n", "bad.toml")
            .unwrap_err();
        assert!(err.to_string().starts_with("bad.toml: "), "{err}");
    }
}
