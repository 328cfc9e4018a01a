"""One exception tree: branch on the class, then on `code` for an API error."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from ._generated.metadata import ErrorCode


class HubError(Exception):
    """Every error this library raises."""


class HubAPIError(HubError):
    """The hub answered with an error status; `problem` is its RFC 9457 problem document."""

    def __init__(self, status: int, problem: Mapping[str, Any], headers: httpx.Headers | None = None) -> None:
        self.status = status
        self.problem: dict[str, Any] = dict(problem)
        self.headers = headers if headers is not None else httpx.Headers()
        code = problem.get("code")
        #: the machine-readable code: compare it with `ErrorCode.*` (a str enum)
        self.code: str = code if isinstance(code, str) else f"http_{status}"
        self.title: str = str(problem.get("title") or "")
        self.detail: str = str(problem.get("detail") or "")
        instance = problem.get("instance")
        #: quote it when reporting an issue
        self.request_id: str | None = instance if isinstance(instance, str) else self.headers.get("x-request-id")
        super().__init__(f"{status} {self.code}: {self.detail or self.title or 'no detail'}")

    @property
    def error_code(self) -> ErrorCode | None:
        """The code as the enum member, or None for a code this version does not know."""
        try:
            return ErrorCode(self.code)
        except ValueError:
            return None


class HubConnectionError(HubError):
    """The request never got an answer: refused, reset or dropped connection, DNS failure."""


class HubTimeoutError(HubConnectionError):
    """No answer within the timeout (per attempt)."""


class HubDecodeError(HubError):
    """The hub answered, but not with what the document promises (not JSON, a cut body)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def api_error_of(response: httpx.Response) -> HubAPIError:
    """The HubAPIError for an error answer, whatever its body (a proxy's HTML page included)."""
    try:
        parsed = json.loads(response.content)
    except ValueError:
        parsed = {"detail": response.text[:200]}
    problem = parsed if isinstance(parsed, dict) else {"detail": str(parsed)[:200]}
    return HubAPIError(response.status_code, problem, response.headers)
