"""The state both clients keep and every decision they take on it, without I/O: a call's attempts
(credentials, token refresh, retries), the answers they record and the event stream's cursor. The
sync and async clients only send, sleep and read; so they cannot drift apart."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import httpx

from ._core import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    DEFAULT_TIMING,
    EARLY_REFRESH_SECONDS,
    Prepared,
    RetryTiming,
    SseParser,
    backoff,
    credential_headers,
    decode,
    prepare,
    query_of,
    retry_delay,
)
from ._generated.events import HubEvent
from ._rate_limit import RateLimit, rate_limit_of
from .errors import HubAPIError, HubConnectionError, HubDecodeError, HubTimeoutError, api_error_of
from .oauth import OAuthTokens
from .webhooks import WebhookVerificationError, parse_event

T = TypeVar("T")
C = TypeVar("C")
HttpT = TypeVar("HttpT", httpx.Client, httpx.AsyncClient)
OAuthT = TypeVar("OAuthT")
OnTokensT = TypeVar("OnTokensT")
LockT = TypeVar("LockT", threading.Lock, asyncio.Lock)
G = TypeVar("G")
STREAM_PATH = "/v1/events/stream"
# after these statuses reconnecting may work; any other error answer ends the stream
TRANSIENT = frozenset({429, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class Conditional(Generic[T]):
    """A conditional GET's outcome: `not_modified` (the copy you hold is current) or the new copy."""

    not_modified: bool
    data: T | None
    etag: str | None


def answer_of(response: httpx.Response) -> Any:
    """A call's decoded JSON, or its error answer raised as HubAPIError."""
    if response.is_success or response.status_code == 304:
        return decode(response)
    raise api_error_of(response)


def if_none_match(headers: Mapping[str, str], etag: str | None) -> dict[str, str]:
    return {**headers, **({"if-none-match": etag} if etag else {})}


