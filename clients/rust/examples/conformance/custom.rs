//! The scenarios that need more than a call: retries under the proxy's faults, OAuth, webhooks
//! and the stream. Each fails (with why) when the library does not do what the scenario says.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::{StreamExt, TryStreamExt};
use gaming_hub_client::{
    CallOptions, Conditional, Error, EventStreamOptions, HubClient, HubEvent, OAuthClient, OAuthTokens,
    WebhookVerifier, codes,
};
use serde_json::{Value, json};

use crate::harness::{Fixture, Outcome, ensure};

/// Runs the custom scenario `name`; `None` when this implementation has none of that name.
pub async fn run(fixture: &Fixture, name: &str) -> Option<Outcome> {
    Some(match name {
        "rate_limit.state" => rate_limit_state(fixture, name).await,
        "conditional.etag" => conditional_etag(fixture, name).await,
        "retry.429_retry_after" => retry_after(fixture, name).await,
        "retry.gateway_backoff" => gateway_backoff(fixture, name).await,
        "retry.write_without_key_not_retried" => write_not_retried(fixture, name).await,
        "idempotency.transfer_after_dropped_connection" => transfer_after_drop(fixture, name).await,
        "oauth.code_flow_pkce" => code_flow(fixture, name).await,
        "oauth.refresh_rotation" => refresh_rotation(fixture, name).await,
        "oauth.revoke" => revoke(fixture, name).await,
        "webhooks.vectors" => vectors(fixture).await,
        "webhooks.real_delivery" => real_delivery(fixture, name).await,
        "stream.resume_after_disconnect" => stream_resume(fixture, name).await,
        "errors.transport_distinct" => transport_distinct(fixture, name).await,
        _ => return None,
    })
}

fn failed(e: Error) -> String {
    e.to_string()
}

async fn balance(hub: &HubClient) -> Result<i64, String> {
    let answer: Value = hub.get("/v1/economy/balance").send().await.map_err(failed)?;
    Ok(answer["data"]["balance"].as_i64().unwrap_or_default())
}

async fn transfer(fixture: &Fixture, hub: &HubClient, amount: i64) -> Result<Value, String> {
    let body = json!({ "to_user_id": fixture.user_id("bob"), "amount": amount });
    hub.post("/v1/economy/transfer")
        .json(&body)
        .send()
        .await
        .map_err(failed)
}

fn refused_with(result: Result<OAuthTokens, Error>, code: &str) -> Outcome {
    match result {
        Err(Error::OAuth { error, .. }) if error == code => Ok(()),
        Err(other) => Err(format!("expected {code}, got {other}")),
        Ok(_) => Err(format!("expected {code}, got new tokens")),
    }
}

async fn rate_limit_state(fixture: &Fixture, name: &str) -> Outcome {
    let hub = fixture.client(name);
    hub.get("/api-platform/v1/leaderboards")
        .query("limit", 1)
        .send::<Value>()
        .await
        .map_err(failed)?;
    let state = hub.rate_limit().ok_or("no rate-limit state")?;
    ensure!(state.limit > 0 && state.remaining <= state.limit, "{state:?}");
    let now = SystemTime::now();
    let ahead = state.reset.duration_since(now).unwrap_or_default();
    ensure!(
        now.duration_since(state.reset).unwrap_or_default() < Duration::from_secs(1),
        "reset in the past"
    );
    ensure!(ahead <= Duration::from_secs(3601), "reset {ahead:?} ahead");
    Ok(())
}

async fn conditional_etag(fixture: &Fixture, name: &str) -> Outcome {
    let hub = fixture.client(name);
    let call = || hub.get("/api-platform/v1/leaderboards").query("limit", 3);
    let Conditional::Modified { etag: Some(etag), .. } =
        call().send_conditional::<Value>(None).await.map_err(failed)?
    else {
        return Err("the first answer has data and an ETag".into());
    };
    let second = call().send_conditional::<Value>(Some(&etag)).await.map_err(failed)?;
    ensure!(
        matches!(second, Conditional::NotModified { .. }),
        "the second answer is not 'not modified'"
    );
    Ok(())
}

async fn retry_after(fixture: &Fixture, name: &str) -> Outcome {
    let started = Instant::now();
    fixture
        .client(name)
        .get("/api-platform/v1/leaderboards")
        .send::<Value>()
        .await
        .map_err(failed)?;
    ensure!(
        started.elapsed() >= Duration::from_secs(1),
        "retried before Retry-After"
    );
    let attempts = fixture.proxy_saw(name).await?.len();
    ensure!(attempts == 2, "{attempts} attempts");
    Ok(())
}

async fn gateway_backoff(fixture: &Fixture, name: &str) -> Outcome {
    let hub = fixture.builder(name).max_retries(2).build().map_err(failed)?;
    hub.get("/api-platform/v1/achievements")
        .send::<Value>()
        .await
        .map_err(failed)?;
    let attempts = fixture.proxy_saw(name).await?.len();
    ensure!(attempts == 3, "{attempts} attempts");
    Ok(())
}

