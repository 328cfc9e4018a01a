//! The live event stream as a `Stream` that reconnects with `Last-Event-ID`.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;
use reqwest::header::{ACCEPT, HeaderValue};
use reqwest::{Method, Response};

use crate::error::{ApiError, Error};
use crate::generated::events::HubEvent;
use crate::sse::Parser;
use crate::transport::{CallOptions, Failure, Transport};

const PATH: &str = "/v1/events/stream";

/// What to follow and how patiently.
#[derive(Clone, Debug)]
pub struct EventStreamOptions {
    /// Only events of these types (empty: every type the credential may see).
    pub types: Vec<String>,
    /// Start after this event id (a cursor you stored); without it the stream starts from now.
    pub after: Option<String>,
    /// How long to wait for the answer's headers on each connection (default 30 s).
    pub connect_timeout: Duration,
    /// A connection silent this long is dropped and reopened (default 45 s: the hub comments every 15 s).
    pub idle_timeout: Duration,
    /// Reconnections in a row that may fail before the stream ends with the error (default 10).
    pub max_reconnects: u32,
}

impl Default for EventStreamOptions {
    fn default() -> Self {
        Self {
            types: Vec::new(),
            after: None,
            connect_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(45),
            max_reconnects: 10,
        }
    }
}

impl EventStreamOptions {
    pub fn types<S: Into<String>>(mut self, types: impl IntoIterator<Item = S>) -> Self {
        self.types = types.into_iter().map(Into::into).collect();
        self
    }

    pub fn after(mut self, cursor: impl Into<String>) -> Self {
        self.after = Some(cursor.into());
        self
    }
}

struct State {
    transport: Transport,
    options: EventStreamOptions,
    last: Arc<Mutex<Option<String>>>,
    response: Option<Response>,
    parser: Parser,
    failures: u32,
    delay: Duration,
    wait: Option<Duration>,
    done: bool,
}

/// The statuses after which reconnecting may work; any other error answer ends the stream.
fn transient(error: &Error) -> bool {
    error.is_transport() || matches!(error.status(), Some(429 | 502 | 503 | 504))
}

impl State {
    fn last_id(&self) -> Option<String> {
        self.last.lock().ok().and_then(|l| l.clone())
    }

    async fn open(&self) -> Result<Response, Error> {
        let mut url = url::Url::parse(&format!("{}{PATH}", self.transport.base_url()))
            .map_err(|e| Error::InvalidRequest(e.to_string()))?;
        if !self.options.types.is_empty() {
            url.query_pairs_mut()
                .append_pair("types", &self.options.types.join(","));
        }
        let mut request = reqwest::Request::new(Method::GET, url);
        request
            .headers_mut()
            .insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(last) = self.last_id() {
            let value = HeaderValue::from_str(&last).map_err(|e| Error::InvalidRequest(e.to_string()))?;
            request.headers_mut().insert("last-event-id", value);
        }
        // no timeout of the transport's: the answer stays open; the watchdogs here time it instead
        let transport = Transport {
            shared: self.transport.shared.clone(),
            options: CallOptions {
                max_retries: 0,
                timeout: None,
            },
        };
        transport.prepare(&mut request, false);
        let response = tokio::time::timeout(self.options.connect_timeout, transport.attempts(request))
            .await
            .map_err(|_| {
                Error::Timeout(format!(
                    "the stream did not open within {:?}",
                    self.options.connect_timeout
                ))
            })
            .and_then(|r| r.map_err(|f: Failure| Error::from(f)))?;
        if response.status().is_success() {
            return Ok(response);
        }
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.bytes().await.unwrap_or_default();
        Err(Error::Api(Box::new(ApiError::from_body(status, headers, &body))))
    }

    /// After a failed or cut connection: wait longer each time in a row, give up after `max_reconnects`.
    fn failed(&mut self, error: Error) -> Option<Error> {
        self.response = None;
        self.failures += 1;
        if self.failures > self.options.max_reconnects {
            self.done = true;
            return Some(error);
        }
        self.wait = Some(
            self.delay
                .saturating_mul(1 << self.failures.min(5))
                .min(Duration::from_secs(30)),
        );
        None
    }

