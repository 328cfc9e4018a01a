//! The Rust half of `npm run bench:clients-rust` (bench/clients-rust.ts starts the hub): N
//! authenticated GETs of /api-platform/v1/users/{id}, one after another over a kept-alive
//! connection, with plain reqwest and with the library (a call by path and the generated typed
//! method), in alternating rounds. Prints requests per second (median of the rounds), the ratio to
//! plain reqwest, and the time and heap allocations the library adds per call.

use std::alloc::{GlobalAlloc, Layout, System};
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use gaming_hub_client::HubClient;
use gaming_hub_client::reqwest;
use serde_json::Value;

/// Counts heap allocations: what each call costs beyond the plain client.
struct Counting;
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// This process's CPU time (user + system): steadier than wall time on a busy machine.
fn cpu_time() -> Duration {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

#[derive(Clone, Copy)]
struct Sample {
    rps: f64,
    cpu_us: f64,
    allocs: f64,
}

#[derive(Clone, Copy)]
enum Kind {
    Plain,
    Path,
    Typed,
}

const NAMES: [&str; 3] = ["plain reqwest", "HubClient::get", "HubClient::api (typed)"];

struct Bench {
    plain: reqwest::Client,
    hub: HubClient,
    base: String,
    key: String,
}

impl Bench {
    async fn call(&self, kind: Kind, id: u64) {
        match kind {
            Kind::Plain => {
                let response = self
                    .plain
                    .get(format!("{}/api-platform/v1/users/{id}", self.base))
                    .header("x-api-key", &self.key)
                    .send()
                    .await
                    .expect("plain GET");
                assert!(response.status().is_success(), "plain: {}", response.status());
                let body = response.bytes().await.expect("plain body");
                let _: Value = serde_json::from_slice(&body).expect("plain JSON");
            }
            Kind::Path => {
                let _: Value = self
                    .hub
                    .get("/api-platform/v1/users/{id}")
                    .path_param("id", id)
                    .send()
                    .await
                    .expect("library GET");
            }
            Kind::Typed => {
                let id = NonZeroU64::new(id).expect("an id");
                self.hub.api().users_get(id, None).await.expect("typed GET");
            }
        }
    }

    async fn measure(&self, kind: Kind, n: u64) -> Sample {
        let (started, cpu, allocs) = (Instant::now(), cpu_time(), ALLOCATIONS.load(Ordering::Relaxed));
        for i in 0..n {
            self.call(kind, i % 40 + 1).await;
        }
        let (elapsed, used) = (started.elapsed(), cpu_time() - cpu);
        Sample {
            rps: n as f64 / elapsed.as_secs_f64(),
            cpu_us: used.as_micros() as f64 / n as f64,
            allocs: (ALLOCATIONS.load(Ordering::Relaxed) - allocs) as f64 / n as f64,
        }
    }
}

fn median(samples: &[Sample], field: fn(&Sample) -> f64) -> f64 {
    let mut xs: Vec<f64> = samples.iter().map(field).collect();
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let (requests, rounds) = (arg("--requests", 2000), arg("--rounds", 3));
    let base = std::env::var("HUB_URL").expect("HUB_URL");
    let key = std::env::var("HUB_API_KEY").expect("HUB_API_KEY");
    let hub = HubClient::builder(&base).api_key(&key).build().expect("a client");
    let bench = Bench {
        plain: reqwest::Client::new(),
        hub,
        base,
        key,
    };
    let kinds = [Kind::Plain, Kind::Path, Kind::Typed];
    for kind in kinds {
        bench.measure(kind, requests / 4).await; // warm up: connections, caches
    }
    let mut runs: [Vec<Sample>; 3] = Default::default();
    for _ in 0..rounds {
        for (i, kind) in kinds.into_iter().enumerate() {
            runs[i].push(bench.measure(kind, requests).await);
        }
    }
    println!(
        "{requests} GET /api-platform/v1/users/{{id}} per round, {rounds} alternating rounds, one kept-alive connection, sequential (release build)"
    );
    let plain = (
        median(&runs[0], |s| s.rps),
        median(&runs[0], |s| s.cpu_us),
        median(&runs[0], |s| s.allocs),
    );
    for (i, name) in NAMES.iter().enumerate() {
        let (rps, cpu, allocs) = (
            median(&runs[i], |s| s.rps),
            median(&runs[i], |s| s.cpu_us),
            median(&runs[i], |s| s.allocs),
        );
        let mut line = format!(
            "{:<24} {rps:6.0} req/s  {cpu:4.0} µs CPU  {allocs:4.0} allocs per call",
            format!("{name}:")
        );
        if i > 0 {
            let added_us = 1e6 / rps - 1e6 / plain.0;
            line += &format!(
                "   ratio {:.2} (target >= 0.90), adds {added_us:.0} µs wall, {:.0} µs CPU, {:.0} allocs per call",
                rps / plain.0,
                cpu - plain.1,
                allocs - plain.2
            );
        }
        println!("{line}");
    }
}
