//! Standard Webhooks verification (HMAC-SHA256 over `id.timestamp.body`), with secret rotation.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::Error;
use crate::generated::events::HubEvent;

/// Where a delivery's headers come from: an `http::HeaderMap` (axum, hyper, reqwest), or a map
/// of lower-case names.
pub trait WebhookHeaders {
    fn header(&self, name: &str) -> Option<&str>;
}

impl WebhookHeaders for reqwest::header::HeaderMap {
    fn header(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(|v| v.to_str().ok())
    }
}

impl WebhookHeaders for HashMap<String, String> {
    fn header(&self, name: &str) -> Option<&str> {
        self.get(name).map(String::as_str)
    }
}

impl WebhookHeaders for BTreeMap<String, String> {
    fn header(&self, name: &str) -> Option<&str> {
        self.get(name).map(String::as_str)
    }
}

/// Verifies deliveries per Standard Webhooks. Give it every secret that may sign: during a
/// rotation the hub signs with the old and the new secret (two signatures), and either verifies.
#[derive(Clone)]
pub struct WebhookVerifier {
    keys: Vec<Vec<u8>>,
    tolerance: Duration,
}

impl std::fmt::Debug for WebhookVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookVerifier")
            .field("secrets", &self.keys.len())
            .field("tolerance", &self.tolerance)
            .finish()
    }
}

fn refused(why: &str) -> Error {
    Error::Webhook(why.to_owned())
}

impl WebhookVerifier {
    /// A verifier holding `secrets` (`whsec_…`, as the hub hands them out).
    pub fn new<S: AsRef<str>>(secrets: impl IntoIterator<Item = S>) -> Result<Self, Error> {
        let keys = secrets
            .into_iter()
            .map(|s| {
                let s = s.as_ref();
                STANDARD
                    .decode(s.strip_prefix("whsec_").unwrap_or(s))
                    .map_err(|_| Error::InvalidRequest("a webhook secret that is not base64".into()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if keys.is_empty() {
            return Err(Error::InvalidRequest("at least one webhook secret is needed".into()));
        }
        Ok(Self {
            keys,
            tolerance: Duration::from_secs(300),
        })
    }

    /// How far the delivery's timestamp may be from now, either way (default 300 s, the standard's).
    pub fn tolerance(mut self, tolerance: Duration) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Checks the delivery's signature and timestamp against the clock.
    pub fn verify(&self, body: &[u8], headers: &impl WebhookHeaders) -> Result<(), Error> {
        self.verify_at(body, headers, SystemTime::now())
    }

    /// [`verify`](Self::verify) with the clock at `now` (a test, a replay of stored deliveries).
    pub fn verify_at(&self, body: &[u8], headers: &impl WebhookHeaders, now: SystemTime) -> Result<(), Error> {
        let (Some(id), Some(timestamp), Some(signatures)) = (
            headers.header("webhook-id"),
            headers.header("webhook-timestamp"),
            headers.header("webhook-signature"),
        ) else {
            return Err(refused("missing webhook headers"));
        };
        if timestamp.is_empty() || !timestamp.bytes().all(|b| b.is_ascii_digit()) {
            return Err(refused("invalid webhook-timestamp"));
        }
        let sent =
            UNIX_EPOCH + Duration::from_secs(timestamp.parse().map_err(|_| refused("invalid webhook-timestamp"))?);
        let age = now.duration_since(sent).unwrap_or_else(|e| e.duration());
        if age > self.tolerance {
            return Err(refused("webhook-timestamp too old or too new"));
        }
        let candidates: Vec<Vec<u8>> = signatures
            .split(' ')
            .filter_map(|s| s.strip_prefix("v1,"))
            .filter_map(|s| STANDARD.decode(s).ok())
            .collect();
        for key in &self.keys {
            for candidate in &candidates {
                let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any size");
                mac.update(id.as_bytes());
                mac.update(b".");
                mac.update(timestamp.as_bytes());
                mac.update(b".");
                mac.update(body);
                // verify_slice compares in constant time
                if mac.verify_slice(candidate).is_ok() {
                    return Ok(());
                }
            }
        }
        Err(refused("no signature matches"))
    }

    /// Verifies the delivery, then parses it into the event of its type.
    pub fn parse(&self, body: &[u8], headers: &impl WebhookHeaders) -> Result<HubEvent, Error> {
        self.verify(body, headers)?;
        let value: serde_json::Value = serde_json::from_slice(body).map_err(|_| refused("the delivery is not JSON"))?;
        HubEvent::from_value(value).map_err(|e| Error::Decode {
            status: 200,
            message: format!("the event: {e}"),
        })
    }
}
