//! aider's token reports, the `> Tokens: 2.4k sent, 104 received. Cost: …` line it shows after
//! each reply (`calculate_and_show_tokens_and_cost` in `aider/coders/base_coder.py`), read
//! into the reply's usage.
//!
//! Owns: reading the report and aider's number format (`format_tokens`: below 1000 exact,
//! below 10k one decimal of thousands, `2.4k`, above rounded thousands, `12k`), so the counts are
//! as exact as the history keeps them. "sent" is the whole prompt (aider adds the cache writes
//! to the provider's prompt tokens), so input includes the cache.

use crate::session::Usage;

/// The usage of a `Tokens: …` report line (without its `> ` and trailing spaces).
pub(super) fn report(line: &str) -> Option<Usage> {
    let rest = line.strip_prefix("Tokens: ")?;
    let report = rest.split_once(". ").map_or(rest, |(r, _)| r);
    let report = report.trim_end_matches('.');
    let mut usage = Usage {
        input_includes_cache: true,
        ..Usage::default()
    };
    for item in report.split(", ") {
        let (n, what) = item.split_once(' ')?;
        let n = tokens(n)?;
        match what {
            "sent" => usage.input = Some(n),
            "received" => usage.output = Some(n),
            "cache hit" => usage.cache_read = Some(n),
            "cache write" => usage.cache_write = Some(n),
            _ => return None,
        }
    }
    (usage.input.is_some() || usage.output.is_some()).then_some(usage)
}

/// `104`, `2.4k`, `12k`, and the `1.2M` of a long history.
fn tokens(s: &str) -> Option<u64> {
    let (digits, scale) = match s.as_bytes().last()? {
        b'k' => (&s[..s.len() - 1], 1_000.0),
        b'M' => (&s[..s.len() - 1], 1_000_000.0),
        _ => (s, 1.0),
    };
    let x: f64 = digits.replace(',', "").parse().ok()?;
    (x.is_finite() && x >= 0.0).then(|| (x * scale).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_read_with_aiders_rounding() {
        let u =
            report("Tokens: 2.4k sent, 104 received. Cost: $0.00042 message, $0.00042 session.")
                .unwrap();
        assert_eq!((u.input, u.output), (Some(2400), Some(104)));
        let u =
            report("Tokens: 12k sent, 3.1k cache write, 950 cache hit, 1.0k received.").unwrap();
        assert_eq!(
            (u.input, u.cache_write, u.cache_read, u.output),
            (Some(12000), Some(3100), Some(950), Some(1000))
        );
        assert_eq!(report("Tokens: lots sent, 3 received."), None);
        assert_eq!(report("Tokens: 3 sent, 4 apples."), None);
        assert_eq!(report("Added x to the chat"), None);
    }
}
