//! The Rust implementation of every conformance scenario (clients/conformance/scenarios.json),
//! through the library's public API only: one JSON line per scenario on stdout,
//! `{"scenario", "language": "rust", "status": "pass"|"fail", "duration_ms", "error"?}`.
//!
//! `HUB_CONFORMANCE_FIXTURE=… cargo run --example conformance [scenario …]` (the runner does it).

mod custom;
mod declarative;
mod harness;

use std::time::Instant;

use serde_json::{Value, json};

#[tokio::main]
async fn main() {
    let fixture = harness::Fixture::load();
    let text = std::fs::read_to_string(fixture.str("scenarios_file")).expect("the scenarios file");
    let file: Value = serde_json::from_str(&text).expect("scenarios.json is JSON");
    let only: Vec<String> = std::env::args().skip(1).collect();
    let mut failed = 0;
    for scenario in file["scenarios"].as_array().expect("a scenario list") {
        let name = scenario["name"].as_str().unwrap_or_default();
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let started = Instant::now();
        let outcome = match scenario["kind"].as_str() {
            Some("calls") => declarative::calls(&fixture, scenario).await,
            Some("paginate") => declarative::paginate(&fixture, scenario).await,
            _ => match custom::run(&fixture, name).await {
                Some(outcome) => outcome,
                None => continue, // not implemented: the runner reports it missing
            },
        };
        let mut line =
            json!({ "scenario": name, "language": "rust", "duration_ms": started.elapsed().as_millis() as u64 });
        match outcome {
            Ok(()) => line["status"] = json!("pass"),
            Err(error) => {
                failed += 1;
                line["status"] = json!("fail");
                line["error"] = json!(error.replace('\n', " "));
            }
        }
        println!("{line}");
    }
    std::process::exit(if failed == 0 { 0 } else { 1 });
}
