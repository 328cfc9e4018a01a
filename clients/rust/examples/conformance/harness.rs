//! What every scenario needs: the fixture the runner wrote, clients that name their scenario to
//! the conformance proxy, and the proxy's control routes (acting as the user at the consent step,
//! webhook inboxes, the requests it saw).

use std::time::Duration;

use gaming_hub_client::{HubClient, HubClientBuilder, OAuthClient, OAuthTokens, RetryTiming};
use serde_json::{Value, json};

pub const SCENARIO_HEADER: &str = "x-conformance-scenario";
/// A well-formed key the hub never issued.
pub const UNKNOWN_KEY: &str = "ghk_00000000000000000000000000000000000000";

/// A scenario's outcome: `Err` says why it failed.
pub type Outcome = Result<(), String>;

/// Fails the scenario with a message when `condition` is false.
macro_rules! ensure {
    ($condition:expr, $($message:tt)+) => {
        if !$condition {
            return Err(format!($($message)+));
        }
    };
}
pub(crate) use ensure;

pub struct Fixture(pub Value);

impl Fixture {
    pub fn load() -> Self {
        let file = std::env::var("HUB_CONFORMANCE_FIXTURE")
            .expect("HUB_CONFORMANCE_FIXTURE is not set: run `npm run test:clients` at the root");
        Self(
            serde_json::from_str(&std::fs::read_to_string(file).expect("the fixture file"))
                .expect("the fixture is JSON"),
        )
    }

    pub fn str(&self, key: &str) -> &str {
        self.0[key].as_str().unwrap_or_default()
    }

    pub fn user_id(&self, user: &str) -> i64 {
        self.0["users"][user]["id"].as_i64().unwrap_or_default()
    }

    /// Replaces every `"$fixture.a.b"` string with the fixture's value there.
    pub fn resolve(&self, value: &Value) -> Value {
        match value {
            Value::String(s) if s.starts_with("$fixture.") => s["$fixture.".len()..]
                .split('.')
                .fold(&self.0, |at, key| &at[key])
                .clone(),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.resolve(v)).collect()),
            Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), self.resolve(v))).collect()),
            other => other.clone(),
        }
    }

    /// A client builder of the scenario, with the fixture's API key and quick retries.
    pub fn builder(&self, scenario: &str) -> HubClientBuilder {
        HubClient::builder(self.str("base_url"))
            .api_key(self.str("api_key"))
            .header(SCENARIO_HEADER, scenario)
            .expect("a valid header")
            .retry_timing(RetryTiming {
                initial_delay: Duration::from_millis(50),
                max_delay: Duration::from_millis(400),
                ..RetryTiming::default()
            })
    }

    pub fn client(&self, scenario: &str) -> HubClient {
        self.builder(scenario).build().expect("a client")
    }

    /// The fixture's public OAuth app, talking through the proxy as the scenario.
    pub fn oauth(&self, scenario: &str) -> OAuthClient {
        let app = &self.0["oauth_app"];
        OAuthClient::new(
            self.str("base_url"),
            app["client_id"].as_str().unwrap_or_default(),
            app["redirect_uri"].as_str().unwrap_or_default(),
        )
        .header(SCENARIO_HEADER, scenario)
        .expect("a valid header")
    }

    async fn control(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let http = gaming_hub_client::reqwest::Client::new();
        let url = format!("{}/__conformance/{path}", self.str("base_url"));
        let request = match method {
            "POST" => http.post(url).json(&body.unwrap_or(json!({}))),
            _ => http.get(url),
        };
        let response = request
            .send()
            .await
            .map_err(|e| format!("conformance control {path}: {e}"))?;
        let status = response.status();
        let text = response.text().await.map_err(|e| e.to_string())?;
        if !status.is_success() {
            return Err(format!("conformance control {method} {path}: {status} {text}"));
        }
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }

    /// The proxy acting as alice on the consent page: the callback URL the hub sent her to.
    pub async fn act_as_alice(&self, url: &str) -> Result<String, String> {
        let answer = self
            .control("POST", "authorize", Some(json!({ "url": url, "user": "alice" })))
            .await?;
        Ok(answer["callback"].as_str().unwrap_or_default().to_owned())
    }

    /// A new webhook inbox: `(id, url)`.
    pub async fn new_inbox(&self) -> Result<(String, String), String> {
        let inbox = self.control("POST", "inbox", None).await?;
        Ok((
            inbox["id"].as_str().unwrap_or_default().into(),
            inbox["url"].as_str().unwrap_or_default().into(),
        ))
    }

    pub async fn deliveries(&self, inbox: &str) -> Result<Vec<Value>, String> {
        let answer = self
            .control("GET", &format!("inbox/{inbox}?wait_ms=20000"), None)
            .await?;
        Ok(answer["deliveries"].as_array().cloned().unwrap_or_default())
    }

    /// The requests of `scenario` the proxy saw, in arrival order.
    pub async fn proxy_saw(&self, scenario: &str) -> Result<Vec<Value>, String> {
        let answer = self
            .control("GET", &format!("requests?scenario={scenario}"), None)
            .await?;
        Ok(answer["requests"].as_array().cloned().unwrap_or_default())
    }

    /// The code flow for alice with `scope`, through the library: her tokens and the app's client.
    pub async fn sign_in(&self, scenario: &str, scope: &str) -> Result<(OAuthTokens, OAuthClient), String> {
        let oauth = self.oauth(scenario);
        // prompt=consent: a refresh token is issued on a new consent, even when alice granted the app before
        let pending = oauth
            .authorization_url(scope, &[("prompt", "consent")])
            .map_err(|e| e.to_string())?;
        let callback = self.act_as_alice(&pending.url).await?;
        let tokens = oauth
            .handle_callback(&callback, &pending)
            .await
            .map_err(|e| e.to_string())?;
        Ok((tokens, oauth))
    }

    /// A client acting for alice (OAuth) with `scope`.
    pub async fn alice(&self, scenario: &str, scope: &str) -> Result<HubClient, String> {
        let (tokens, oauth) = self.sign_in(scenario, scope).await?;
        let builder = HubClient::builder(self.str("base_url"))
            .header(SCENARIO_HEADER, scenario)
            .map_err(|e| e.to_string())?;
        builder.oauth(tokens, oauth).build().map_err(|e| e.to_string())
    }
}
