//! Numeric command-line options: each parsed as a whole number in a stated range, so a huge or
//! negative value is a usage error (exit 2) rather than a panic, an overflow or an allocation
//! the size of the value.
//!
//! Owns: the ranges of `--window`, `--summary-tokens` and `--summarizer-timeout`. Must not: know what a command does
//! with the number.

/// The largest `--window`: 10^12 tokens, beyond any model's.
pub const MAX_WINDOW: u64 = 1_000_000_000_000;

/// The largest `--summary-tokens`: the stand-in summary is built as text (a few bytes a
/// token, then counted), so it is bounded to stay quick and small; no real summary is larger.
pub const MAX_SUMMARY_TOKENS: u64 = 1_000_000;

/// The default `--summarizer-timeout`: five minutes, ample for a summary streamed by a slow
/// model, short enough that a server trickling bytes cannot hold the command.
pub const DEFAULT_SUMMARIZER_TIMEOUT: u64 = 300;

/// The largest `--summarizer-timeout`: a day.
pub const MAX_SUMMARIZER_TIMEOUT: u64 = 86_400;

/// `--summarizer-timeout SECS`: 1 to 86400 seconds.
pub fn summarizer_timeout(s: &str) -> Result<u64, String> {
    count(s, 1, MAX_SUMMARIZER_TIMEOUT)
}

/// `--window N`: 1 to 10^12 tokens.
pub fn window(s: &str) -> Result<u64, String> {
    count(s, 1, MAX_WINDOW)
}

/// `--summary-tokens N`: 0 to 10^6 tokens.
pub fn summary_tokens(s: &str) -> Result<usize, String> {
    count(s, 0, MAX_SUMMARY_TOKENS).and_then(|n| usize::try_from(n).map_err(|e| e.to_string()))
}

/// A whole number in `min..=max` (`_` separators allowed).
fn count(s: &str, min: u64, max: u64) -> Result<u64, String> {
    s.trim()
        .replace('_', "")
        .parse::<u64>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| format!("`{s}` is not a whole number from {min} to {max}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_hold_at_their_ends_and_refuse_beyond() {
        assert_eq!(window("1"), Ok(1));
        assert_eq!(window("1_000_000_000_000"), Ok(MAX_WINDOW));
        assert_eq!(summary_tokens("0"), Ok(0));
        assert_eq!(summary_tokens("1000000"), Ok(1_000_000));
        for bad in ["0", "-5", "1000000000001", "18446744073709551616", "x", ""] {
            assert!(window(bad).is_err(), "--window {bad}");
        }
        assert_eq!(summarizer_timeout("1"), Ok(1));
        assert_eq!(summarizer_timeout("86400"), Ok(MAX_SUMMARIZER_TIMEOUT));
        for bad in ["0", "-1", "86401", "1.5", "x"] {
            let err = summarizer_timeout(bad).unwrap_err();
            assert!(err.contains("from 1 to 86400"), "{bad}: {err}");
        }
        for bad in ["-1", "1000001", "18446744073709551615", "1.5"] {
            let err = summary_tokens(bad).unwrap_err();
            assert!(err.contains("from 0 to 1000000"), "{bad}: {err}");
        }
    }
}
