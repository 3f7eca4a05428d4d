//! The constructor parameters of `SummarizingCompaction` and `SlidingWindowCompaction` 0.62,
//! with the framework's names and defaults, and the `guard` option for the 0.63 shrink rule.

use crate::compaction::settings::{Kind, ParamSpec};

const fn p(
    name: &'static str,
    kind: Kind,
    default: &'static str,
    nullable: bool,
    help: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        kind,
        default,
        nullable,
        help,
    }
}

const MAX_MESSAGES: ParamSpec = p(
    "max_messages",
    Kind::Int,
    "null",
    true,
    "compact when the history holds more than this many messages (requests and responses)",
);
const MAX_TOKENS: ParamSpec = p(
    "max_tokens",
    Kind::Int,
    "null",
    true,
    "compact when estimate_context_tokens exceeds this (strict >)",
);
const MAX_FRACTION: ParamSpec = p(
    "max_fraction",
    Kind::Float,
    "null",
    true,
    "token trigger as max(1, int(window × max_fraction)); exclusive with max_tokens",
);
const CONTEXT_WINDOW: ParamSpec = p(
    "context_window",
    Kind::Int,
    "null",
    true,
    "window override for max_fraction; null resolves it (--window, then the model registry)",
);
const FALLBACK_WINDOW: ParamSpec = p(
    "fallback_context_window",
    Kind::Int,
    "200000",
    false,
    "window assumed when none can be resolved",
);
const KEEP_TOKENS: ParamSpec = p(
    "keep_tokens",
    Kind::Int,
    "null",
    true,
    "keep the shortest tail holding this many tokens (plus the calls of its returns) instead of keep_messages",
);
const TOKENIZER: ParamSpec = p(
    "tokenizer",
    Kind::Str,
    "null",
    true,
    "null: chars/4 over the summed text; any callable name: count each segment with the session's encoding",
);
const PRESERVE_FIRST: ParamSpec = p(
    "preserve_first_user_message",
    Kind::Bool,
    "true",
    false,
    "keep the first user request after compaction",
);
const RECEIPTS: ParamSpec = p(
    "receipts",
    Kind::Bool,
    "false",
    false,
    "insert a receipt naming how many messages and tokens were compacted",
);

pub const SUMMARIZING: &[ParamSpec] = &[
    p(
        "model",
        Kind::Str,
        "null",
        true,
        "summarizer model name; null uses the run's model (names the receipt's model family)",
    ),
    MAX_MESSAGES,
    MAX_TOKENS,
    MAX_FRACTION,
    CONTEXT_WINDOW,
    FALLBACK_WINDOW,
    p(
        "keep_messages",
        Kind::Int,
        "20",
        false,
        "tail messages kept (the newest always); the cut walks back to keep tool pairs whole",
    ),
    KEEP_TOKENS,
    TOKENIZER,
    PRESERVE_FIRST,
    p(
        "incremental",
        Kind::Bool,
        "true",
        false,
        "feed the newest earlier summary back as <previous-summary> to update",
    ),
    p(
        "bridge_prefix",
        Kind::Bool,
        "false",
        false,
        "prefix a cross-model handoff note to the summary on a model-family mismatch",
    ),
    p(
        "keep_user_messages",
        Kind::Bool,
        "false",
        false,
        "re-insert summarized user turns after the summary (they take tail slots)",
    ),
    p(
        "keep_user_messages_max_chars",
        Kind::Int,
        "20000",
        false,
        "character cap of each re-inserted user turn",
    ),
    p(
        "tool_return_max_chars",
        Kind::Int,
        "500",
        true,
        "tool returns, retry feedback and harness data are cut to this many characters in the transcript",
    ),
    RECEIPTS,
    p(
        "guard",
        Kind::Choice(&["none", "shrink", "fit"]),
        "none",
        false,
        "none: 0.62 (any summary is inserted); shrink: 0.63 (the history is kept when estimate_token_count of the compacted request is not below the request's, whatever the trigger measures); fit: a ctxray what-if no release implements, also keeping it when the compacted history still reaches the trigger",
    ),
];

pub const SLIDING: &[ParamSpec] = &[
    MAX_MESSAGES,
    MAX_TOKENS,
    MAX_FRACTION,
    CONTEXT_WINDOW,
    FALLBACK_WINDOW,
    p(
        "keep_messages",
        Kind::Int,
        "40",
        false,
        "tail messages kept (one fewer with receipts); the cut walks back to keep tool pairs whole",
    ),
    KEEP_TOKENS,
    TOKENIZER,
    PRESERVE_FIRST,
    RECEIPTS,
];
