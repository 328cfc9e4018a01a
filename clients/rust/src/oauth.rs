//! The Authorization Code flow with PKCE (S256) against the hub's authorization server.

use std::fmt;
use std::time::{Duration, SystemTime};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use url::Url;

use crate::error::{ApiError, Error};

/// Where the hub's authorization server answers, under the service's origin.
pub const AUTHORIZE_PATH: &str = "/api-platform/oauth/authorize";
pub const TOKEN_PATH: &str = "/api-platform/oauth/token";
pub const REVOKE_PATH: &str = "/api-platform/oauth/revoke";

/// The tokens of one grant. Store the refresh token: it changes on every refresh (rotation).
#[derive(Clone, PartialEq, Eq)]
pub struct OAuthTokens {
    pub access_token: String,
    pub refresh_token: Option<String>,
    /// When the access token expires.
    pub expires_at: Option<SystemTime>,
    pub scope: Option<String>,
}

impl fmt::Debug for OAuthTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // never print a token
        f.debug_struct("OAuthTokens")
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// A pending authorization: keep `state` and `code_verifier` until the user comes back.
#[derive(Clone, Debug)]
pub struct AuthorizationRequest {
    /// Send the user here.
    pub url: String,
    pub state: String,
    pub code_verifier: String,
}

/// The PKCE S256 challenge of a verifier (RFC 7636).
pub fn pkce_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    refresh_token: Option<String>,
    expires_in: Option<u64>,
    scope: Option<String>,
}

/// An OAuth app of the hub: the URL to send the user to, the code exchange, refresh (the hub
/// rotates refresh tokens: keep the new one) and revocation. For public clients (a CLI, a mobile
/// app: no secret) and confidential ones ([`OAuthClient::client_secret`]).
#[derive(Clone)]
pub struct OAuthClient {
    base_url: String,
    client_id: String,
    client_secret: Option<String>,
    redirect_uri: String,
    http: reqwest::Client,
    headers: HeaderMap,
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthClient")
            .field("base_url", &self.base_url)
            .field("client_id", &self.client_id)
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

impl OAuthClient {
    /// A public client of the hub at `base_url` (its origin, e.g. `https://hub.example.com`).
    pub fn new(base_url: impl Into<String>, client_id: impl Into<String>, redirect_uri: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            client_id: client_id.into(),
            client_secret: None,
            redirect_uri: redirect_uri.into(),
            http: crate::client::default_http_client(),
            headers: HeaderMap::new(),
        }
    }

