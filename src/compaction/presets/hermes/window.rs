//! Hermes' context window and threshold arithmetic: `get_model_context_length` (explicit
//! `config_context_length`, else its hard-coded family table, longest key first, else 256,000;
//! the network probes are not emulated), the small-window percent floor, the 64,000 minimum,
//! the 85% fallback, and the budgets derived from the threshold.

/// `MINIMUM_CONTEXT_LENGTH`.
pub const MINIMUM_CONTEXT_LENGTH: u64 = 64_000;
const DEFAULT_FALLBACK_CONTEXT: u64 = 256_000;

/// `DEFAULT_CONTEXT_LENGTHS`, sorted longest key first (stable, as Python's `sorted`).
const DEFAULT_CONTEXT_LENGTHS: &[(&str, u64)] = &[
    ("moonshotai/Kimi-K2-Thinking", 262144),
    ("deepseek-ai/DeepSeek-V3.2", 65536),
    ("XiaomiMiMo/MiMo-V2-Flash", 262144),
    ("Qwen/Qwen3.5-397B-A17B", 131072),
    ("MiniMaxAI/MiniMax-M2.5", 204800),
    ("Qwen/Qwen3.5-35B-A3B", 131072),
    ("moonshotai/Kimi-K2.5", 262144),
    ("moonshotai/Kimi-K2.6", 262144),
    ("gpt-5.3-codex-spark", 128000),
    ("claude-sonnet-4-6", 1000000),
    ("claude-sonnet-4.6", 1000000),
    ("deepseek-v4-flash", 1000000),
    ("deepseek-reasoner", 1000000),
    ("grok-build-latest", 500000),
    ("qwen3-coder-plus", 1000000),
    ("claude-sonnet-5", 1000000),
    ("claude-opus-4-8", 1000000),
    ("claude-opus-4.8", 1000000),
    ("claude-opus-4-7", 1000000),
    ("claude-opus-4.7", 1000000),
    ("claude-opus-4-6", 1000000),
    ("claude-opus-4.6", 1000000),
    ("deepseek-v4-pro", 1000000),
    ("claude-fable-5", 1000000),
    ("grok-code-fast", 256000),
    ("gpt-5.6-terra", 1050000),
    ("deepseek-chat", 1000000),
    ("grok-composer", 200000),
    ("grok-2-vision", 8192),
    ("mimo-v2.5-pro", 1048576),
    ("mimo-v2-flash", 262144),
    ("zai-org/GLM-5", 202752),
    ("claude-fable", 1000000),
    ("gpt-5.6-luna", 1050000),
    ("gpt-5.4-nano", 400000),
    ("gpt-5.4-mini", 400000),
    ("gpt-5.1-chat", 128000),
    ("qwen3.6-plus", 1048576),
    ("qwen3.7-plus", 1048576),
    ("mimo-v2-omni", 262144),
    ("gpt-5.6-sol", 1050000),
    ("gemma-4-31b", 256000),
    ("qwen3-coder", 262144),
    ("grok-4-fast", 2000000),
    ("solar-open2", 262144),
    ("hy3-preview", 262144),
    ("mimo-v2-pro", 1048576),
    ("minimax-m3", 1000000),
    ("grok-build", 256000),
    ("solar-pro3", 131072),
    ("solar-pro2", 65536),
    ("solar-mini", 32768),
    ("qwen3-max", 262144),
    ("grok-4.20", 2000000),
    ("mimo-v2.5", 1048576),
    ("deepseek", 128000),
    ("grok-4.5", 500000),
    ("grok-4.3", 1000000),
    ("nemotron", 131072),
    ("elephant", 262144),
    ("gpt-5.5", 1050000),
    ("gpt-5.4", 1050000),
    ("gpt-4.1", 1047576),
    ("gemma-4", 256000),
    ("gemma-3", 131072),
    ("minimax", 204800),
    ("glm-5.2", 1048576),
    ("kimi-k3", 1048576),
    ("trinity", 262144),
    ("claude", 200000),
    ("gemini", 1048576),
    ("gemma4", 256000),
    ("grok-4", 256000),
    ("grok-3", 131072),
    ("grok-2", 131072),
    ("gpt-5", 400000),
    ("gpt-4", 128000),
    ("gemma", 8192),
    ("llama", 131072),
    ("qwen", 131072),
    ("grok", 131072),
    ("kimi", 262144),
    ("glm", 202752),
    ("hy3", 262144),
];

/// The window Hermes resolves for `model` without network access.
pub fn table_context_length(model: &str) -> u64 {
    let lower = strip_provider_prefix(model).to_lowercase();
    DEFAULT_CONTEXT_LENGTHS
        .iter()
        .find(|(key, _)| lower.contains(key))
        .map_or(DEFAULT_FALLBACK_CONTEXT, |(_, w)| *w)
}

