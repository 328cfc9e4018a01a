"""Standard Webhooks verification (HMAC-SHA256 over `id.timestamp.body`) and typed parsing."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Callable, Mapping, Sequence

from pydantic import TypeAdapter, ValidationError

from ._generated.events import HubEvent
from .errors import HubError

_EVENT: TypeAdapter[HubEvent] = TypeAdapter(HubEvent)


class WebhookVerificationError(HubError):
    """A delivery that is not the hub's: bad or missing signature, stale timestamp, not an event."""


def parse_event(payload: str | bytes) -> HubEvent:
    """An event's JSON (a webhook delivery, a stream frame) as the model of its type."""
    try:
        return _EVENT.validate_json(payload)
    except ValidationError as error:
        raise WebhookVerificationError(f"not an event of a known type: {error.errors()[0]['msg']}") from error


class WebhookVerifier:
    """Give it every secret that may sign: during a rotation the hub signs with the old and the new
    secret (two signatures), and either verifies."""

    def __init__(
        self,
        secrets: str | Sequence[str],
        *,
        tolerance_seconds: float = 300,
        now: Callable[[], float] = time.time,
    ) -> None:
        listed = [secrets] if isinstance(secrets, str) else list(secrets)
        if not listed:
            raise ValueError("at least one webhook secret is needed")
        self._keys = [base64.b64decode(s.removeprefix("whsec_")) for s in listed]
        self._tolerance = tolerance_seconds
        self._now = now

    def verify(self, body: str | bytes, headers: Mapping[str, str]) -> None:
        """Checks the signature and timestamp; raises WebhookVerificationError when either fails."""
        lower = {k.lower(): v for k, v in headers.items()}
        msg_id, timestamp, signatures = (lower.get(n) for n in ("webhook-id", "webhook-timestamp", "webhook-signature"))
        if not msg_id or not timestamp or not signatures:
            raise WebhookVerificationError("missing webhook headers")
        if not timestamp.isdigit():
            raise WebhookVerificationError("invalid webhook-timestamp")
        if abs(self._now() - int(timestamp)) > self._tolerance:
            raise WebhookVerificationError("webhook-timestamp too old or too new")
        raw = body.encode() if isinstance(body, str) else body
        signed = f"{msg_id}.{timestamp}.".encode() + raw
        candidates = [s[3:] for s in signatures.split(" ") if s.startswith("v1,")]
        for key in self._keys:
            expected = hmac.new(key, signed, hashlib.sha256).digest()
            for candidate in candidates:
                try:
                    mac = base64.b64decode(candidate, validate=True)
                except binascii.Error:
                    continue
                if hmac.compare_digest(mac, expected):
                    return
        raise WebhookVerificationError("no signature matches")

    def parse(self, body: str | bytes, headers: Mapping[str, str]) -> HubEvent:
        """Verifies the delivery, then parses it into the event of its type."""
        self.verify(body, headers)
        try:
            json.loads(body)
        except ValueError as error:
            raise WebhookVerificationError("the delivery is not JSON") from error
        return parse_event(body)