    async fn next_event(&mut self) -> Option<Result<HubEvent, Error>> {
        loop {
            if self.done {
                return None;
            }
            if self.response.is_none() {
                if let Some(wait) = self.wait.take() {
                    tokio::time::sleep(wait).await;
                }
                match self.open().await {
                    Ok(response) => {
                        self.response = Some(response);
                        self.parser = Parser::default();
                    }
                    Err(error) if transient(&error) => {
                        if let Some(error) = self.failed(error) {
                            return Some(Err(error));
                        }
                    }
                    Err(error) => {
                        self.done = true;
                        return Some(Err(error));
                    }
                }
                continue;
            }
            while let Some(frame) = self.parser.next_frame() {
                if let Some(retry) = frame.retry {
                    self.delay = Duration::from_millis(retry);
                }
                let Some(id) = frame.id else { continue };
                if frame.data.is_empty() {
                    continue;
                }
                // ids are sortable: anything not after the last one yielded is a repeat
                if self.last_id().is_some_and(|last| id.as_str() <= last.as_str()) {
                    continue;
                }
                let event = serde_json::from_str(&frame.data)
                    .and_then(HubEvent::from_value)
                    .map_err(|e| Error::Decode {
                        status: 200,
                        message: format!("event {id}: {e}"),
                    });
                if event.is_ok()
                    && let Ok(mut last) = self.last.lock()
                {
                    *last = Some(id);
                }
                self.failures = 0;
                return Some(event);
            }
            let response = self.response.as_mut().expect("a connection is open");
            match tokio::time::timeout(self.options.idle_timeout, response.chunk()).await {
                Ok(Ok(Some(chunk))) => self.parser.push(&chunk),
                // the hub ended the stream (shutdown, slow reader): reconnect from the last id
                Ok(Ok(None)) => {
                    self.response = None;
                    self.wait = Some(self.delay);
                }
                Ok(Err(error)) => {
                    if let Some(error) = self.failed(Error::transport(error)) {
                        return Some(Err(error));
                    }
                }
                Err(_) => {
                    if let Some(error) = self.failed(Error::Timeout("the stream went silent".into())) {
                        return Some(Err(error));
                    }
                }
            }
        }
    }
}

/// The live event stream: a `Stream` of [`HubEvent`]s that reconnects after a disconnect with
/// `Last-Event-ID` (the id of the last event it yielded), so the hub resends what was missed, and
/// never yields an id it has yielded. Store [`EventStream::last_event_id`] to resume later.
pub struct EventStream {
    last: Arc<Mutex<Option<String>>>,
    inner: Pin<Box<dyn Stream<Item = Result<HubEvent, Error>> + Send>>,
}

impl std::fmt::Debug for EventStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventStream")
            .field("last_event_id", &self.last_event_id())
            .finish_non_exhaustive()
    }
}

impl EventStream {
    pub(crate) fn new(transport: Transport, options: EventStreamOptions) -> Self {
        let last = Arc::new(Mutex::new(options.after.clone()));
        let state = State {
            transport,
            options,
            last: last.clone(),
            response: None,
            parser: Parser::default(),
            failures: 0,
            delay: Duration::from_secs(1),
            wait: None,
            done: false,
        };
        let inner = futures_util::stream::unfold(state, |mut state| async move {
            let item = state.next_event().await?;
            Some((item, state))
        });
        Self {
            last,
            inner: Box::pin(inner),
        }
    }

    /// The id of the last event yielded: store it to resume later with [`EventStreamOptions::after`].
    pub fn last_event_id(&self) -> Option<String> {
        self.last.lock().ok().and_then(|l| l.clone())
    }
}

impl Stream for EventStream {
    type Item = Result<HubEvent, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}
