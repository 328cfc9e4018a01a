use std::fmt::Display;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, ETAG, HeaderMap, HeaderValue, IF_NONE_MATCH};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, Error};
use crate::generated::metadata::IDEMPOTENT_OPERATIONS;
use crate::transport::Transport;

/// A conditional GET's outcome: the new copy with its ETag, or `NotModified` (yours is current).
#[derive(Clone, Debug, PartialEq)]
pub enum Conditional<T> {
    Modified {
        data: T,
        etag: Option<String>,
    },
    /// `304`: nothing changed (and the call was not counted against the quota).
    NotModified {
        etag: String,
    },
}

/// One call by path, built step by step: `hub.get("/api-platform/v1/users/{id}").path_param("id", 42).send()`.
#[must_use]
pub struct RequestBuilder {
    transport: Transport,
    method: Method,
    template: String,
    path_params: Vec<(String, String)>,
    pub(crate) query: Vec<(String, String)>,
    headers: HeaderMap,
    body: Option<Vec<u8>>,
    pub(crate) error: Option<Error>,
}

impl std::fmt::Debug for RequestBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestBuilder")
            .field("method", &self.method)
            .field("path", &self.template)
            .field("query", &self.query)
            .finish_non_exhaustive()
    }
}

impl RequestBuilder {
    pub(crate) fn new(transport: Transport, method: Method, template: &str) -> Self {
        Self {
            transport,
            method,
            template: template.to_owned(),
            path_params: Vec::new(),
            query: Vec::new(),
            headers: HeaderMap::new(),
            body: None,
            error: None,
        }
    }

    /// Fills `{name}` of the path.
    pub fn path_param(mut self, name: &str, value: impl Display) -> Self {
        self.path_params.push((name.to_owned(), value.to_string()));
        self
    }

    /// Adds `name=value` to the query string.
    pub fn query(mut self, name: &str, value: impl Display) -> Self {
        self.set_query(name, value.to_string());
        self
    }

    pub(crate) fn set_query(&mut self, name: &str, value: String) {
        self.query.retain(|(k, _)| k != name);
        self.query.push((name.to_owned(), value));
    }

    /// The JSON body of a write.
    pub fn json(mut self, body: &impl Serialize) -> Self {
        match serde_json::to_vec(body) {
            Ok(bytes) => self.body = Some(bytes),
            Err(e) => self.error = Some(Error::InvalidRequest(format!("body: {e}"))),
        }
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        match crate::oauth::header_pair(name, value) {
            Ok((name, value)) => {
                self.headers.insert(name, value);
            }
            Err(e) => self.error = Some(e),
        }
        self
    }

    /// The `Idempotency-Key` of a write: your own, instead of the one generated for the call.
    pub fn idempotency_key(self, key: &str) -> Self {
        self.header("idempotency-key", key)
    }

    /// Retries after the first attempt, for this call.
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.transport.options.max_retries = retries;
        self
    }

    /// How long each attempt of this call may take; `None`: no limit.
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.transport.options.timeout = timeout;
        self
    }

    /// How this list pages, from the document (`None`: not a paged list).
    pub(crate) fn paging(&self) -> Option<crate::paging::Paging> {
        if self.method != Method::GET {
            return None;
        }
        crate::generated::metadata::paging_of(&format!("GET {}", self.template))
    }

    pub(crate) fn try_clone(&self) -> Self {
        Self {
            transport: self.transport.clone(),
            method: self.method.clone(),
            template: self.template.clone(),
            path_params: self.path_params.clone(),
            query: self.query.clone(),
            headers: self.headers.clone(),
            body: self.body.clone(),
            error: None,
        }
    }

    fn path(&self) -> Result<String, Error> {
        let mut path = String::with_capacity(self.template.len() + 16);
        let mut rest = self.template.as_str();
        while let Some(open) = rest.find('{') {
            let close = rest[open..]
                .find('}')
                .map(|c| open + c)
                .ok_or_else(|| Error::InvalidRequest(format!("path {}", self.template)))?;
            let name = &rest[open + 1..close];
            let (_, value) = self.path_params.iter().find(|(k, _)| k == name).ok_or_else(|| {
                Error::InvalidRequest(format!("path parameter {name} of {} is missing", self.template))
            })?;
            path.push_str(&rest[..open]);
            path.push_str(&progenitor_client::encode_path(value));
            rest = &rest[close + 1..];
        }
        path.push_str(rest);
        Ok(path)
    }

    /// Sends the request; any answer (an error status included) comes back.
    pub(crate) async fn response(mut self) -> Result<reqwest::Response, Error> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        let url = format!("{}{}", self.transport.base_url(), self.path()?);
        let http = &self.transport.shared.http;
        let mut builder = http
            .request(self.method.clone(), url)
            .headers(std::mem::take(&mut self.headers));
        if !self.query.is_empty() {
            builder = builder.query(&self.query);
        }
        if let Some(body) = self.body.take() {
            builder = builder
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(body);
        }
        let mut request = builder.build().map_err(|e| Error::InvalidRequest(e.to_string()))?;
        if !request.headers().contains_key(ACCEPT) {
            request
                .headers_mut()
                .insert(ACCEPT, HeaderValue::from_static("application/json"));
        }
        let operation = format!("{} {}", self.method, self.template);
        let idempotent = IDEMPOTENT_OPERATIONS.contains(&operation.as_str());
        self.transport.prepare(&mut request, idempotent);
        Ok(self.transport.attempts(request).await?)
    }

    /// Sends the request and reads the answer as `T` (`serde_json::Value` for any JSON).
    /// An error status is [`Error::Api`]; an answer that is not `T` is [`Error::Decode`].
    pub async fn send<T: DeserializeOwned>(self) -> Result<T, Error> {
        let response = self.response().await?;
        read(response).await
    }

    /// A GET that sends `If-None-Match: etag`: a `304` comes back as [`Conditional::NotModified`],
    /// not as an error.
    pub async fn send_conditional<T: DeserializeOwned>(self, etag: Option<&str>) -> Result<Conditional<T>, Error> {
        let builder = match etag {
            Some(tag) => self.header(IF_NONE_MATCH.as_str(), tag),
            None => self,
        };
        let response = builder.response().await?;
        let tag = response
            .headers()
            .get(ETAG)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        if response.status() == StatusCode::NOT_MODIFIED {
            return Ok(Conditional::NotModified {
                etag: tag.or(etag.map(str::to_owned)).unwrap_or_default(),
            });
        }
        Ok(Conditional::Modified {
            data: read(response).await?,
            etag: tag,
        })
    }
}

/// The answer as `T`, or the error it is.
pub(crate) async fn read<T: DeserializeOwned>(response: reqwest::Response) -> Result<T, Error> {
    let status = response.status();
    if !status.is_success() {
        let headers = response.headers().clone();
        let body = response.bytes().await.unwrap_or_default();
        return Err(Error::Api(Box::new(ApiError::from_body(
            status.as_u16(),
            headers,
            &body,
        ))));
    }
    let body = response.bytes().await.map_err(Error::transport)?;
    // an empty answer (204) reads as JSON null: `()` and `Option<T>` accept it
    let body: &[u8] = if body.is_empty() { b"null" } else { &body };
    serde_json::from_slice(body).map_err(|e| Error::Decode {
        status: status.as_u16(),
        message: format!("the answer is not what was expected: {e}"),
    })
}
