use std::fmt;

use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};

use crate::generated::api::types;

/// An RFC 9457 problem document, as every error answer of the hub carries.
///
/// Read loosely on purpose: a code this version does not know (a newer hub) or a proxy's own
/// answer is still an [`ApiError`], never a decoding failure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    /// A URI naming the kind of error, stable per code.
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub status: u16,
    #[serde(default)]
    pub detail: String,
    /// The request id: quote it when reporting an issue.
    #[serde(default)]
    pub instance: String,
    /// The machine-readable code: compare it with [`codes`](crate::codes).
    #[serde(default)]
    pub code: String,
    /// Any other member (`errors`, `retry_after`…).
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// The hub answered with an error status; the problem document says why.
#[derive(Clone, Debug)]
pub struct ApiError {
    pub status: u16,
    pub problem: Problem,
    pub headers: HeaderMap,
}

impl ApiError {
    /// The answer to an error status, whatever its body (a problem, or a proxy's HTML page).
    pub(crate) fn from_body(status: u16, headers: HeaderMap, body: &[u8]) -> Self {
        let problem = serde_json::from_slice::<Problem>(body).unwrap_or_else(|_| Problem {
            status,
            detail: String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned(),
            ..Problem::default()
        });
        Self {
            status,
            problem,
            headers,
        }
    }

    /// The machine-readable code (compare with [`codes`](crate::codes)); empty when the answer had none.
    pub fn code(&self) -> &str {
        &self.problem.code
    }

    /// The request id: the problem's `instance`, else the `x-request-id` header.
    pub fn request_id(&self) -> Option<&str> {
        if !self.problem.instance.is_empty() {
            return Some(&self.problem.instance);
        }
        self.headers.get("x-request-id").and_then(|v| v.to_str().ok())
    }
}

/// Every error of this library. Branch on the variant, then on [`Error::code`] for an API error:
///
/// ```
/// use gaming_hub_client::{codes, Error};
///
/// fn explain(error: &Error) -> &'static str {
///     match error.code() {
///         Some(codes::USER_NOT_FOUND) => "no such user",
///         Some(_) => "the hub refused",
///         None if error.is_transport() => "the hub is unreachable",
///         None => "something else",
///     }
/// }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The hub answered with an error status (a problem document).
    Api(Box<ApiError>),
    /// The authorization server refused (RFC 6749 `error`, e.g. `invalid_grant`), or the OAuth
    /// callback was wrong (`state_mismatch`).
    OAuth {
        status: u16,
        error: String,
        description: String,
    },
    /// No answer: refused, reset or dropped connection, DNS failure.
    Connection(reqwest::Error),
    /// No answer within the timeout (per attempt), or a stream gone silent.
    Timeout(String),
    /// The hub answered, but not with what the document promises (not JSON, a cut body).
    Decode { status: u16, message: String },
    /// A webhook delivery that is not the hub's: bad or missing signature, stale timestamp.
    Webhook(String),
    /// The request could not be built (a path parameter missing, a bad URL).
    InvalidRequest(String),
}

impl Error {
    /// The problem's code of an API error, the `error` of an OAuth error.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Api(api) if !api.problem.code.is_empty() => Some(&api.problem.code),
            Error::OAuth { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The HTTP status of an answer that was an error.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api(api) => Some(api.status),
            Error::OAuth { status, .. } | Error::Decode { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The API error, if the hub answered with a problem.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Error::Api(api) => Some(api),
            _ => None,
        }
    }

    /// No answer came (connection or timeout): worth trying again later.
    pub fn is_transport(&self) -> bool {
        matches!(self, Error::Connection(_) | Error::Timeout(_))
    }

    pub(crate) fn transport(error: reqwest::Error) -> Self {
        if error.is_timeout() {
            Error::Timeout(error.to_string())
        } else if error.is_decode() || error.is_body() {
            Error::Decode {
                status: error.status().map_or(0, |s| s.as_u16()),
                message: error.to_string(),
            }
        } else {
            Error::Connection(error)
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Api(api) => {
                let p = &api.problem;
                let what = if p.detail.is_empty() { &p.title } else { &p.detail };
                write!(f, "{} {}: {}", api.status, api.code(), what)
            }
            Error::OAuth {
                status,
                error,
                description,
            } => write!(f, "OAuth {status} {error}: {description}"),
            Error::Connection(e) => write!(f, "connection failed: {e}"),
            Error::Timeout(why) => write!(f, "no answer in time: {why}"),
            Error::Decode { status, message } => write!(f, "undecodable answer ({status}): {message}"),
            Error::Webhook(why) => write!(f, "webhook refused: {why}"),
            Error::InvalidRequest(why) => write!(f, "invalid request: {why}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Connection(e) => Some(e),
            _ => None,
        }
    }
}

/// The errors of the generated operations (`hub.api().get_user()…`), so `?` gives this crate's [`Error`].
impl From<progenitor_client::Error<types::Problem>> for Error {
    fn from(error: progenitor_client::Error<types::Problem>) -> Self {
        use progenitor_client::Error as E;
        match error {
            E::ErrorResponse(answer) => {
                let status = answer.status().as_u16();
                let headers = answer.headers().clone();
                let body = serde_json::to_vec(answer.as_ref()).unwrap_or_default();
                Error::Api(Box::new(ApiError::from_body(status, headers, &body)))
            }
            E::CommunicationError(e) | E::InvalidUpgrade(e) | E::ResponseBodyError(e) => Error::transport(e),
            E::InvalidResponsePayload(_, e) => Error::Decode {
                status: 0,
                message: e.to_string(),
            },
            E::UnexpectedResponse(response) => {
                let status = response.status().as_u16();
                let problem = Problem {
                    status,
                    ..Problem::default()
                };
                Error::Api(Box::new(ApiError {
                    status,
                    problem,
                    headers: response.headers().clone(),
                }))
            }
            E::InvalidRequest(why) | E::Custom(why) => Error::InvalidRequest(why),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