class Session:
    """One client's state: its credentials, the OAuth tokens in use, the defaults of its calls and
    what the last answers said (quota, response)."""

    def __init__(
        self,
        api_key: str | None,
        tokens: OAuthTokens | None,
        headers: Mapping[str, str] | None,
        max_retries: int,
        timeout: float | None,
        timing: RetryTiming,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.api_key = api_key
        self.tokens = tokens
        self.headers = dict(headers or {})
        self.max_retries = max_retries
        self.timeout = timeout
        self.timing = timing
        self.clock = clock
        self.rng = random.Random()
        self.rate_limit: RateLimit | None = None
        self.last_response: httpx.Response | None = None

    def prepare(
        self,
        method: str,
        path: str,
        *,
        path_params: Mapping[str, object] | None = None,
        json_body: object = None,
        headers: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Prepared:
        return prepare(
            method,
            path,
            path_params=path_params,
            json_body=json_body,
            default_headers=self.headers,
            headers=headers,
            idempotency_key=idempotency_key,
        )

    def expiring(self, path: str) -> OAuthTokens | None:
        """The tokens to refresh before a call on `path`: those about to expire (and refreshable)."""
        tokens = self.tokens
        if tokens is None or not path.startswith("/v1/") or not tokens.refresh_token or tokens.expires_at is None:
            return None
        return tokens if tokens.expires_at - self.clock() < EARLY_REFRESH_SECONDS else None

    def credentials(self, path: str) -> dict[str, str]:
        bearer = self.api_key
        if self.tokens is not None and path.startswith("/v1/"):
            bearer = self.tokens.access_token
        return credential_headers(path, self.api_key, bearer)

    def refresh_token_for(self, seen: OAuthTokens) -> str | None:
        """The refresh token to spend when `seen` is still in use; None when another refresh came
        first (a rotated token is spent once) or there is nothing to refresh with."""
        current = self.tokens
        return current.refresh_token if current is not None and current is seen and current.refresh_token else None

    def holds_newer(self, seen: OAuthTokens) -> bool:
        """Whether tokens newer than `seen` are in use (a refresh came first)."""
        return self.tokens is not None and self.tokens is not seen

    def adopt(self, fresh: OAuthTokens) -> OAuthTokens:
        """Puts a refresh's tokens in use; an answer without a refresh token keeps the one we had."""
        kept = self.tokens.refresh_token if self.tokens is not None else None
        self.tokens = replace(fresh, refresh_token=fresh.refresh_token or kept)
        return self.tokens

    def observe(self, response: httpx.Response) -> None:
        self.last_response = response
        self.rate_limit = rate_limit_of(response.headers) or self.rate_limit

    def conditional(self, data: Any, etag: str | None) -> Conditional[Any]:
        """The outcome of a conditional GET that answered `data` (None for a 304)."""
        response = self.last_response
        tag = response.headers.get("etag") if response is not None else None
        if response is not None and response.status_code == 304:
            return Conditional(True, None, tag or etag)
        return Conditional(False, data, tag)


class ClientBase(Generic[HttpT, OAuthT, OnTokensT, LockT]):
    """What both clients share apart from I/O: their settings and session, and what they show of it."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        oauth: OAuthT | None = None,
        tokens: OAuthTokens | None = None,
        on_tokens: OnTokensT | None = None,
        headers: Mapping[str, str] | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | None = DEFAULT_TIMEOUT,
        retry_timing: RetryTiming = DEFAULT_TIMING,
        http_client: HttpT | None = None,
    ) -> None:
        """`api_key`: `x-api-key` on the published API, a bearer token on /v1. `tokens` (with the
        app's `oauth` client to refresh them): act for a user on /v1; every new token set is handed
        to `on_tokens`: store its refresh token, the old one is spent (rotation)."""
        self.base_url = base_url.rstrip("/")
        self._session = Session(api_key, tokens, headers, max_retries, timeout, retry_timing)
        self._oauth = oauth
        self._on_tokens = on_tokens
        self._http: HttpT = http_client or self._new_http(timeout)
        self._owns_http = http_client is None
        # one token refresh at a time (a rotated refresh token is spent once)
        self._refresh_lock: LockT = self._new_lock()

    def _new_http(self, timeout: float | None) -> HttpT:
        raise NotImplementedError

    def _new_lock(self) -> LockT:
        raise NotImplementedError

    @property
    def rate_limit(self) -> RateLimit | None:
        """The quota state of the last response that carried one (published API keys)."""
        return self._session.rate_limit

    @property
    def last_response(self) -> httpx.Response | None:
        """The last HTTP response (its headers: request id, ETag...)."""
        return self._session.last_response

    @property
    def tokens(self) -> OAuthTokens | None:
        """The OAuth tokens in use, after any refresh."""
        return self._session.tokens


class Call:
    """One call's attempts: the request each sends and what to do with each outcome. The client
    loops: `begin` (refresh what it names), `build`, send, then `refused`/`after` or `after_failure`."""

    def __init__(
        self,
        session: Session,
        base_url: str,
        prepared: Prepared,
        params: Mapping[str, object] | None,
        max_retries: int | None,
        timeout: float | httpx.Timeout | None,
    ) -> None:
        self._session = session
        self._prepared = prepared
        self._url = f"{base_url}{prepared.path}"
        self._query = query_of(params)
        self._retries = session.max_retries if max_retries is None else max_retries
        self._timeout = session.timeout if timeout is None else timeout
        self._attempt = 0
        self._refreshed = False
        self._tokens_before: OAuthTokens | None = None

    def begin(self) -> OAuthTokens | None:
        """Starts an attempt; answers the tokens to refresh before building it (about to expire)."""
        self._tokens_before = self._session.tokens
        return self._session.expiring(self._prepared.path)

    def build(self, http: httpx.Client | httpx.AsyncClient) -> httpx.Request:
        prepared = self._prepared
        headers = {**prepared.headers, **self._session.credentials(prepared.path)}
        return http.build_request(
            prepared.method,
            self._url,
            params=self._query,
            content=prepared.content,
            headers=headers,
            timeout=self._timeout,
        )

    def refused(self, response: httpx.Response) -> OAuthTokens | None:
        """Records the answer; when it refused the call's token (a 401 on /v1, once a call), the
        tokens to refresh before sending it again: nothing ran, so that is safe for any method."""
        self._session.observe(response)
        if (
            response.status_code != 401
            or self._refreshed
            or not self._prepared.path.startswith("/v1/")
            or self._tokens_before is None
        ):
            return None
        self._refreshed = True
        return self._tokens_before

    def after(self, response: httpx.Response) -> float | None:
        """Seconds to wait before the next attempt, or None: `response` is the call's answer."""
        session = self._session
        delay = retry_delay(
            response,
            self._prepared.retryable,
            self._attempt,
            self._retries,
            session.timing,
            session.clock(),
            session.rng,
        )
        if delay is not None:
            self._attempt += 1
        return delay

    def after_failure(self, error: httpx.TransportError) -> float:
        """Seconds to wait before trying again after a connection failure; raises it when the call may
        not be repeated or has no attempt left."""
        method, url = self._prepared.method, self._url
        if not self._prepared.retryable or self._attempt >= self._retries:
            if isinstance(error, httpx.TimeoutException):
                raise HubTimeoutError(f"no answer within {self._timeout} s: {method} {url}") from error
            raise HubConnectionError(f"connection failed: {method} {url}: {error}") from error
        delay = backoff(self._session.timing, self._attempt, self._session.rng)
        self._attempt += 1
        return delay


class StreamCursor:
    """The live event stream's progress and reconnection policy: the request that resumes it after
    the last event yielded, the events of its lines (repeats dropped: ids are sortable) and the pause
    before reconnecting."""

    def __init__(self, types: list[str] | None, after: str | None, timeout: httpx.Timeout, max_reconnects: int) -> None:
        self.last = after
        self.timeout = timeout
        self._types = types
        self._max_reconnects = max_reconnects
        self._failures = 0
        self._delay = 1.0
        self._parser = SseParser()

    def request(self, session: Session) -> tuple[Prepared, dict[str, object] | None]:
        """The request (and its query) that opens the stream after the last event yielded."""
        headers = {"accept": "text/event-stream"}
        if self.last is not None:
            headers["last-event-id"] = self.last
        params: dict[str, object] | None = {"types": ",".join(self._types)} if self._types else None
        return session.prepare("GET", STREAM_PATH, headers=headers), params

    def refusal(self, response: httpx.Response) -> HubAPIError | HubConnectionError:
        """The error of an answer that did not open the stream (read): a connection error when
        reconnecting may work."""
        error = api_error_of(response)
        if response.status_code not in TRANSIENT:
            return error
        failure = HubConnectionError(str(error))
        failure.__cause__ = error
        return failure

    def connected(self) -> None:
        self._failures = 0
        self._parser = SseParser()

    def feed(self, line: str) -> HubEvent | None:
        """The event a line completes, if it is new; remembered as the last one yielded."""
        frame = self._parser.feed(line)
        if frame is None:
            return None
        if frame.retry is not None:
            self._delay = frame.retry / 1000
        if frame.id is None or frame.data == "" or (self.last is not None and frame.id <= self.last):
            return None
        try:
            event = parse_event(frame.data)
        except WebhookVerificationError as error:
            raise HubDecodeError(f"event {frame.id}: {error}", 200) from error
        self.last = frame.id
        return event

    def disconnected(self) -> bool:
        """Counts a failed connection; True when that was one too many (give up: raise it)."""
        self._failures += 1
        return self._failures > self._max_reconnects

    def pause(self) -> float:
        """Seconds before reconnecting: the hub's `retry`, doubled on each failure in a row."""
        return self._delay if self._failures == 0 else min(30.0, self._delay * 2**self._failures)


class StreamViews(Generic[C, G]):
    """What both event streams share apart from reading: their client, cursor and iterator."""

    def __init__(
        self,
        client: C,
        types: list[str] | None,
        after: str | None,
        connect_timeout: float,
        idle_timeout: float,
        max_reconnects: int,
    ) -> None:
        self._client = client
        self._cursor = StreamCursor(types, after, httpx.Timeout(connect_timeout, read=idle_timeout), max_reconnects)
        self._iterator = self._events()

    @property
    def last_event_id(self) -> str | None:
        """The id of the last event yielded: store it to resume later with `after`."""
        return self._cursor.last

    def _events(self) -> G:
        raise NotImplementedError
