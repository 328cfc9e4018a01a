//! The client against a scripted local HTTP server: credentials by surface, retries (which calls,
//! how often, with which Idempotency-Key), errors, paging. The conformance scenarios run the same
//! against a real hub; these pin the rules without one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::TryStreamExt;
use gaming_hub_client::{Error, HubClient, RetryTiming, WebhookVerifier, codes};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

#[derive(Clone, Debug)]
struct Seen {
    method: String,
    path: String,
    headers: HashMap<String, String>,
}

/// Answers in order, then 200 `{}`; records every request.
struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

async fn server(answers: Vec<(u16, &'static str, String)>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let answers = Arc::new(Mutex::new(answers.into_iter()));
    let log = seen.clone();
    tokio::spawn(async move {
        loop {
            let (socket, _) = listener.accept().await.unwrap();
            let (log, answers) = (log.clone(), answers.clone());
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut read = BufReader::new(read);
                loop {
                    let mut line = String::new();
                    if read.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let mut parts = line.split_whitespace();
                    let (method, path) = (
                        parts.next().unwrap_or("").to_owned(),
                        parts.next().unwrap_or("").to_owned(),
                    );
                    let mut headers = HashMap::new();
                    loop {
                        let mut header = String::new();
                        read.read_line(&mut header).await.unwrap();
                        let Some((k, v)) = header.trim_end().split_once(": ") else {
                            break;
                        };
                        headers.insert(k.to_lowercase(), v.to_owned());
                    }
                    let length = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
                    let mut body = vec![0; length];
                    read.read_exact(&mut body).await.unwrap();
                    log.lock().unwrap().push(Seen { method, path, headers });
                    let next = answers.lock().unwrap().next();
                    let (status, extra, body) = next.unwrap_or((200, "", "{}".into()));
                    let head = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra}\r\n",
                        body.len()
                    );
                    write.write_all(head.as_bytes()).await.unwrap();
                    write.write_all(body.as_bytes()).await.unwrap();
                }
            });
        }
    });
    Server { url, seen }
}

fn problem(status: u16, code: &str) -> String {
    json!({ "type": "about:blank", "title": "t", "status": status, "detail": "d", "instance": "req-1", "code": code })
        .to_string()
}

