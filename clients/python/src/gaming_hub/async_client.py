"""The asyncio client: `HubClient` (client.py) for asyncio. Its state and every decision live in
_session.py and _core.py; it only does the I/O, awaiting it."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel

from ._core import Pager
from ._generated.events import HubEvent
from ._session import Call, ClientBase, Conditional, StreamViews, answer_of, if_none_match
from .errors import HubConnectionError
from .oauth import AsyncHubOAuth, AsyncOnTokens, OAuthTokens

M = TypeVar("M", bound=BaseModel)


class AsyncHubClient(ClientBase[httpx.AsyncClient, AsyncHubOAuth, AsyncOnTokens, asyncio.Lock]):
    """The Gaming Hub client: every operation by its path as the document writes it, credentials,
    retries, paging, conditional requests and the live event stream. Each instance holds its own
    state (no globals) and may be shared between threads; make one per credential and reuse it
    (connections are kept alive). Close it, or use it as a context manager.

    >>> async with AsyncHubClient("https://hub.example.com", api_key="ghk_...") as hub:
    ...     ladder = await hub.get("/api-platform/v1/killboard/elo", params={"limit": 10})
    """

    def _new_lock(self) -> asyncio.Lock:
        return asyncio.Lock()

    def _new_http(self, timeout: float | None) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=timeout)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

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
        prepared = self._session.prepare(
            method, path, path_params=path_params, json_body=json, headers=headers, idempotency_key=idempotency_key
        )
        call = Call(self._session, self.base_url, prepared, params, max_retries, timeout)
        return answer_of(await self._send(call))

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
        data = await self.request("GET", path, headers=if_none_match(kwargs.pop("headers", {}), etag), **kwargs)
        return self._session.conditional(data, etag)

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

    async def _refresh(self, seen: OAuthTokens) -> bool:
        """One refresh at a time: a thread that waited finds the tokens already new (a rotated token is spent once)."""
        async with self._refresh_lock:
            refresh_token = self._session.refresh_token_for(seen)
            if refresh_token is None or self._oauth is None:
                return self._session.holds_newer(seen)
            tokens = self._session.adopt(await self._oauth.refresh(refresh_token))
            if self._on_tokens is not None:
                handed = self._on_tokens(tokens)
                if inspect.isawaitable(handed):
                    await handed
            return True

    async def _send(self, call: Call, *, stream: bool = False) -> httpx.Response:
        while True:
            expiring = call.begin()
            if expiring is not None:
                await self._refresh(expiring)
            try:
                response = await self._http.send(call.build(self._http), stream=stream)
            except httpx.TransportError as error:
                await asyncio.sleep(call.after_failure(error))
                continue
            refused = call.refused(response)
            if refused is not None and await self._refresh(refused):
                await response.aclose()
                continue
            delay = call.after(response)
            if delay is None:
                return response
            await response.aclose()
            await asyncio.sleep(delay)


class AsyncEventStream(StreamViews["AsyncHubClient", AsyncGenerator[HubEvent]]):
    """The live event stream as an async iterator. It reconnects after a disconnect with `Last-Event-ID`
    (the id of the last event it yielded), so the hub resends what was missed, and it never yields
    an id it has yielded (ids are sortable: anything not after the last one is a repeat).
    Close it (or use it as a context manager) to end the connection."""

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
        cursor = self._cursor
        while True:
            try:
                response = await self._open()
                try:
                    cursor.connected()
                    async for line in response.aiter_lines():
                        event = cursor.feed(line)
                        if event is not None:
                            yield event
                finally:
                    await response.aclose()
                # the hub ended the stream (shutdown, slow reader): reconnect from the last id
            except (HubConnectionError, httpx.TransportError):
                if cursor.disconnected():
                    raise
            await asyncio.sleep(cursor.pause())

    async def _open(self) -> httpx.Response:
        prepared, params = self._cursor.request(self._client._session)
        client = self._client
        call = Call(client._session, client.base_url, prepared, params, 0, self._cursor.timeout)
        response = await client._send(call, stream=True)
        if response.is_success:
            return response
        await response.aread()
        await response.aclose()
        raise self._cursor.refusal(response)


__all__ = ["AsyncEventStream", "AsyncHubClient"]