async fn write_not_retried(fixture: &Fixture, name: &str) -> Outcome {
    let alice = &fixture.0["users"]["alice"];
    let body = json!({ "username": alice["username"], "password": alice["password"] });
    let result = fixture
        .client(name)
        .post("/api-platform/developer/session")
        .json(&body)
        .send::<Value>()
        .await;
    match result {
        Err(error) => {
            ensure!(error.status() == Some(503), "{error}");
            ensure!(error.code() == Some(codes::SERVICE_UNAVAILABLE), "{error}");
        }
        Ok(_) => return Err("the 503 was not returned".into()),
    }
    let attempts = fixture.proxy_saw(name).await?.len();
    ensure!(attempts == 1, "{attempts} attempts");
    Ok(())
}

async fn transfer_after_drop(fixture: &Fixture, name: &str) -> Outcome {
    let hub = fixture.alice(name, "economy:read economy:transfer").await?;
    let before = balance(&hub).await?;
    // the generated operation (its body type inferred from its signature): it takes an
    // Idempotency-Key, which the client generates when the caller gives none
    let body = serde_json::from_value(json!({ "to_user_id": fixture.user_id("bob"), "amount": 7 }))
        .map_err(|e| e.to_string())?;
    let answer = hub
        .api()
        .v1_economy_transfer_create(None, &body)
        .await
        .map_err(|e| failed(e.into()))?;
    ensure!(answer.data.amount.get() == 7, "amount {}", answer.data.amount);
    let after = balance(&hub).await?;
    ensure!(after == before - 7, "the coins moved {} times", (before - after) / 7);
    let posts: Vec<Value> = fixture
        .proxy_saw(name)
        .await?
        .into_iter()
        .filter(|r| r["method"] == "POST" && r["path"] == "/v1/economy/transfer")
        .collect();
    ensure!(
        posts.len() == 2,
        "sent {} times (expected again after the dropped connection)",
        posts.len()
    );
    let key = posts[0]["idempotency_key"].as_str();
    ensure!(
        key.is_some() && key == posts[1]["idempotency_key"].as_str(),
        "not the same Idempotency-Key"
    );
    Ok(())
}

