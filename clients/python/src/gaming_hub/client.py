"""The blocking client. `AsyncHubClient` (async_client.py) is its asyncio twin; both keep their
state and take every decision in _session.py and _core.py, and only do the I/O here."""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Iterator, Mapping
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel

from ._core import Pager
from ._generated.events import HubEvent
from ._session import Call, ClientBase, Conditional, StreamViews, answer_of, if_none_match
from .errors import HubConnectionError
from .oauth import HubOAuth, OAuthTokens, OnTokens

M = TypeVar("M", bound=BaseModel)


class HubClient(ClientBase[httpx.Client, HubOAuth, OnTokens, threading.Lock]):
    """The Gaming Hub client: every operation by its path as the document writes it, credentials,
    retries, paging, conditional requests and the live event stream. Each instance holds its own
    state (no globals) and may be shared between threads; make one per credential and reuse it
    (connections are kept alive). Close it, or use it as a context manager.

    >>> with HubClient("https://hub.example.com", api_key="ghk_...") as hub:
    ...     ladder = hub.get("/api-platform/v1/killboard/elo", params={"limit": 10})
    """

    def _new_lock(self) -> threading.Lock:
        return threading.Lock()

    def _new_http(self, timeout: float | None) -> httpx.Client:
        return httpx.Client(timeout=timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def request(
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
        prepared = self._session.prepare(
            method, path, path_params=path_params, json_body=json, headers=headers, idempotency_key=idempotency_key
        )
        call = Call(self._session, self.base_url, prepared, params, max_retries, timeout)
        return answer_of(self._send(call))

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Any:
        return self.request("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any) -> Any:
        return self.request("PUT", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> Any:
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> Any:
        return self.request("DELETE", path, **kwargs)

    def get_as(self, model: type[M], path: str, **kwargs: Any) -> M:
        """A GET whose answer is validated into a generated model (`gaming_hub.models`)."""
        return model.model_validate(self.request("GET", path, **kwargs))

    def get_if_changed(self, path: str, etag: str | None, **kwargs: Any) -> Conditional[Any]:
        """A GET with `If-None-Match: etag`: a 304 (not counted against the quota) is `not_modified`."""
        data = self.request("GET", path, headers=if_none_match(kwargs.pop("headers", {}), etag), **kwargs)
        return self._session.conditional(data, etag)

    def paginate(self, path: str, *, params: Mapping[str, object] | None = None, **kwargs: Any) -> Iterator[Any]:
        """Every item of a list, page after page, whatever its paging (limit/offset, page/per_page
        with `{data, meta}`, or the event cursor). Stop early with `break`."""
        pager = Pager(path, params)
        query: dict[str, object] | None = pager.first()
        while query is not None:
            items, query = pager.advance(self.request("GET", path, params=query, **kwargs))
            yield from items

    def events(
        self,
        *,
        types: list[str] | None = None,
        after: str | None = None,
        connect_timeout: float = 30.0,
        idle_timeout: float = 45.0,
        max_reconnects: int = 10,
    ) -> EventStream:
        """The live event stream, resumed across disconnects (see EventStream)."""
        return EventStream(self, types, after, connect_timeout, idle_timeout, max_reconnects)

    def _refresh(self, seen: OAuthTokens) -> bool:
        """One refresh at a time: a thread that waited finds the tokens already new (a rotated token is spent once)."""
        with self._refresh_lock:
            refresh_token = self._session.refresh_token_for(seen)
            if refresh_token is None or self._oauth is None:
                return self._session.holds_newer(seen)
            tokens = self._session.adopt(self._oauth.refresh(refresh_token))
            if self._on_tokens is not None:
                self._on_tokens(tokens)
            return True

    def _send(self, call: Call, *, stream: bool = False) -> httpx.Response:
        while True:
            expiring = call.begin()
            if expiring is not None:
                self._refresh(expiring)
            try:
                response = self._http.send(call.build(self._http), stream=stream)
            except httpx.TransportError as error:
                time.sleep(call.after_failure(error))
                continue
            refused = call.refused(response)
            if refused is not None and self._refresh(refused):
                response.close()
                continue
            delay = call.after(response)
            if delay is None:
                return response
            response.close()
            time.sleep(delay)


class EventStream(StreamViews["HubClient", Generator[HubEvent]]):
    """The live event stream as an iterator. It reconnects after a disconnect with `Last-Event-ID`
    (the id of the last event it yielded), so the hub resends what was missed, and it never yields
    an id it has yielded (ids are sortable: anything not after the last one is a repeat).
    Close it (or use it as a context manager) to end the connection."""

    def __iter__(self) -> Iterator[HubEvent]:
        return self

    def __next__(self) -> HubEvent:
        return next(self._iterator)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._iterator.close()

    def _events(self) -> Generator[HubEvent]:
        cursor = self._cursor
        while True:
            try:
                response = self._open()
                try:
                    cursor.connected()
                    for line in response.iter_lines():
                        event = cursor.feed(line)
                        if event is not None:
                            yield event
                finally:
                    response.close()
                # the hub ended the stream (shutdown, slow reader): reconnect from the last id
            except (HubConnectionError, httpx.TransportError):
                if cursor.disconnected():
                    raise
            time.sleep(cursor.pause())

    def _open(self) -> httpx.Response:
        prepared, params = self._cursor.request(self._client._session)
        client = self._client
        call = Call(client._session, client.base_url, prepared, params, 0, self._cursor.timeout)
        response = client._send(call, stream=True)
        if response.is_success:
            return response
        response.read()
        response.close()
        raise self._cursor.refusal(response)


__all__ = ["Conditional", "EventStream", "HubClient"]
