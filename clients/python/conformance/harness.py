"""What every scenario needs: the fixture the runner wrote, clients that name their scenario to
the conformance proxy, and the proxy's control routes (consent as the user, inboxes, requests)."""

from __future__ import annotations

import json
import os
from typing import Any

import httpx

from gaming_hub import HubClient, HubOAuth, OAuthTokens, RetryTiming

_file = os.environ.get("HUB_CONFORMANCE_FIXTURE")
if not _file:
    raise SystemExit("HUB_CONFORMANCE_FIXTURE is not set: run `npm run test:clients` at the root")
with open(_file) as handle:
    FIXTURE: dict[str, Any] = json.load(handle)

SCENARIO_HEADER = "x-conformance-scenario"
UNKNOWN_KEY = "ghk_" + "0" * 38
_UNSET: Any = object()


def resolve(value: Any) -> Any:
    """Replaces every `"$fixture.a.b"` string with the fixture's value there."""
    if isinstance(value, str) and value.startswith("$fixture."):
        at: Any = FIXTURE
        for key in value.removeprefix("$fixture.").split("."):
            at = at[key]
        return at
    if isinstance(value, list):
        return [resolve(v) for v in value]
    if isinstance(value, dict):
        return {k: resolve(v) for k, v in value.items()}
    return value


def client_for(scenario: str, *, api_key: str | None = _UNSET, **kwargs: Any) -> HubClient:
    return HubClient(
        FIXTURE["base_url"],
        api_key=FIXTURE["api_key"] if api_key is _UNSET else api_key,
        headers={SCENARIO_HEADER: scenario},
        retry_timing=RetryTiming(initial_delay=0.05, max_delay=0.4),
        **kwargs,
    )


def oauth_for(scenario: str) -> HubOAuth:
    return HubOAuth(
        FIXTURE["base_url"],
        FIXTURE["oauth_app"]["client_id"],
        FIXTURE["oauth_app"]["redirect_uri"],
        http_client=httpx.Client(headers={SCENARIO_HEADER: scenario}, timeout=30),
    )


def control(method: str, path: str, body: object = None) -> Any:
    response = httpx.request(method, f"{FIXTURE['base_url']}/__conformance/{path}", json=body, timeout=60)
    if response.is_error:
        raise RuntimeError(f"conformance control {method} {path}: {response.status_code} {response.text}")
    return response.json()


def proxy_saw(scenario: str) -> list[dict[str, Any]]:
    requests: list[dict[str, Any]] = control("GET", f"requests?scenario={scenario}")["requests"]
    return requests


def sign_in(scenario: str, scope: str) -> tuple[OAuthTokens, HubOAuth]:
    """The code flow for alice through the library: her tokens and the app's OAuth client."""
    oauth = oauth_for(scenario)
    # prompt=consent: a refresh token is issued on a new consent, even when alice granted the app before
    pending = oauth.authorization_url(scope, extra={"prompt": "consent"})
    callback = control("POST", "authorize", {"url": pending.url, "user": "alice"})["callback"]
    return oauth.handle_callback(callback, pending), oauth


def alice_client(scenario: str, scope: str) -> HubClient:
    tokens, oauth = sign_in(scenario, scope)
    return client_for(scenario, api_key=None, oauth=oauth, tokens=tokens)
