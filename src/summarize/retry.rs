//! Timeouts and the retry policy of the HTTP summarizers.
//!
//! Owns: `HttpOptions` (connect, idle and total timeouts; attempts and backoff), which statuses
//! are retried, the delay before the next attempt, and reading `Retry-After`. Pure: it computes
//! delays, it does not sleep or send.

use std::time::Duration;

/// How long to wait and how often to try. The defaults suit a real provider; tests shrink them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Time to open the TCP (and TLS) connection.
    pub connect_timeout: Duration,
    /// Longest silence allowed: waiting for the response head, or between two bytes of the body.
    pub idle_timeout: Duration,
    /// Cap on the whole call, retries and backoff included; `None` for no cap.
    pub total_timeout: Option<Duration>,
    /// Attempts in all (1 = no retry). Only 429 and 5xx answers are retried.
    pub max_attempts: u32,
    /// Delay before the second attempt; doubled for each further one.
    pub backoff_base: Duration,
    /// Cap on any one delay, `Retry-After` included.
    pub backoff_max: Duration,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions {
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            total_timeout: Some(Duration::from_secs(600)),
            max_attempts: 4,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(30),
        }
    }
}

/// 429 (rate limited) and every 5xx (Anthropic's 529 "overloaded" included) are worth a retry;
/// other statuses will not change by asking again.
pub fn is_retryable(status: u16) -> bool {
    status == 429 || (500..=599).contains(&status)
}

impl HttpOptions {
    /// The delay after failed attempt number `attempt` (1-based): what the server asked for in
    /// `retry_after` if it said, else `backoff_base × 2^(attempt-1)`; capped at `backoff_max`.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let backoff = || {
            let factor = 1u32 << attempt.saturating_sub(1).min(16);
            self.backoff_base.saturating_mul(factor)
        };
        retry_after.unwrap_or_else(backoff).min(self.backoff_max)
    }
}

/// The server's requested delay from `retry-after-ms` (OpenAI) or `retry-after` in seconds
/// (integer or decimal). An HTTP-date `Retry-After` is not read: the backoff applies instead.
pub fn retry_after(retry_after_ms: Option<&str>, retry_after: Option<&str>) -> Option<Duration> {
    let parse = |v: &str| {
        v.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
    };
    if let Some(ms) = retry_after_ms.and_then(parse) {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    retry_after.and_then(parse).map(Duration::from_secs_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let o = HttpOptions::default();
        let secs: Vec<u64> = (1..=7).map(|a| o.delay(a, None).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 30, 30]);
    }

    #[test]
    fn retry_after_wins_but_is_capped() {
        let o = HttpOptions::default();
        assert_eq!(o.delay(3, Some(Duration::ZERO)), Duration::ZERO);
        assert_eq!(o.delay(1, Some(Duration::from_secs(3600))), o.backoff_max);
        assert_eq!(retry_after(None, Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(
            retry_after(Some("250"), Some("1")),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(None, Some("Wed, 21 Oct 2015 07:28:00 GMT")),
            None
        );
    }

    #[test]
    fn only_rate_limits_and_server_errors_are_retried() {
        let retried: Vec<u16> = [400, 401, 403, 404, 408, 422, 429, 500, 503, 529]
            .into_iter()
            .filter(|s| is_retryable(*s))
            .collect();
        assert_eq!(retried, [429, 500, 503, 529]);
    }
}
