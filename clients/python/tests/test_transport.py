"""The request loop against httpx's MockTransport: credentials per surface, retries, idempotency
keys, errors. Each handler records what the client sent."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from gaming_hub import (
    USER_AGENT,
    AsyncHubClient,
    ErrorCode,
    HubAPIError,
    HubClient,
    HubConnectionError,
    HubDecodeError,
    RetryTiming,
)

FAST = RetryTiming(initial_delay=0.001, max_delay=0.002)


def client_with(handler: httpx.MockTransport, **kwargs: object) -> HubClient:
    return HubClient(
        "http://hub.test",
        api_key="ghk_k",
        retry_timing=FAST,
        http_client=httpx.Client(transport=handler),
        **kwargs,  # type: ignore[arg-type]
    )


def test_credentials_by_surface_and_user_agent() -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True})

    hub = client_with(httpx.MockTransport(handle))
    hub.get("/api-platform/v1/users/{id}", path_params={"id": 7})
    hub.get("/v1/tournaments", params={"per_page": 2, "active": True})
    assert seen[0].url.path == "/api-platform/v1/users/7"
    assert seen[0].headers["x-api-key"] == "ghk_k" and "authorization" not in seen[0].headers
    assert seen[1].headers["authorization"] == "Bearer ghk_k" and "x-api-key" not in seen[1].headers
    assert seen[1].url.query == b"per_page=2&active=true"
    assert seen[0].headers["user-agent"] == USER_AGENT == "gaming-hub-client-python/0.1.0"


def test_429_waits_for_retry_after_then_answers() -> None:
    calls: list[float] = []

    def handle(request: httpx.Request) -> httpx.Response:
        calls.append(0)
        if len(calls) == 1:
            return httpx.Response(429, headers={"retry-after": "0"}, json={"code": "rate_limited"})
        return httpx.Response(200, json={"entries": []})

    assert client_with(httpx.MockTransport(handle)).get("/api-platform/v1/leaderboards") == {"entries": []}
    assert len(calls) == 2


def test_a_write_is_retried_only_with_one_idempotency_key() -> None:
    keys: list[str | None] = []

    def handle(request: httpx.Request) -> httpx.Response:
        keys.append(request.headers.get("idempotency-key"))
        if len(keys) == 1:
            raise httpx.RemoteProtocolError("dropped")
        return httpx.Response(201, json={"amount": 5})

    hub = client_with(httpx.MockTransport(handle))
    assert hub.post("/v1/economy/transfer", json={"to_user_id": 2, "amount": 5}) == {"amount": 5}
    assert len(keys) == 2 and keys[0] is not None and keys[0] == keys[1]

    posts: list[int] = []

    def unavailable(request: httpx.Request) -> httpx.Response:
        posts.append(0)
        return httpx.Response(503, headers={"retry-after": "0"}, json={"code": "service_unavailable"})

    with pytest.raises(HubAPIError) as raised:
        client_with(httpx.MockTransport(unavailable)).post("/api-platform/developer/session", json={})
    assert raised.value.code == ErrorCode.SERVICE_UNAVAILABLE and len(posts) == 1


def test_errors_carry_the_problem_and_transport_errors_differ() -> None:
    problem = {"type": "about:blank", "title": "Not Found", "status": 404, "code": "user_not_found", "detail": "no"}

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/html"):
            return httpx.Response(200, headers={"content-type": "application/json"}, content=b"<html>")
        return httpx.Response(404, json=problem, headers={"x-request-id": "req-1"})

    hub = client_with(httpx.MockTransport(handle), max_retries=0)
    with pytest.raises(HubAPIError) as raised:
        hub.get("/api-platform/v1/users/1")
    error = raised.value
    assert (error.status, error.code, error.request_id, error.problem) == (404, "user_not_found", "req-1", problem)
    assert error.error_code is ErrorCode.USER_NOT_FOUND
    with pytest.raises(HubDecodeError):
        hub.get("/api-platform/v1/html")

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    with pytest.raises(HubConnectionError):
        client_with(httpx.MockTransport(refuse), max_retries=1).get("/api-platform/v1/servers")


def test_async_twin_pages_to_the_end() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        return httpx.Response(200, json={"data": [{"id": page}], "meta": {"total": 3, "per_page": 1, "page": page}})

    async def main() -> list[object]:
        async with AsyncHubClient(
            "http://hub.test", api_key="k", http_client=httpx.AsyncClient(transport=httpx.MockTransport(handle))
        ) as hub:
            return [item["id"] async for item in hub.paginate("/v1/clans", params={"per_page": 1})]

    assert asyncio.run(main()) == [1, 2, 3]
    assert json.dumps(None) == "null"
