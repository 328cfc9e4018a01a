//! Sends a request with its credentials, a timeout per attempt and retries. Every call goes
//! through here: the generic path calls, the paginator, the stream, and the generated operations
//! (src/hooks.rs). The generated client holds a `Transport` as its inner value.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Request, Response, StatusCode};

use crate::credentials::Credentials;
use crate::error::Error;
use crate::rate_limit::{RateLimit, retry_after};

/// Retries and timeout: per client ([`HubClientBuilder`](crate::HubClientBuilder)) and per call
/// ([`HubClient::with_options`](crate::HubClient::with_options), [`RequestBuilder`](crate::RequestBuilder)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallOptions {
    /// Retries after the first attempt (default 2); 0 turns retries off.
    pub max_retries: u32,
    /// How long each attempt may take, answer included (default 30 s); `None`: no limit.
    pub timeout: Option<Duration>,
}

impl Default for CallOptions {
    fn default() -> Self {
        Self {
            max_retries: 2,
            timeout: Some(Duration::from_secs(30)),
        }
    }
}

/// When to wait between attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryTiming {
    /// The first backoff, doubled on each retry (default 500 ms).
    pub initial_delay: Duration,
    /// The longest backoff (default 8 s).
    pub max_delay: Duration,
    /// A `Retry-After` or quota reset further away than this is not waited for: the error is
    /// returned (default 60 s).
    pub max_retry_after: Duration,
}

impl Default for RetryTiming {
    fn default() -> Self {
        Self {
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// What every clone of a client shares: one connection pool, the credentials, the last quota.
pub(crate) struct Shared {
    pub(crate) http: reqwest::Client,
    /// the origin, without a trailing slash (paths are written in full)
    pub(crate) base_url: String,
    pub(crate) headers: HeaderMap,
    pub(crate) credentials: Credentials,
    pub(crate) timing: RetryTiming,
    pub(crate) rate: Mutex<Option<RateLimit>>,
}

/// The inner value of the generated client: the shared state and this handle's call options.
#[derive(Clone)]
pub struct Transport {
    pub(crate) shared: Arc<Shared>,
    pub(crate) options: CallOptions,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("base_url", &self.shared.base_url)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// Statuses worth another attempt: the quota or the service asks to come back, or a gateway failed.
fn worth_retrying(status: StatusCode) -> bool {
    matches!(status.as_u16(), 429 | 502 | 503 | 504)
}

/// A request that cannot do anything twice: a safe method, or a write with an `Idempotency-Key`
/// (the same key on every attempt, so the hub answers a repeat from its store).
fn retryable(request: &Request) -> bool {
    matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS)
        || request.headers().contains_key("idempotency-key")
}

/// Why an attempt loop stopped without an answer.
pub(crate) enum Failure {
    Transport(reqwest::Error),
    Other(Error),
}

impl From<Failure> for Error {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::Transport(e) => Error::transport(e),
            Failure::Other(e) => e,
        }
    }
}

impl Transport {
    pub(crate) fn base_url(&self) -> &str {
        &self.shared.base_url
    }

    /// Exponential backoff with jitter: a random wait between half and all of initial × 2^attempt, capped.
    fn backoff(&self, attempt: u32) -> Duration {
        let timing = &self.shared.timing;
        let ceiling = timing
            .initial_delay
            .saturating_mul(1 << attempt.min(16))
            .min(timing.max_delay);
        let mut byte = [0u8; 2];
        let jitter = if getrandom::fill(&mut byte).is_ok() {
            f64::from(u16::from_le_bytes(byte)) / 65535.0
        } else {
            0.5
        };
        ceiling.mul_f64(0.5 + jitter / 2.0)
    }

    /// The default headers, the User-Agent and an Idempotency-Key (when `idempotent` and none is set).
    pub(crate) fn prepare(&self, request: &mut Request, idempotent: bool) {
        let headers = request.headers_mut();
        for (name, value) in &self.shared.headers {
            if !headers.contains_key(name) {
                headers.insert(name.clone(), value.clone());
            }
        }
        if idempotent
            && !headers.contains_key("idempotency-key")
            && let Ok(key) = HeaderValue::from_str(&crate::random::uuid_v4())
        {
            headers.insert(HeaderName::from_static("idempotency-key"), key);
        }
    }

    /// The attempts of one call; `Ok` is any answer (an error status included) the caller should read.
    pub(crate) async fn attempts(&self, request: Request) -> Result<Response, Failure> {
        let retryable = retryable(&request);
        let max_retries = self.options.max_retries;
        let mut refreshed = false;
        let mut attempt = 0;
        let mut original = Some(request);
        loop {
            let left = retryable && attempt < max_retries;
            // a copy per attempt only when another may follow (the common call clones nothing)
            let may_repeat = left || (!refreshed && self.shared.credentials.can_refresh());
            let copy = if may_repeat {
                original.as_ref().and_then(Request::try_clone)
            } else {
                None
            };
            let Some(mut this) = copy.or_else(|| original.take()) else {
                return Err(Failure::Other(Error::InvalidRequest(
                    "a streamed body cannot be sent again".into(),
                )));
            };
            *this.timeout_mut() = self.options.timeout;
            self.shared
                .credentials
                .authorize(&mut this)
                .await
                .map_err(Failure::Other)?;
            let path_is_v1 = this.url().path().starts_with("/v1/");
            let response = match self.shared.http.execute(this).await {
                Ok(response) => response,
                Err(error) => {
                    if !left {
                        return Err(Failure::Transport(error));
                    }
                    tokio::time::sleep(self.backoff(attempt)).await;
                    attempt += 1;
                    continue;
                }
            };
            self.observe(&response);
            let status = response.status();
            if status == StatusCode::UNAUTHORIZED && !refreshed && path_is_v1 && self.shared.credentials.can_refresh() {
                // the token was refused before anything ran: sending again is safe for any method
                refreshed = true;
                self.shared.credentials.refresh().await.map_err(Failure::Other)?;
                continue;
            }
            if !worth_retrying(status) || !left {
                return Ok(response);
            }
            let asked = retry_after(response.headers(), status, SystemTime::now());
            if asked.is_some_and(|wait| wait > self.shared.timing.max_retry_after) {
                return Ok(response);
            }
            drop(response);
            tokio::time::sleep(asked.unwrap_or_else(|| self.backoff(attempt))).await;
            attempt += 1;
        }
    }

    fn observe(&self, response: &Response) {
        if let Some(state) = RateLimit::from_headers(response.headers())
            && let Ok(mut rate) = self.shared.rate.lock()
        {
            *rate = Some(state);
        }
    }
}
