"""The asyncio client: `HubClient` (client.py) for asyncio, taking its decisions from _core.py."""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import replace
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel

from ._core import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    DEFAULT_TIMING,
    EARLY_REFRESH_SECONDS,
    Pager,
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
from .client import Conditional
from .errors import HubConnectionError, HubDecodeError, HubTimeoutError, api_error_of
from .oauth import AsyncHubOAuth, AsyncOnTokens, OAuthTokens
from .webhooks import WebhookVerificationError, parse_event

M = TypeVar("M", bound=BaseModel)
STREAM_PATH = "/v1/events/stream"
# after these statuses reconnecting may work; any other error answer ends the stream
TRANSIENT = frozenset({429, 502, 503, 504})


class AsyncHubClient:
    """The Gaming Hub client: every operation by its path as the document writes it, credentials,
    retries, paging, conditional requests and the live event stream. Each instance holds its own
    state (no globals) and may be shared between threads; make one per credential and reuse it
    (connections are kept alive). Close it, or use it as a context manager.

    >>> async with AsyncHubClient("https://hub.example.com", api_key="ghk_...") as hub:
    ...     ladder = await hub.get("/api-platform/v1/killboard/elo", params={"limit": 10})
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        oauth: AsyncHubOAuth | None = None,
        tokens: OAuthTokens | None = None,
        on_tokens: AsyncOnTokens | None = None,
        headers: Mapping[str, str] | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | None = DEFAULT_TIMEOUT,
        retry_timing: RetryTiming = DEFAULT_TIMING,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        """`api_key`: `x-api-key` on the published API, a bearer token on /v1. `tokens` (with the
        app's `oauth` client to refresh them): act for a user on /v1; every new token set is handed
        to `on_tokens`: store its refresh token, the old one is spent (rotation)."""
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._oauth = oauth
        self._tokens = tokens
        self._on_tokens = on_tokens
        self._headers = dict(headers or {})
        self._max_retries = max_retries
        self._timeout = timeout
        self._timing = retry_timing
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._owns_http = http_client is None
        self._rng = random.Random()
        self._refresh_lock = asyncio.Lock()
        self._rate_limit: RateLimit | None = None
        self._last_response: httpx.Response | None = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    @property
    def rate_limit(self) -> RateLimit | None:
        """The quota state of the last response that carried one (published API keys)."""
        return self._rate_limit

    @property
    def last_response(self) -> httpx.Response | None:
        """The last HTTP response (its headers: request id, ETag...)."""
        return self._last_response

    @property
    def tokens(self) -> OAuthTokens | None:
        """The OAuth tokens in use, after any refresh."""
        return self._tokens

    async def request(
        self,
        method: str,
        path: str,
        *,
        path_params: Mapping[str, object] | None = None,
        params: Mapping[str, object] | None = None,
        json: object = None,
        headers: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        max_retries: int | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Calls an operation (`path` as the document writes it, `{name}` filled from `path_params`)
        and answers its decoded JSON; raises HubAPIError for an error answer."""
        prepared = prepare(
            method,
            path,
            path_params=path_params,
            json_body=json,
            default_headers=self._headers,
            headers=headers,
            idempotency_key=idempotency_key,
        )
        response = await self._send(prepared, params, max_retries=max_retries, timeout=timeout)
        if response.is_success or response.status_code == 304:
            return decode(response)
        raise api_error_of(response)

    async def get(self, path: str, **kwargs: Any) -> Any:
        return await self.request("GET", path, **kwargs)

    async def post(self, path: str, **kwargs: Any) -> Any:
        return await self.request("POST", path, **kwargs)

    async def put(self, path: str, **kwargs: Any) -> Any:
        return await self.request("PUT", path, **kwargs)

    async def patch(self, path: str, **kwargs: Any) -> Any:
        return await self.request("PATCH", path, **kwargs)

    async def delete(self, path: str, **kwargs: Any) -> Any:
        return await self.request("DELETE", path, **kwargs)

    async def get_as(self, model: type[M], path: str, **kwargs: Any) -> M:
        """A GET whose answer is validated into a generated model (`gaming_hub.models`)."""
        return model.model_validate(await self.request("GET", path, **kwargs))

    async def get_if_changed(self, path: str, etag: str | None, **kwargs: Any) -> Conditional[Any]:
        """A GET with `If-None-Match: etag`: a 304 (not counted against the quota) is `not_modified`."""
        headers = {**kwargs.pop("headers", {}), **({"if-none-match": etag} if etag else {})}
        data = await self.request("GET", path, headers=headers, **kwargs)
        response = self._last_response
        tag = response.headers.get("etag") if response is not None else None
        if response is not None and response.status_code == 304:
            return Conditional(True, None, tag or etag)
        return Conditional(False, data, tag)

    async def paginate(
        self, path: str, *, params: Mapping[str, object] | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Every item of a list, page after page, whatever its paging (limit/offset, page/per_page
        with `{data, meta}`, or the event cursor). Stop early with `break`."""
        pager = Pager(path, params)
        query: dict[str, object] | None = pager.first()
        while query is not None:
            items, query = pager.advance(await self.request("GET", path, params=query, **kwargs))
            for item in items:
                yield item

    def events(
        self,
        *,
        types: list[str] | None = None,
        after: str | None = None,
        connect_timeout: float = 30.0,
        idle_timeout: float = 45.0,
        max_reconnects: int = 10,
    ) -> AsyncEventStream:
        """The live event stream, resumed across disconnects (see EventStream)."""
        return AsyncEventStream(self, types, after, connect_timeout, idle_timeout, max_reconnects)

    async def _credentials(self, path: str) -> dict[str, str]:
        bearer = self._api_key
        if self._tokens is not None and path.startswith("/v1/"):
            expires_at = self._tokens.expires_at
            if (
                self._tokens.refresh_token
                and expires_at is not None
                and expires_at - time.time() < EARLY_REFRESH_SECONDS
            ):
                await self._refresh(self._tokens)
            bearer = self._tokens.access_token
        return credential_headers(path, self._api_key, bearer)

    async def _refresh(self, seen: OAuthTokens) -> bool:
        """One refresh at a time: a thread that waited finds the tokens already new (a rotated token is spent once)."""
        async with self._refresh_lock:
            current = self._tokens
            if current is None or current is not seen:
                return current is not None
            if self._oauth is None or not current.refresh_token:
                return False
            fresh = await self._oauth.refresh(current.refresh_token)
            self._tokens = replace(fresh, refresh_token=fresh.refresh_token or current.refresh_token)
            if self._on_tokens is not None:
                handed = self._on_tokens(self._tokens)
                if inspect.isawaitable(handed):
                    await handed
            return True

    async def _send(
        self,
        prepared: Prepared,
        params: Mapping[str, object] | None,
        *,
        max_retries: int | None = None,
        timeout: float | httpx.Timeout | None = None,
        stream: bool = False,
    ) -> httpx.Response:
        retries = self._max_retries if max_retries is None else max_retries
        limit = self._timeout if timeout is None else timeout
        url = f"{self.base_url}{prepared.path}"
        query = query_of(params)
        refreshed = False
        attempt = 0
        while True:
            tokens_before = self._tokens
            headers = {**prepared.headers, **(await self._credentials(prepared.path))}
            request = self._http.build_request(
                prepared.method, url, params=query, content=prepared.content, headers=headers, timeout=limit
            )
            try:
                response = await self._http.send(request, stream=stream)
            except httpx.TimeoutException as error:
                failure: HubConnectionError = HubTimeoutError(f"no answer within {limit} s: {prepared.method} {url}")
                cause: Exception = error
            except httpx.TransportError as error:
                failure, cause = HubConnectionError(f"connection failed: {prepared.method} {url}: {error}"), error
            else:
                self._last_response = response
                self._rate_limit = rate_limit_of(response.headers) or self._rate_limit
                if (
                    response.status_code == 401
                    and not refreshed
                    and prepared.path.startswith("/v1/")
                    and tokens_before is not None
                    and await self._refresh(tokens_before)
                ):
                    # the token was refused before anything ran: sending again is safe for any method
                    refreshed = True
                    await response.aclose()
                    continue
                delay = retry_delay(
                    response, prepared.retryable, attempt, retries, self._timing, time.time(), self._rng
                )
                if delay is None:
                    return response
                await response.aclose()
                await asyncio.sleep(delay)
                attempt += 1
                continue
            if not prepared.retryable or attempt >= retries:
                raise failure from cause
            await asyncio.sleep(backoff(self._timing, attempt, self._rng))
            attempt += 1


class AsyncEventStream:
    """The live event stream as an async iterator. It reconnects after a disconnect with `Last-Event-ID`
    (the id of the last event it yielded), so the hub resends what was missed, and it never yields
    an id it has yielded (ids are sortable: anything not after the last one is a repeat).
    Close it (or use it as a context manager) to end the connection."""

    def __init__(
        self,
        client: AsyncHubClient,
        types: list[str] | None,
        after: str | None,
        connect_timeout: float,
        idle_timeout: float,
        max_reconnects: int,
    ) -> None:
        self._client = client
        self._types = types
        self._last = after
        self._timeout = httpx.Timeout(connect_timeout, read=idle_timeout)
        self._max_reconnects = max_reconnects
        self._response: httpx.Response | None = None
        self._iterator = self._events()

    @property
    def last_event_id(self) -> str | None:
        """The id of the last event yielded: store it to resume later with `after`."""
        return self._last

    def __aiter__(self) -> AsyncIterator[HubEvent]:
        return self

    async def __anext__(self) -> HubEvent:
        return await anext(self._iterator)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._iterator.aclose()

    async def _events(self) -> AsyncGenerator[HubEvent]:
        failures = 0
        delay = 1.0
        while True:
            try:
                response = await self._open()
                try:
                    failures = 0
                    parser = SseParser()
                    async for line in response.aiter_lines():
                        frame = parser.feed(line)
                        if frame is None:
                            continue
                        if frame.retry is not None:
                            delay = frame.retry / 1000
                        if frame.id is None or frame.data == "" or (self._last is not None and frame.id <= self._last):
                            continue
                        try:
                            event = parse_event(frame.data)
                        except WebhookVerificationError as error:
                            raise HubDecodeError(f"event {frame.id}: {error}", 200) from error
                        self._last = frame.id
                        yield event
                finally:
                    await response.aclose()
                # the hub ended the stream (shutdown, slow reader): reconnect from the last id
            except (HubConnectionError, httpx.TransportError):
                failures += 1
                if failures > self._max_reconnects:
                    raise
            await asyncio.sleep(delay if failures == 0 else min(30.0, delay * 2**failures))

    async def _open(self) -> httpx.Response:
        headers = {"accept": "text/event-stream"}
        if self._last is not None:
            headers["last-event-id"] = self._last
        prepared = prepare(
            "GET",
            STREAM_PATH,
            path_params=None,
            json_body=None,
            default_headers=self._client._headers,
            headers=headers,
            idempotency_key=None,
        )
        params = {"types": ",".join(self._types)} if self._types else None
        response = await self._client._send(prepared, params, max_retries=0, timeout=self._timeout, stream=True)
        if response.is_success:
            return response
        await response.aread()
        await response.aclose()
        error = api_error_of(response)
        if response.status_code in TRANSIENT:
            raise HubConnectionError(str(error)) from error
        raise error


__all__ = ["AsyncEventStream", "AsyncHubClient"]
