//! Codex `token_count` events turned into per-request usage.
//!
//! Owns: telling a new request from a repeated report, and taking its figures from
//! `last_token_usage` or, when a file has only the cumulative `total_token_usage`, from the
//! difference of successive totals. Totals are cumulative for the whole session and survive
//! compaction, so they are never used as a context size themselves.

use serde_json::Value;

use crate::formats::common::u64_at;
use crate::session::Usage;

/// One `{input_tokens, cached_input_tokens, output_tokens, reasoning_output_tokens,
/// total_tokens}` object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    input: Option<u64>,
    cached: Option<u64>,
    output: Option<u64>,
    reasoning: Option<u64>,
    total: Option<u64>,
}

impl Counts {
    fn read(v: &Value) -> Option<Counts> {
        let counts = Counts {
            input: u64_at(v, "input_tokens"),
            cached: u64_at(v, "cached_input_tokens"),
            output: u64_at(v, "output_tokens"),
            reasoning: u64_at(v, "reasoning_output_tokens"),
            total: u64_at(v, "total_tokens"),
        };
        (counts != Counts::default()).then_some(counts)
    }

    /// Field-wise `self - earlier` (a cumulative counter's growth).
    fn since(self, earlier: Counts) -> Counts {
        let sub = |a: Option<u64>, b: Option<u64>| a.map(|a| a.saturating_sub(b.unwrap_or(0)));
        Counts {
            input: sub(self.input, earlier.input),
            cached: sub(self.cached, earlier.cached),
            output: sub(self.output, earlier.output),
            reasoning: sub(self.reasoning, earlier.reasoning),
            total: sub(self.total, earlier.total),
        }
    }

    fn usage(self) -> Usage {
        Usage {
            input: self.input,
            output: self.output,
            cache_read: self.cached,
            cache_write: None,
            reasoning: self.reasoning,
            total: self.total,
            input_includes_cache: true,
        }
    }
}

/// The token counters seen so far.
#[derive(Debug, Default)]
pub(super) struct Counter {
    last_total: Option<Counts>,
    last_request: Option<Counts>,
}

impl Counter {
    /// The usage of the request a `token_count.info` reports, or `None` when it reports no new
    /// request (Codex repeats the same counters after tool outputs and around compaction).
    pub fn request(&mut self, info: &Value) -> Option<Usage> {
        let total = info.get("total_token_usage").and_then(Counts::read);
        let last = info.get("last_token_usage").and_then(Counts::read);
        let is_new = match total {
            Some(t) => Some(t) != self.last_total,
            None => last.is_some() && last != self.last_request,
        };
        let request = match (last, total) {
            (Some(l), _) => Some(l),
            // Only cumulative totals: this request is what the total grew by.
            (None, Some(t)) => Some(t.since(self.last_total.unwrap_or_default())),
            (None, None) => None,
        };
        if total.is_some() {
            self.last_total = total;
        }
        if last.is_some() {
            self.last_request = last;
        }
        if is_new {
            request.map(Counts::usage)
        } else {
            None
        }
    }
}
