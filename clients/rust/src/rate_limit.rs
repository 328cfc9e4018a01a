use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::StatusCode;
use reqwest::header::HeaderMap;

/// The quota state the hub sent with the last response that carried one (published API keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed in the current window.
    pub limit: u64,
    /// Requests left in the current window.
    pub remaining: u64,
    /// When the window ends and the quota resets.
    pub reset: SystemTime,
}

fn number(headers: &HeaderMap, name: &str) -> Option<u64> {
    let text = headers.get(name)?.to_str().ok()?;
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl RateLimit {
    /// The state the headers tell, or `None` when they carry none (a /v1 answer).
    pub fn from_headers(headers: &HeaderMap) -> Option<Self> {
        Some(Self {
            limit: number(headers, "x-ratelimit-limit")?,
            remaining: number(headers, "x-ratelimit-remaining")?,
            reset: UNIX_EPOCH + Duration::from_secs(number(headers, "x-ratelimit-reset")?),
        })
    }
}

/// How long `Retry-After` asks to wait (seconds or an HTTP date), or the quota's reset on a 429.
pub(crate) fn retry_after(headers: &HeaderMap, status: StatusCode, now: SystemTime) -> Option<Duration> {
    let until = |at: SystemTime| at.duration_since(now).unwrap_or_default();
    if let Some(value) = headers.get("retry-after").and_then(|v| v.to_str().ok()) {
        if let Ok(seconds) = value.trim().parse::<u64>() {
            return Some(Duration::from_secs(seconds));
        }
        if let Ok(date) = httpdate::parse_http_date(value) {
            return Some(until(date));
        }
    }
    if status == StatusCode::TOO_MANY_REQUESTS {
        let reset = number(headers, "x-ratelimit-reset")?;
        return Some(until(UNIX_EPOCH + Duration::from_secs(reset)));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, v.parse().unwrap());
        }
        map
    }

    #[test]
    fn reads_the_quota_headers() {
        let state = RateLimit::from_headers(&headers(&[
            ("x-ratelimit-limit", "1000"),
            ("x-ratelimit-remaining", "998"),
            ("x-ratelimit-reset", "1764000000"),
        ]))
        .unwrap();
        assert_eq!((state.limit, state.remaining), (1000, 998));
        assert_eq!(state.reset, UNIX_EPOCH + Duration::from_secs(1_764_000_000));
        assert_eq!(RateLimit::from_headers(&headers(&[("x-ratelimit-limit", "10")])), None);
    }

    #[test]
    fn retry_after_in_seconds_as_a_date_or_from_the_reset() {
        let now = UNIX_EPOCH + Duration::from_secs(1_764_000_000);
        let ok = StatusCode::SERVICE_UNAVAILABLE;
        assert_eq!(
            retry_after(&headers(&[("retry-after", "3")]), ok, now),
            Some(Duration::from_secs(3))
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(5));
        assert_eq!(
            retry_after(&headers(&[("retry-after", &date)]), ok, now),
            Some(Duration::from_secs(5))
        );
        let reset = headers(&[("x-ratelimit-reset", "1764000007")]);
        assert_eq!(
            retry_after(&reset, StatusCode::TOO_MANY_REQUESTS, now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(retry_after(&reset, ok, now), None);
    }
}