async fn me_id(hub: &HubClient) -> Result<String, String> {
    let me: Value = hub.get("/v1/users/@me").send().await.map_err(failed)?;
    Ok(match &me["data"]["id"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

async fn code_flow(fixture: &Fixture, name: &str) -> Outcome {
    let (tokens, oauth) = fixture.sign_in(name, "identify offline_access").await?;
    ensure!(
        !tokens.access_token.is_empty() && tokens.refresh_token.is_some(),
        "access and refresh token"
    );
    let hub = HubClient::builder(fixture.str("base_url"))
        .oauth(tokens, oauth)
        .build()
        .map_err(failed)?;
    let id = me_id(&hub).await?;
    ensure!(id == fixture.user_id("alice").to_string(), "@me is {id}");
    Ok(())
}

async fn refresh_rotation(fixture: &Fixture, name: &str) -> Outcome {
    let (tokens, oauth) = fixture.sign_in(name, "identify offline_access").await?;
    let old = tokens.refresh_token.clone().unwrap_or_default();
    let handed: Arc<Mutex<Vec<OAuthTokens>>> = Arc::default();
    let seen = handed.clone();
    let expired = OAuthTokens {
        expires_at: Some(SystemTime::now() - Duration::from_secs(1)),
        ..tokens
    };
    let hub = HubClient::builder(fixture.str("base_url"))
        .oauth(expired, oauth.clone())
        .on_tokens(move |t| seen.lock().unwrap().push(t.clone()))
        .build()
        .map_err(failed)?;
    let id = me_id(&hub).await?;
    ensure!(id == fixture.user_id("alice").to_string(), "@me is {id}");
    let handed = handed.lock().unwrap().clone();
    ensure!(
        handed.len() == 1,
        "the new tokens were handed over {} times",
        handed.len()
    );
    ensure!(
        handed[0].refresh_token.as_ref().is_some_and(|new| *new != old),
        "no new refresh token"
    );
    refused_with(oauth.refresh(&old).await, "invalid_grant")
}

async fn revoke(fixture: &Fixture, name: &str) -> Outcome {
    let (tokens, oauth): (OAuthTokens, OAuthClient) = fixture.sign_in(name, "identify offline_access").await?;
    let refresh = tokens.refresh_token.unwrap_or_default();
    oauth.revoke(&refresh, Some("refresh_token")).await.map_err(failed)?;
    refused_with(oauth.refresh(&refresh).await, "invalid_grant")
}

async fn vectors(fixture: &Fixture) -> Outcome {
    let text = std::fs::read_to_string(fixture.str("vectors_file")).map_err(|e| e.to_string())?;
    let file: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    for v in file["vectors"].as_array().into_iter().flatten() {
        let secrets: Vec<&str> = v["secrets"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let headers: HashMap<String, String> =
            serde_json::from_value(v["headers"].clone()).map_err(|e| e.to_string())?;
        let now = UNIX_EPOCH + Duration::from_secs(v["now"].as_u64().unwrap_or_default());
        let verifier = WebhookVerifier::new(secrets).map_err(failed)?;
        let accepted = match verifier.verify_at(v["body"].as_str().unwrap_or_default().as_bytes(), &headers, now) {
            Ok(()) => true,
            Err(Error::Webhook(_)) => false,
            Err(other) => return Err(format!("{}: {other}", v["name"])),
        };
        ensure!(
            accepted == v["valid"].as_bool().unwrap_or(false),
            "{}: accepted {accepted}",
            v["name"]
        );
    }
    Ok(())
}

async fn real_delivery(fixture: &Fixture, name: &str) -> Outcome {
    let hub = fixture
        .alice(name, "economy:read economy:transfer webhooks:read webhooks:write")
        .await?;
    let (inbox, url) = fixture.new_inbox().await?;
    let created: Value = hub
        .post("/v1/webhooks")
        .json(&json!({ "url": url, "events": ["economy.transfer.created"] }))
        .send()
        .await
        .map_err(failed)?;
    let secret = created["data"]["secret"]
        .as_str()
        .ok_or("the creation answer carries no secret")?;
    transfer(fixture, &hub, 3).await?;
    let deliveries = fixture.deliveries(&inbox).await?;
    let delivery = deliveries.first().ok_or("no delivery within 20 s")?;
    let headers: HashMap<String, String> =
        serde_json::from_value(delivery["headers"].clone()).map_err(|e| e.to_string())?;
    let body = delivery["body"].as_str().unwrap_or_default();
    let verifier = WebhookVerifier::new([secret]).map_err(failed)?;
    match verifier.parse(body.as_bytes(), &headers).map_err(failed)? {
        HubEvent::EconomyTransferCreated(event) => {
            ensure!(event.data.amount.get() == 3, "amount {}", event.data.amount)
        }
        other => return Err(format!("a {} event", other.event_type())),
    }
    let tampered = body.replace("\"amount\":3", "\"amount\":300");
    ensure!(tampered != body, "the body has no amount to tamper with");
    match verifier.verify(tampered.as_bytes(), &headers) {
        Err(Error::Webhook(_)) => Ok(()),
        other => Err(format!("the tampered delivery: {other:?}")),
    }
}

async fn stream_resume(fixture: &Fixture, name: &str) -> Outcome {
    let hub = fixture.alice(name, "economy:read economy:transfer").await?;
    transfer(fixture, &hub, 1).await?; // an event to put the cursor on
    let events: Vec<Value> = hub
        .get("/v1/events")
        .query("limit", 1000)
        .paginate()
        .try_collect()
        .await
        .map_err(failed)?;
    let cursor = events
        .last()
        .and_then(|e| e["id"].as_str())
        .ok_or("the pull route lists no event")?
        .to_owned();
    for _ in 0..3 {
        transfer(fixture, &hub, 1).await?;
    }
    let types = ["economy.transfer.created"];
    let stream = hub.events(EventStreamOptions::default().types(types).after(cursor.clone()));
    let seen = tokio::time::timeout(Duration::from_secs(20), stream.take(3).try_collect::<Vec<HubEvent>>())
        .await
        .map_err(|_| "fewer than 3 events within 20 s")?
        .map_err(failed)?;
    let ids: Vec<String> = seen.iter().map(|e| e.id().to_owned()).collect();
    ensure!(ids.len() == 3, "3 events, got {ids:?}");
    ensure!(ids.windows(2).all(|w| w[0] < w[1]), "not in order or repeated: {ids:?}");
    let pulled: Vec<Value> = hub
        .get("/v1/events")
        .query("after", &cursor)
        .query("types", types.join(","))
        .paginate()
        .try_collect()
        .await
        .map_err(failed)?;
    let pulled: Vec<String> = pulled
        .iter()
        .filter_map(|e| e["id"].as_str().map(str::to_owned))
        .collect();
    ensure!(ids == pulled, "stream {ids:?}, pull route {pulled:?}");
    let opens: Vec<Value> = fixture
        .proxy_saw(name)
        .await?
        .into_iter()
        .filter(|r| r["path"] == "/v1/events/stream")
        .collect();
    ensure!(opens.len() == 2, "connected {} times", opens.len());
    ensure!(
        opens[1]["last_event_id"].as_str() == Some(ids[0].as_str()),
        "reconnected with {}",
        opens[1]["last_event_id"]
    );
    Ok(())
}

async fn transport_distinct(fixture: &Fixture, name: &str) -> Outcome {
    let closed = HubClient::builder("http://127.0.0.1:9")
        .api_key(fixture.str("api_key"))
        .build()
        .map_err(failed)?;
    let closed = closed.with_options(CallOptions {
        max_retries: 0,
        ..closed.options()
    });
    match closed.get("/api-platform/v1/servers").send::<Value>().await {
        Err(Error::Connection(_)) => {}
        other => return Err(format!("a closed port: {other:?}")),
    }
    match fixture
        .client(name)
        .get("/api-platform/v1/servers")
        .send::<Value>()
        .await
    {
        Err(Error::Decode { .. }) => Ok(()),
        other => Err(format!("an answer that is not JSON: {other:?}")),
    }
}
