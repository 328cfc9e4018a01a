from __future__ import annotations

import email.utils
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx


@dataclass(frozen=True, slots=True)
class RateLimit:
    """The quota state the hub sent with the last response that carried one."""

    limit: int
    remaining: int
    reset: datetime


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() else None


def rate_limit_of(headers: httpx.Headers) -> RateLimit | None:
    limit = _int(headers.get("x-ratelimit-limit"))
    remaining = _int(headers.get("x-ratelimit-remaining"))
    reset = _int(headers.get("x-ratelimit-reset"))
    if limit is None or remaining is None or reset is None:
        return None
    return RateLimit(limit, remaining, datetime.fromtimestamp(reset, UTC))


def retry_after_seconds(headers: httpx.Headers, status: int, now: float) -> float | None:
    """Seconds `Retry-After` asks to wait (seconds or an HTTP date), or the quota's reset on a 429."""
    value = headers.get("retry-after")
    if value is not None:
        if value.isdigit():
            return float(value)
        try:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - now)
        except (TypeError, ValueError):
            pass
    if status == 429:
        reset = _int(headers.get("x-ratelimit-reset"))
        if reset is not None:
            return max(0.0, reset - now)
    return None
