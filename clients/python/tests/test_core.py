from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from pathlib import Path

import httpx

from gaming_hub import EVENT_MODELS, WEBHOOK_EVENT_TYPES, WebhookVerificationError, WebhookVerifier
from gaming_hub._core import Pager, RetryTiming, SseParser, backoff
from gaming_hub._rate_limit import rate_limit_of, retry_after_seconds

VECTORS = Path(__file__).resolve().parents[2] / "conformance/webhook-vectors.json"


def clock(at: float) -> Callable[[], float]:
    return lambda: at


def test_retry_after_in_seconds_a_date_or_the_quota_reset() -> None:
    assert retry_after_seconds(httpx.Headers({"retry-after": "3"}), 503, 0) == 3
    assert retry_after_seconds(httpx.Headers({"retry-after": "Thu, 01 Jan 1970 00:00:10 GMT"}), 503, 4) == 6
    assert retry_after_seconds(httpx.Headers({"x-ratelimit-reset": "100"}), 429, 90) == 10
    assert retry_after_seconds(httpx.Headers({"x-ratelimit-reset": "100"}), 503, 90) is None
    state = rate_limit_of(
        httpx.Headers({"x-ratelimit-limit": "60", "x-ratelimit-remaining": "59", "x-ratelimit-reset": "9"})
    )
    assert state is not None and (state.limit, state.remaining, state.reset.timestamp()) == (60, 59, 9)


def test_backoff_grows_with_jitter_and_a_cap() -> None:
    timing = RetryTiming(initial_delay=1, max_delay=4)
    rng = random.Random(1)
    waits = [backoff(timing, attempt, rng) for attempt in range(5)]
    assert 0.5 <= waits[0] <= 1 and 1 <= waits[1] <= 2 and all(2 <= w <= 4 for w in waits[3:])


def test_pager_offset_and_cursor() -> None:
    pager = Pager("/api-platform/v1/forum/threads", {"limit": 2})
    assert pager.first() == {"limit": 2, "offset": 0}
    assert pager.advance({"threads": [1, 2]}) == ([1, 2], {"limit": 2, "offset": 2})
    assert pager.advance({"threads": [3]}) == ([3], None)
    cursor = Pager("/v1/events", None)
    cursor.first()
    _, nxt = cursor.advance({"data": [1], "meta": {"has_more": True, "next_after": "evt_1"}})
    assert nxt == {"after": "evt_1"}


def test_sse_frames() -> None:
    parser = SseParser()
    lines = [": hi", "id: evt_1", "data: {", "data: }", "", "retry: 50", ""]
    frames = [f for f in map(parser.feed, lines) if f is not None]
    assert [(f.id, f.data, f.retry) for f in frames] == [("evt_1", "{\n}", None), (None, "", 50)]


def test_webhook_vectors() -> None:
    data = json.loads(VECTORS.read_text())
    for v in data["vectors"]:
        verifier = WebhookVerifier(v["secrets"], now=clock(float(v["now"])))
        try:
            verifier.verify(v["body"], v["headers"])
            accepted = True
        except WebhookVerificationError:
            accepted = False
        assert accepted == v["valid"], v["name"]


def test_every_event_type_has_its_model() -> None:
    assert set(EVENT_MODELS) == set(WEBHOOK_EVENT_TYPES) and len(WEBHOOK_EVENT_TYPES) > 10
    assert os.sep
