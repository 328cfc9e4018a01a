"""What the sync and async clients share: no I/O here, only decisions (credentials, retries,
paging, SSE frames), so the two twins cannot drift apart."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

import httpx

from ._generated.metadata import IDEMPOTENT_OPERATIONS, PAGING
from ._rate_limit import retry_after_seconds
from ._version import USER_AGENT
from .errors import HubDecodeError

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# statuses worth another attempt: the quota or the service asks to come back, or a gateway failed
RETRY_STATUSES = frozenset({429, 502, 503, 504})
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRIES = 2
# refresh this long before the announced expiry, so no call carries a dying token
EARLY_REFRESH_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class RetryTiming:
    """When to wait between attempts (seconds)."""

    initial_delay: float = 0.5
    """the first backoff; doubled on each retry"""
    max_delay: float = 8.0
    """the longest backoff"""
    max_retry_after: float = 60.0
    """a `Retry-After` or quota reset further away than this is not waited for: the error is raised"""


def backoff(timing: RetryTiming, attempt: int, rng: random.Random) -> float:
    """Exponential backoff with jitter: between half and all of initial x 2^attempt, capped."""
    ceiling = min(timing.max_delay, timing.initial_delay * 2**attempt)
    return float(ceiling / 2 + rng.random() * ceiling / 2)


def retry_delay(
    response: httpx.Response,
    retryable: bool,
    attempt: int,
    max_retries: int,
    timing: RetryTiming,
    now: float,
    rng: random.Random,
) -> float | None:
    """Seconds to wait before sending `response`'s request again, or None to hand the answer back."""
    if response.status_code not in RETRY_STATUSES or not retryable or attempt >= max_retries:
        return None
    asked = retry_after_seconds(response.headers, response.status_code, now)
    if asked is not None and asked > timing.max_retry_after:
        return None
    return asked if asked is not None else backoff(timing, attempt, rng)


def expand_path(path: str, path_params: Mapping[str, object] | None) -> str:
    """`/users/{id}` with `{"id": 7}` -> `/users/7` (each value percent-encoded)."""
    for name, value in (path_params or {}).items():
        path = path.replace("{" + name + "}", quote(str(value), safe=""))
    return path


def query_of(params: Mapping[str, object] | None) -> list[tuple[str, str | int | float | bool | None]]:
    """Query pairs: None dropped, booleans as `true`/`false`, sequences as repeated names."""
    out: list[tuple[str, str | int | float | bool | None]] = []
    for name, value in (params or {}).items():
        values = value if isinstance(value, list | tuple) else [value]
        for item in values:
            if item is None:
                continue
            out.append((name, ("true" if item else "false") if isinstance(item, bool) else str(item)))
    return out


@dataclass(slots=True)
class Prepared:
    method: str
    path: str
    headers: dict[str, str]
    content: bytes | None
    retryable: bool


def prepare(
    method: str,
    path: str,
    *,
    path_params: Mapping[str, object] | None,
    json_body: object,
    default_headers: Mapping[str, str],
    headers: Mapping[str, str] | None,
    idempotency_key: str | None,
) -> Prepared:
    method = method.upper()
    merged = {k.lower(): v for k, v in default_headers.items()}
    merged["user-agent"] = USER_AGENT
    merged.update({k.lower(): v for k, v in (headers or {}).items()})
    if f"{method} {path}" in IDEMPOTENT_OPERATIONS and "idempotency-key" not in merged:
        # once per call: every retry carries the same key, so the hub answers a repeat from its store
        merged["idempotency-key"] = idempotency_key or str(uuid.uuid4())
    content = None
    if json_body is not None:
        content = json.dumps(json_body, separators=(",", ":")).encode()
        merged["content-type"] = "application/json"
    return Prepared(
        method,
        expand_path(path, path_params),
        merged,
        content,
        method in SAFE_METHODS or "idempotency-key" in merged,
    )


