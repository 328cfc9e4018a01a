//! Puts the right credential on each request, by the surface its path belongs to, and keeps
//! OAuth tokens fresh (refreshed before they expire and once after a 401).

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use reqwest::Request;
use reqwest::header::{AUTHORIZATION, HeaderValue};

use crate::error::Error;
use crate::oauth::{OAuthClient, OAuthTokens};

/// Refresh this long before the announced expiry, so no call carries a dying token.
const EARLY_REFRESH: Duration = Duration::from_secs(30);

/// Called with every new token set: store its refresh token, the old one is spent (rotation).
pub type TokenCallback = Arc<dyn Fn(&OAuthTokens) + Send + Sync>;

pub(crate) struct OAuthState {
    pub(crate) client: OAuthClient,
    pub(crate) tokens: Mutex<OAuthTokens>,
    pub(crate) on_tokens: Option<TokenCallback>,
    /// one refresh at a time: a rotated refresh token can be spent once
    pub(crate) refreshing: tokio::sync::Mutex<()>,
}

#[derive(Default)]
pub(crate) struct Credentials {
    pub(crate) api_key: Option<HeaderValue>,
    pub(crate) bearer_key: Option<HeaderValue>,
    pub(crate) oauth: Option<OAuthState>,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // never print a key or a token
        f.debug_struct("Credentials")
            .field("api_key", &self.api_key.is_some())
            .field("oauth", &self.oauth.is_some())
            .finish()
    }
}

fn bearer(token: &str) -> Result<HeaderValue, Error> {
    let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| Error::InvalidRequest("a token with characters a header cannot carry".into()))?;
    value.set_sensitive(true);
    Ok(value)
}

impl Credentials {
    pub(crate) fn new(api_key: Option<&str>, oauth: Option<OAuthState>) -> Result<Self, Error> {
        let api_key = match api_key {
            Some(key) => {
                let mut value = HeaderValue::from_str(key)
                    .map_err(|_| Error::InvalidRequest("an API key with characters a header cannot carry".into()))?;
                value.set_sensitive(true);
                Some((value, bearer(key)?))
            }
            None => None,
        };
        let (api_key, bearer_key) = api_key.unzip();
        Ok(Self {
            api_key,
            bearer_key,
            oauth,
        })
    }

    /// The tokens in use (after any refresh), if the client acts for a user.
    pub(crate) fn tokens(&self) -> Option<OAuthTokens> {
        self.oauth
            .as_ref()
            .and_then(|o| o.tokens.lock().ok().map(|t| t.clone()))
    }

    pub(crate) fn can_refresh(&self) -> bool {
        self.tokens().is_some_and(|t| t.refresh_token.is_some())
    }

    pub(crate) async fn authorize(&self, request: &mut Request) -> Result<(), Error> {
        let path = request.url().path();
        if path.starts_with("/api-platform/oauth/") {
            return Ok(());
        }
        if path.starts_with("/v1/") {
            if request.headers().contains_key(AUTHORIZATION) {
                return Ok(());
            }
            let value = match &self.oauth {
                Some(oauth) => Some(bearer(&self.fresh_access_token(oauth).await?)?),
                None => self.bearer_key.clone(),
            };
            if let Some(value) = value {
                request.headers_mut().insert(AUTHORIZATION, value);
            }
            return Ok(());
        }
        if let Some(key) = &self.api_key
            && !request.headers().contains_key("x-api-key")
        {
            request.headers_mut().insert("x-api-key", key.clone());
        }
        Ok(())
    }

    async fn fresh_access_token(&self, oauth: &OAuthState) -> Result<String, Error> {
        let due = {
            let tokens = oauth.tokens.lock().map_err(|_| poisoned())?;
            let soon = SystemTime::now() + EARLY_REFRESH;
            tokens.refresh_token.is_some() && tokens.expires_at.is_some_and(|at| at <= soon)
        };
        if due {
            self.refresh().await?;
        }
        Ok(oauth.tokens.lock().map_err(|_| poisoned())?.access_token.clone())
    }

    /// Refreshes the OAuth tokens; concurrent callers wait for the one refresh under way.
    pub(crate) async fn refresh(&self) -> Result<(), Error> {
        let Some(oauth) = &self.oauth else { return Ok(()) };
        let before = oauth.tokens.lock().map_err(|_| poisoned())?.access_token.clone();
        let _one = oauth.refreshing.lock().await;
        let current = oauth.tokens.lock().map_err(|_| poisoned())?.clone();
        if current.access_token != before {
            return Ok(()); // another call refreshed while this one waited
        }
        let Some(refresh_token) = current.refresh_token.clone() else {
            return Ok(());
        };
        let mut fresh = oauth.client.refresh(&refresh_token).await?;
        if fresh.refresh_token.is_none() {
            fresh.refresh_token = Some(refresh_token);
        }
        *oauth.tokens.lock().map_err(|_| poisoned())? = fresh.clone();
        if let Some(callback) = &oauth.on_tokens {
            callback(&fresh);
        }
        Ok(())
    }
}

fn poisoned() -> Error {
    Error::InvalidRequest("the token store was poisoned by a panic".into())
}