    /// A confidential client: authenticates with its secret (HTTP Basic).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// Your own reqwest client (a proxy, your own TLS); share it with the hub client's.
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = http;
        self
    }

    /// A header sent with every request to the authorization server.
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, Error> {
        let (name, value) = header_pair(name, value)?;
        self.headers.insert(name, value);
        Ok(self)
    }

    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// The authorization URL with a fresh `state` and PKCE pair, for `scope` (space-separated).
    /// `extra` adds parameters (`[("prompt", "consent")]`).
    pub fn authorization_url(&self, scope: &str, extra: &[(&str, &str)]) -> Result<AuthorizationRequest, Error> {
        let state = crate::random::token::<16>();
        let code_verifier = crate::random::token::<32>();
        let mut url = Url::parse(&format!("{}{AUTHORIZE_PATH}", self.base_url))
            .map_err(|e| Error::InvalidRequest(format!("base URL: {e}")))?;
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", &self.client_id)
            .append_pair("redirect_uri", &self.redirect_uri)
            .append_pair("scope", scope)
            .append_pair("state", &state)
            .append_pair("code_challenge", &pkce_challenge(&code_verifier))
            .append_pair("code_challenge_method", "S256")
            .extend_pairs(extra);
        Ok(AuthorizationRequest {
            url: url.into(),
            state,
            code_verifier,
        })
    }

    /// The redirect back to the app (its full URL, or its path and query): checks the state,
    /// surfaces an authorization error, and exchanges the code for tokens.
    pub async fn handle_callback(&self, callback: &str, pending: &AuthorizationRequest) -> Result<OAuthTokens, Error> {
        let url = Url::parse("http://callback.invalid")
            .and_then(|base| base.join(callback))
            .map_err(|e| Error::InvalidRequest(format!("callback URL: {e}")))?;
        let get = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
        let refused = |error: &str, description: String| Error::OAuth {
            status: 400,
            error: error.into(),
            description,
        };
        if get("state").as_deref() != Some(pending.state.as_str()) {
            return Err(refused("state_mismatch", "the state does not match".into()));
        }
        if let Some(error) = get("error") {
            return Err(refused(&error, get("error_description").unwrap_or_default()));
        }
        let code = get("code").ok_or_else(|| refused("invalid_request", "the callback carries no code".into()))?;
        self.exchange_code(&code, &pending.code_verifier).await
    }

    pub async fn exchange_code(&self, code: &str, code_verifier: &str) -> Result<OAuthTokens, Error> {
        self.token(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("code_verifier", code_verifier),
            ("redirect_uri", &self.redirect_uri),
        ])
        .await
    }

    /// A new access token; the answer's refresh token replaces the one given (rotation).
    pub async fn refresh(&self, refresh_token: &str) -> Result<OAuthTokens, Error> {
        self.token(&[("grant_type", "refresh_token"), ("refresh_token", refresh_token)])
            .await
    }

    /// Revokes an access or refresh token (RFC 7009); revoking a refresh token ends its grant.
    /// `hint`: `Some("refresh_token")` or `Some("access_token")`.
    pub async fn revoke(&self, token: &str, hint: Option<&str>) -> Result<(), Error> {
        let mut fields = vec![("token", token)];
        if let Some(hint) = hint {
            fields.push(("token_type_hint", hint));
        }
        let response = self.post(REVOKE_PATH, &fields).await?;
        if !response.status().is_success() {
            return Err(oauth_error(response).await);
        }
        Ok(())
    }

    async fn token(&self, fields: &[(&str, &str)]) -> Result<OAuthTokens, Error> {
        let response = self.post(TOKEN_PATH, fields).await?;
        let status = response.status().as_u16();
        if !response.status().is_success() {
            return Err(oauth_error(response).await);
        }
        let body = response.bytes().await.map_err(Error::transport)?;
        let answer: TokenAnswer = serde_json::from_slice(&body).map_err(|e| Error::Decode {
            status,
            message: format!("the token endpoint's answer: {e}"),
        })?;
        Ok(OAuthTokens {
            access_token: answer.access_token,
            refresh_token: answer.refresh_token,
            expires_at: answer.expires_in.map(|s| SystemTime::now() + Duration::from_secs(s)),
            scope: answer.scope,
        })
    }

    async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Result<reqwest::Response, Error> {
        let mut form: Vec<(&str, &str)> = fields.to_vec();
        let mut request = self
            .http
            .post(format!("{}{path}", self.base_url))
            .headers(self.headers.clone());
        match &self.client_secret {
            None => form.push(("client_id", &self.client_id)),
            Some(secret) => {
                let encode = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
                let basic = STANDARD.encode(format!("{}:{}", encode(&self.client_id), encode(secret)));
                let mut value = HeaderValue::from_str(&format!("Basic {basic}"))
                    .map_err(|_| Error::InvalidRequest("client credentials".into()))?;
                value.set_sensitive(true);
                request = request.header(AUTHORIZATION, value);
            }
        }
        request.form(&form).send().await.map_err(Error::transport)
    }
}

pub(crate) fn header_pair(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), Error> {
    let name =
        HeaderName::from_bytes(name.as_bytes()).map_err(|e| Error::InvalidRequest(format!("header {name}: {e}")))?;
    let value = HeaderValue::from_str(value).map_err(|e| Error::InvalidRequest(format!("header {name}: {e}")))?;
    Ok((name, value))
}

/// An RFC 6749 error answer (`error`, `error_description`), else the answer read as a problem.
async fn oauth_error(response: reqwest::Response) -> Error {
    #[derive(Deserialize)]
    struct Answer {
        error: String,
        #[serde(default)]
        error_description: String,
    }
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.bytes().await.unwrap_or_default();
    match serde_json::from_slice::<Answer>(&body) {
        Ok(answer) => Error::OAuth {
            status,
            error: answer.error,
            description: answer.error_description,
        },
        Err(_) => Error::Api(Box::new(ApiError::from_body(status, headers, &body))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pkce_challenge_of_rfc_7636_appendix_b() {
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn the_authorization_url_carries_state_and_challenge() {
        let app = OAuthClient::new("http://hub.test/", "app_1", "http://127.0.0.1:9/callback");
        let pending = app
            .authorization_url("identify offline_access", &[("prompt", "consent")])
            .unwrap();
        let url = Url::parse(&pending.url).unwrap();
        assert_eq!(url.path(), AUTHORIZE_PATH);
        let query: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
        assert_eq!(query["state"], pending.state);
        assert_eq!(query["code_challenge"], pkce_challenge(&pending.code_verifier));
        assert_eq!(query["code_challenge_method"], "S256");
        assert_eq!(query["scope"], "identify offline_access");
        assert_eq!(query["prompt"], "consent");
    }

    #[tokio::test]
    async fn a_callback_with_another_state_is_refused_before_any_request() {
        let app = OAuthClient::new("http://127.0.0.1:9", "app_1", "http://127.0.0.1:9/callback");
        let pending = app.authorization_url("identify", &[]).unwrap();
        let error = app
            .handle_callback("/callback?code=x&state=forged", &pending)
            .await
            .unwrap_err();
        assert_eq!(error.code(), Some("state_mismatch"));
    }
}