/// `_PROVIDER_PREFIXES`.
const PROVIDER_PREFIXES: &[&str] = &[
    "alibaba",
    "aliyun",
    "anthropic",
    "arcee",
    "arcee-ai",
    "arceeai",
    "claude",
    "copilot",
    "copilot-acp",
    "custom",
    "dashscope",
    "deep-infra",
    "deep-seek",
    "deepinfra",
    "deepseek",
    "gemini",
    "github",
    "github-copilot",
    "github-models",
    "glm",
    "gmi",
    "gmi-cloud",
    "gmicloud",
    "go",
    "google",
    "google-ai-studio",
    "google-gemini",
    "grok",
    "kilo",
    "kilocode",
    "kimi",
    "kimi-cn",
    "kimi-coding",
    "kimi-coding-cn",
    "local",
    "mimo",
    "minimax",
    "minimax-cn",
    "minimax-oauth",
    "moonshot",
    "moonshot-cn",
    "nemotron",
    "nim",
    "nous",
    "novita",
    "novita-ai",
    "novitaai",
    "nvidia",
    "nvidia-nim",
    "ollama",
    "ollama-cloud",
    "openai-codex",
    "opencode",
    "opencode-go",
    "opencode-zen",
    "openrouter",
    "qwen",
    "qwen-oauth",
    "qwen-portal",
    "stepfun",
    "tencent",
    "tencent-cloud",
    "tencent-tokenhub",
    "tencentmaas",
    "tokenhub",
    "x-ai",
    "x.ai",
    "xai",
    "xiaomi",
    "xiaomi-mimo",
    "z-ai",
    "z.ai",
    "zai",
    "zen",
    "zhipu",
];

/// `_strip_provider_prefix`: `provider:model` loses a known provider prefix unless the suffix
/// looks like an Ollama tag (`_OLLAMA_TAG_PATTERN`).
fn strip_provider_prefix(model: &str) -> &str {
    let Some((prefix, suffix)) = model.split_once(':') else {
        return model;
    };
    if model.starts_with("http")
        || !PROVIDER_PREFIXES.contains(&prefix.trim().to_lowercase().as_str())
    {
        return model;
    }
    if ollama_tag(&suffix.trim().to_lowercase()) {
        model
    } else {
        suffix
    }
}

/// `^(\d+\.?\d*b|latest|stable|q\d|fp?\d|instruct|chat|coder|vision|text)` (case-insensitive).
fn ollama_tag(tag: &str) -> bool {
    static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"^(\d+\.?\d*b|latest|stable|q\d|fp?\d|instruct|chat|coder|vision|text)")
            .ok()
    })
    .as_ref()
    .is_some_and(|re| re.is_match(tag))
}

/// The compressor's derived state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budgets {
    pub context_length: u64,
    pub threshold_percent: f64,
    pub threshold_tokens: u64,
    pub tail_token_budget: usize,
    pub max_summary_tokens: usize,
}

/// `ContextCompressor.__init__`'s arithmetic.
pub fn budgets(
    context_length: u64,
    threshold_percent: f64,
    max_tokens: Option<u64>,
    summary_target_ratio: f64,
) -> Budgets {
    let pct = if context_length > 0 && context_length < 512_000 {
        threshold_percent.max(0.75)
    } else {
        threshold_percent
    };
    let threshold_tokens = threshold_tokens(context_length, pct, max_tokens);
    let ratio = summary_target_ratio.clamp(0.10, 0.80);
    Budgets {
        context_length,
        threshold_percent: pct,
        threshold_tokens,
        tail_token_budget: (threshold_tokens as f64 * ratio) as usize,
        max_summary_tokens: ((context_length as f64 * 0.05) as usize).min(10_000),
    }
}

/// `_compute_threshold_tokens`.
fn threshold_tokens(context_length: u64, pct: f64, max_tokens: Option<u64>) -> u64 {
    let ctx = context_length as i64;
    let mut effective = ctx - max_tokens.filter(|&m| m > 0).unwrap_or(0) as i64;
    if effective <= 0 {
        effective = ctx;
    }
    let pct_value = (effective as f64 * pct) as i64;
    let floored = pct_value.max(MINIMUM_CONTEXT_LENGTH as i64);
    if effective > 0 && floored >= effective {
        return ((effective as f64 * 0.85) as i64).min(effective - 1).max(1) as u64;
    }
    floored.max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_match_the_documented_examples() {
        assert_eq!(budgets(272_000, 0.5, None, 0.2).threshold_tokens, 204_000);
        assert_eq!(budgets(128_000, 0.5, None, 0.2).threshold_tokens, 96_000);
        assert_eq!(budgets(1_000_000, 0.5, None, 0.2).threshold_tokens, 500_000);
        assert_eq!(budgets(64_000, 0.5, None, 0.2).threshold_tokens, 54_400);
        assert_eq!(budgets(8192, 0.5, None, 0.2).threshold_tokens, 6963);
        let b = budgets(100_000, 0.5, Some(93_000), 0.35);
        assert_eq!((b.threshold_tokens, b.tail_token_budget), (5950, 2082));
        assert_eq!(
            budgets(1_000_000, 0.3, Some(128_000), 0.2).threshold_tokens,
            261_600
        );
        assert_eq!(table_context_length("gemma-2-9b-it"), 8192);
    }
}