fn hub(url: &str) -> HubClient {
    HubClient::builder(url)
        .api_key("ghk_test")
        .retry_timing(RetryTiming {
            initial_delay: Duration::from_millis(5),
            ..RetryTiming::default()
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_api_key_goes_by_surface_with_the_user_agent() {
    let s = server(vec![]).await;
    let hub = hub(&s.url);
    hub.get("/api-platform/v1/achievements").send::<Value>().await.unwrap();
    hub.get("/v1/clans").send::<Value>().await.unwrap();
    let seen = s.seen.lock().unwrap().clone();
    assert_eq!(seen[0].headers.get("x-api-key").map(String::as_str), Some("ghk_test"));
    assert_eq!(seen[0].headers.get("authorization"), None);
    assert_eq!(
        seen[1].headers.get("authorization").map(String::as_str),
        Some("Bearer ghk_test")
    );
    assert_eq!(seen[1].headers.get("x-api-key"), None);
    assert_eq!(
        seen[0].headers.get("user-agent").map(String::as_str),
        Some(gaming_hub_client::USER_AGENT)
    );
}

#[tokio::test]
async fn a_get_is_retried_after_503_and_502() {
    let s = server(vec![
        (503, "retry-after: 0\r\n", problem(503, "service_unavailable")),
        (502, "", problem(502, "x")),
    ])
    .await;
    let answer: Value = hub(&s.url).get("/api-platform/v1/achievements").send().await.unwrap();
    assert_eq!(answer, json!({}));
    assert_eq!(s.seen.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn a_write_without_idempotency_key_is_not_retried() {
    let s = server(vec![(503, "retry-after: 0\r\n", problem(503, "service_unavailable"))]).await;
    let error = hub(&s.url)
        .post("/api-platform/developer/session")
        .json(&json!({}))
        .send::<Value>()
        .await
        .unwrap_err();
    assert_eq!(error.code(), Some(codes::SERVICE_UNAVAILABLE));
    let seen = s.seen.lock().unwrap().clone();
    assert_eq!((seen.len(), seen[0].method.as_str()), (1, "POST"));
}

#[tokio::test]
async fn an_idempotent_write_carries_one_generated_key_on_every_attempt() {
    let s = server(vec![(503, "retry-after: 0\r\n", problem(503, "service_unavailable"))]).await;
    let body = json!({ "to_user_id": 2, "amount": 1 });
    hub(&s.url)
        .post("/v1/economy/transfer")
        .json(&body)
        .send::<Value>()
        .await
        .unwrap();
    let seen = s.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    let key = seen[0].headers.get("idempotency-key").expect("a generated key");
    assert_eq!(seen[1].headers.get("idempotency-key"), Some(key));
}

#[tokio::test]
async fn a_generated_operation_goes_through_the_same_transport() {
    let s = server(vec![(429, "retry-after: 0\r\n", problem(429, "rate_limited"))]).await;
    let hub = hub(&s.url);
    let error: Error = hub
        .api()
        .users_get(std::num::NonZeroU64::new(7).unwrap(), None)
        .await
        .unwrap_err()
        .into();
    // the retry answered `{}`, which is no user: a decode error, after two attempts
    assert!(matches!(error, Error::Decode { .. }), "{error:?}");
    let seen = s.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].path, "/api-platform/v1/users/7");
    assert_eq!(seen[1].headers.get("x-api-key").map(String::as_str), Some("ghk_test"));
}

#[tokio::test]
async fn an_error_answer_is_the_api_error_and_a_garbled_one_a_decode_error() {
    let s = server(vec![
        (404, "", problem(404, "user_not_found")),
        (200, "", "<html>".into()),
    ])
    .await;
    let hub = hub(&s.url);
    let Error::Api(api) = hub
        .get("/api-platform/v1/users/{id}")
        .path_param("id", 9)
        .send::<Value>()
        .await
        .unwrap_err()
    else {
        panic!("not an API error")
    };
    assert_eq!(
        (api.status, api.code(), api.request_id()),
        (404, codes::USER_NOT_FOUND, Some("req-1"))
    );
    let garbled = hub
        .get("/api-platform/v1/users/{id}")
        .path_param("id", 9)
        .send::<Value>()
        .await
        .unwrap_err();
    assert!(matches!(garbled, Error::Decode { status: 200, .. }), "{garbled:?}");
    assert_eq!(s.seen.lock().unwrap()[0].path, "/api-platform/v1/users/9");
}

#[tokio::test]
async fn offset_paging_reads_until_a_short_page() {
    let page =
        |ids: &[i64]| json!({ "threads": ids.iter().map(|id| json!({ "id": id })).collect::<Vec<_>>() }).to_string();
    let s = server(vec![
        (200, "", page(&[1, 2])),
        (200, "", page(&[3, 4])),
        (200, "", page(&[5])),
    ])
    .await;
    let items: Vec<Value> = hub(&s.url)
        .get("/api-platform/v1/forum/threads")
        .query("limit", 2)
        .paginate()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(items.len(), 5);
    let paths: Vec<String> = s.seen.lock().unwrap().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths[2], "/api-platform/v1/forum/threads?limit=2&offset=4");
}

#[test]
fn every_webhook_vector_gets_its_verdict() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/webhook-vectors.json"
    ))
    .unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    let vectors = file["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 5);
    for v in vectors {
        let secrets: Vec<&str> = v["secrets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        let headers: HashMap<String, String> = serde_json::from_value(v["headers"].clone()).unwrap();
        let now = std::time::UNIX_EPOCH + Duration::from_secs(v["now"].as_u64().unwrap());
        let verdict =
            WebhookVerifier::new(secrets)
                .unwrap()
                .verify_at(v["body"].as_str().unwrap().as_bytes(), &headers, now);
        assert_eq!(verdict.is_ok(), v["valid"].as_bool().unwrap(), "{}", v["name"]);
    }
}
