//! The scenarios written as data ("calls" and "paginate"), run through the library's calls by
//! path and its paginator.

use std::collections::HashSet;

use futures_util::TryStreamExt;
use gaming_hub_client::reqwest::Method;
use gaming_hub_client::{Error, HubClient, RequestBuilder};
use serde_json::Value;

use crate::harness::{Fixture, Outcome, UNKNOWN_KEY, ensure};

/// A JSON parameter as it goes in a path or a query string (`41`, `cs2`).
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The call of `"GET /path"` with `params.path` and `params.query` filled in.
fn request(hub: &HubClient, call: &str, params: &Value) -> Result<RequestBuilder, String> {
    let (method, path) = call
        .split_once(' ')
        .ok_or_else(|| format!("a call without a method: {call}"))?;
    let method = Method::from_bytes(method.as_bytes()).map_err(|e| e.to_string())?;
    let mut request = hub.request(method, path);
    for (name, value) in params["path"].as_object().into_iter().flatten() {
        request = request.path_param(name, text(value));
    }
    for (name, value) in params["query"].as_object().into_iter().flatten() {
        request = request.query(name, text(value));
    }
    Ok(request)
}

async fn step(fixture: &Fixture, scenario: &str, step: &Value, index: usize) -> Outcome {
    let step = fixture.resolve(step);
    let call = step["call"].as_str().unwrap_or_default();
    let expect = &step["expect"];
    let status = expect["status"].as_u64().unwrap_or_default();
    let hub = match step["auth"].as_str() {
        Some("invalid_api_key") => fixture.builder(scenario).api_key(UNKNOWN_KEY).build(),
        Some("none") => HubClient::builder(fixture.str("base_url")).build(),
        _ => Ok(fixture.client(scenario)),
    }
    .map_err(|e| e.to_string())?;
    let at = format!("step {} ({call} {})", index + 1, step["params"]);
    match request(&hub, call, &step["params"])?.send::<Value>().await {
        Err(Error::Api(error)) => {
            ensure!(
                u64::from(error.status) == status,
                "{at}: expected {status}, got {}: {}",
                error.status,
                error.problem.detail
            );
            ensure!(
                Some(error.code()) == expect["code"].as_str(),
                "{at}: code {}",
                error.code()
            );
            let p = &error.problem;
            ensure!(
                !p.title.is_empty() && !p.detail.is_empty(),
                "{at}: the problem's title and detail"
            );
            ensure!(
                error.request_id().is_some_and(|id| !id.is_empty()),
                "{at}: no request id"
            );
            ensure!(p.status == error.status, "{at}: the problem's status {}", p.status);
            Ok(())
        }
        Err(other) => Err(format!("{at}: {other}")),
        Ok(body) => {
            ensure!(status < 300, "{at}: expected {status}, got a success");
            for field in expect["fields"].as_array().into_iter().flatten() {
                let field = field.as_str().unwrap_or_default();
                ensure!(body.get(field).is_some(), "{at}: no field {field}");
            }
            if let Some(min) = expect["items_min"].as_u64() {
                let items = body
                    .as_object()
                    .and_then(|o| o.values().find_map(Value::as_array))
                    .map_or(0, Vec::len);
                ensure!(items as u64 >= min, "{at}: fewer than {min} items");
            }
            Ok(())
        }
    }
}

pub async fn calls(fixture: &Fixture, scenario: &Value) -> Outcome {
    let name = scenario["name"].as_str().unwrap_or_default();
    for (index, s) in scenario["steps"].as_array().into_iter().flatten().enumerate() {
        step(fixture, name, s, index).await?;
    }
    Ok(())
}

pub async fn paginate(fixture: &Fixture, scenario: &Value) -> Outcome {
    let scenario = fixture.resolve(scenario);
    let hub = fixture.client(scenario["name"].as_str().unwrap_or_default());
    let call = scenario["call"].as_str().unwrap_or_default();
    let items: Vec<Value> = request(&hub, call, &scenario["params"])?
        .paginate::<Value>()
        .try_collect()
        .await
        .map_err(|e| e.to_string())?;
    let expect = &scenario["expect"];
    if let Some(count) = expect["count"].as_u64() {
        ensure!(
            items.len() as u64 == count,
            "item count {} (expected {count})",
            items.len()
        );
    }
    if let Some(min) = expect["count_min"].as_u64() {
        ensure!(items.len() as u64 >= min, "too few items: {} < {min}", items.len());
    }
    if let Some(key) = expect["unique"].as_str() {
        let distinct: HashSet<String> = items.iter().map(|i| i[key].to_string()).collect();
        ensure!(distinct.len() == items.len(), "{key}s repeat");
    }
    if let Some(key) = expect["increasing"].as_str() {
        let ids: Vec<String> = items.iter().map(|i| text(&i[key])).collect();
        ensure!(ids.windows(2).all(|w| w[0] < w[1]), "{key}s not strictly increasing");
    }
    Ok(())
}
