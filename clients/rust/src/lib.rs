#![doc = include_str!("../README.md")]
#![warn(missing_debug_implementations)]

mod client;
mod credentials;
mod error;
// written by `npm run clients:generate` (prettyplease), compared byte for byte by the drift test
#[rustfmt::skip]
mod generated;
mod hooks;
mod oauth;
mod paging;
mod random;
mod rate_limit;
mod request;
mod sse;
mod stream;
mod transport;
mod webhooks;

pub use client::{HubClient, HubClientBuilder};
pub use credentials::TokenCallback;
pub use error::{ApiError, Error, Problem, Result};
/// The generated client and its types (progenitor): `types::ForumThread`, `types::Problem`…
pub use generated::api::{self as api, types};
pub use generated::events::HubEvent;
pub use generated::metadata::{IDEMPOTENT_OPERATIONS, WEBHOOK_EVENT_TYPES, codes};
pub use oauth::{
    AUTHORIZE_PATH, AuthorizationRequest, OAuthClient, OAuthTokens, REVOKE_PATH, TOKEN_PATH, pkce_challenge,
};
pub use paging::Paging;
pub use rate_limit::RateLimit;
pub use request::{Conditional, RequestBuilder};
pub use stream::{EventStream, EventStreamOptions};
pub use transport::{CallOptions, RetryTiming};
pub use webhooks::{WebhookHeaders, WebhookVerifier};

/// The reqwest this client is built on, for [`HubClientBuilder::http_client`].
pub use reqwest;

/// This library's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The `User-Agent` every request carries.
pub const USER_AGENT: &str = concat!("gaming-hub-client-rust/", env!("CARGO_PKG_VERSION"));
