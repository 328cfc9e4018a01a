"""The decisions the sync and async clients share (_session.py), without any transport: what a
call does after each answer or failure, and how the event stream resumes."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from gaming_hub import HubConnectionError, HubTimeoutError, OAuthTokens, RetryTiming
from gaming_hub._session import Call, Session, StreamCursor

FAST = RetryTiming(initial_delay=0.001, max_delay=0.002)
EVENT = json.loads((Path(__file__).resolve().parents[2] / "conformance/webhook-vectors.json").read_text())["vectors"][0]


def session_with(tokens: OAuthTokens | None = None, now: float = 1000.0) -> Session:
    return Session("ghk_k", tokens, None, 2, 30.0, FAST, clock=lambda: now)


def answer(status: int, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, headers=headers, request=httpx.Request("GET", "http://hub.test"))


def test_a_call_retries_what_it_may_as_often_as_it_may() -> None:
    session = session_with()
    get = Call(session, "http://hub.test", session.prepare("GET", "/api-platform/v1/items"), None, None, None)
    assert get.after(answer(503, {"retry-after": "3"})) == 3
    assert get.after(answer(502)) is not None
    assert get.after(answer(503)) is None  # two retries spent
    post = Call(session, "http://hub.test", session.prepare("POST", "/api-platform/v1/items"), None, None, None)
    assert post.after(answer(503)) is None  # not idempotent
    with pytest.raises(HubConnectionError):
        post.after_failure(httpx.ConnectError("refused"))
    assert get.after(answer(200)) is None
    fresh = Call(session, "http://hub.test", session.prepare("GET", "/api-platform/v1/items"), None, 0, 5.0)
    with pytest.raises(HubTimeoutError, match=r"within 5\.0 s"):
        fresh.after_failure(httpx.ReadTimeout("slow"))


def test_a_refused_token_is_refreshed_once_and_an_expiring_one_before_sending() -> None:
    tokens = OAuthTokens("at", "rt", expires_at=1010.0)
    session = session_with(tokens)
    call = Call(session, "http://hub.test", session.prepare("GET", "/v1/me"), None, None, None)
    assert call.begin() is tokens  # 10 s left: refreshed before the request is built
    assert session.refresh_token_for(tokens) == "rt"
    fresh = session.adopt(OAuthTokens("at2", None, expires_at=5000.0))
    assert fresh.refresh_token == "rt" and session.refresh_token_for(tokens) is None and session.holds_newer(tokens)
    assert call.build(httpx.Client()).headers["authorization"] == "Bearer at2"
    assert call.refused(answer(401)) is tokens
    assert call.refused(answer(401)) is None  # once a call
    published = Call(session, "http://hub.test", session.prepare("GET", "/api-platform/v1/items"), None, None, None)
    assert published.begin() is None and published.refused(answer(401)) is None
    assert published.build(httpx.Client()).headers["x-api-key"] == "ghk_k"


def test_the_stream_resumes_after_its_last_event_and_backs_off() -> None:
    cursor = StreamCursor(["economy.transfer.created"], "evt_0", httpx.Timeout(1.0), max_reconnects=1)
    prepared, params = cursor.request(session_with())
    assert prepared.headers["last-event-id"] == "evt_0" and params == {"types": "economy.transfer.created"}
    lines = ["retry: 500", "", f"id: {json.loads(EVENT['body'])['id']}", f"data: {EVENT['body']}", ""]
    events = [e for e in map(cursor.feed, lines) if e is not None]
    assert len(events) == 1 and cursor.last == json.loads(EVENT["body"])["id"]
    assert [e for e in map(cursor.feed, lines) if e is not None] == []  # a repeat is dropped
    assert cursor.pause() == 0.5
    assert not cursor.disconnected() and cursor.pause() == 1.0
    assert cursor.disconnected()  # one reconnect allowed
    error = cursor.refusal(answer(503))
    assert isinstance(error, HubConnectionError) and error.__cause__ is not None
    assert not isinstance(cursor.refusal(answer(403)), HubConnectionError)