def credential_headers(path: str, api_key: str | None, bearer: str | None) -> dict[str, str]:
    """The credential for a path's surface: none on the OAuth endpoints, a bearer on /v1, else x-api-key."""
    if path.startswith("/api-platform/oauth/"):
        return {}
    if path.startswith("/v1/"):
        return {"authorization": f"Bearer {bearer}"} if bearer else {}
    return {"x-api-key": api_key} if api_key else {}


def decode(response: httpx.Response) -> Any:
    """A success answer's JSON (None for an empty body)."""
    if response.status_code in (204, 304) or not response.content:
        return None
    try:
        return json.loads(response.content)
    except ValueError as error:
        raise HubDecodeError(f"the answer is not JSON: {error}", response.status_code) from error


PagingMode = Literal["offset", "page", "cursor"]


def items_of(page: object) -> list[Any]:
    """The items of a list answer: `data` on /v1, the one array of a published list."""
    if not isinstance(page, dict):
        raise HubDecodeError("this answer is not a list", 200)
    data = page.get("data")
    if isinstance(data, list):
        return data
    arrays = [v for v in page.values() if isinstance(v, list)]
    if len(arrays) != 1:
        raise HubDecodeError("this answer is not a list", 200)
    return arrays[0]


class Pager:
    """The queries of a list's pages, whatever its paging: limit/offset, page/per_page or the cursor."""

    def __init__(self, path: str, query: Mapping[str, object] | None) -> None:
        self.mode: PagingMode | None = PAGING.get(f"GET {path}")
        self.query: dict[str, object] = dict(query or {})
        self.size = self.query.get("limit")
        self.done = False

    def first(self) -> dict[str, object]:
        if self.mode == "offset":
            self.query.setdefault("offset", 0)
        elif self.mode == "page":
            self.query.setdefault("page", 1)
        return dict(self.query)

    def advance(self, answer: object) -> tuple[list[Any], dict[str, object] | None]:
        """The page's items and the next page's query (None after the last page)."""
        items = items_of(answer)
        if self.mode is None or not items:
            return items, None
        if self.mode == "offset":
            # a short page is the last; an explicit limit tells its size, else the first page does
            if isinstance(self.size, int) and len(items) < self.size:
                return items, None
            if self.size is None:
                self.size = self.query["limit"] = len(items)
            self.query["offset"] = int(str(self.query["offset"])) + len(items)
            return items, dict(self.query)
        meta = answer.get("meta", {}) if isinstance(answer, dict) else {}
        if self.mode == "page":
            page = int(str(self.query["page"]))
            if page * int(meta.get("per_page", len(items))) >= int(meta.get("total", 0)):
                return items, None
            self.query["page"] = page + 1
            return items, dict(self.query)
        if not meta.get("has_more") or meta.get("next_after") is None:
            return items, None
        self.query["after"] = meta["next_after"]
        return items, dict(self.query)


@dataclass(slots=True)
class SseFrame:
    id: str | None = None
    event: str = "message"
    data: str = ""
    retry: int | None = None


class SseParser:
    """Frames of a `text/event-stream` body, fed line by line (the WHATWG rules)."""

    def __init__(self) -> None:
        self._frame = SseFrame()
        self._has_data = False

    def feed(self, line: str) -> SseFrame | None:
        if line == "":
            frame, has_data = self._frame, self._has_data
            self._frame, self._has_data = SseFrame(), False
            # a frame without data is only worth telling when it changes the reconnection delay
            return frame if has_data or frame.retry is not None else None
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            self._frame.data = f"{self._frame.data}\n{value}" if self._has_data else value
            self._has_data = True
        elif field == "event":
            self._frame.event = value
        elif field == "id" and "\0" not in value:
            self._frame.id = value
        elif field == "retry" and value.isdigit():
            self._frame.retry = int(value)
        return None


DEFAULT_TIMING = RetryTiming()
