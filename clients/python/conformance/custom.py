"""The scenarios that need more than a call: retries under the proxy's faults, OAuth, webhooks and
the stream. Each raises (an assertion) when the library does not do what the scenario says."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from gaming_hub import (
    AsyncHubClient,
    ErrorCode,
    HubAPIError,
    HubClient,
    HubConnectionError,
    HubDecodeError,
    OAuthError,
    OAuthTokens,
    WebhookVerificationError,
    WebhookVerifier,
    models,
)

from .harness import FIXTURE, SCENARIO_HEADER, alice_client, client_for, control, proxy_saw, sign_in

BOB = FIXTURE["users"]["bob"]["id"]
ALICE = FIXTURE["users"]["alice"]["id"]


def clock(at: float) -> Callable[[], float]:
    return lambda: at


def refused_with(call: Callable[[], object], code: str) -> None:
    try:
        call()
    except OAuthError as error:
        assert error.error == code, f"expected {code}, got {error.error}"
        return
    raise AssertionError(f"expected {code}, got a success")


def balance_of(hub: HubClient) -> int:
    balance: int = hub.get("/v1/economy/balance")["data"]["balance"]
    return balance


def transfer(hub: HubClient, amount: int) -> Any:
    return hub.post("/v1/economy/transfer", json={"to_user_id": BOB, "amount": amount})


def rate_limit_state(name: str) -> None:
    with client_for(name) as hub:
        hub.get("/api-platform/v1/leaderboards", params={"limit": 1})
        state = hub.rate_limit
    assert state is not None, "no rate-limit state"
    assert state.limit > 0 and state.remaining <= state.limit
    ahead = (state.reset - datetime.now(UTC)).total_seconds()
    assert -1 < ahead <= 3601, f"reset {state.reset}"


def conditional_etag(name: str) -> None:
    with client_for(name) as hub:
        first = hub.get_if_changed("/api-platform/v1/leaderboards", None, params={"limit": 3})
        assert not first.not_modified and first.etag and first.data, "the first answer has data and an ETag"
        second = hub.get_if_changed("/api-platform/v1/leaderboards", first.etag, params={"limit": 3})
        assert second.not_modified, "the second answer is not modified"


def retry_429(name: str) -> None:
    started = time.monotonic()
    with client_for(name) as hub:
        hub.get("/api-platform/v1/leaderboards")
    assert time.monotonic() - started >= 1, "retried before Retry-After"
    assert len(proxy_saw(name)) == 2


def gateway_backoff(name: str) -> None:
    with client_for(name, max_retries=2) as hub:
        hub.get("/api-platform/v1/achievements")
    assert len(proxy_saw(name)) == 3


def write_not_retried(name: str) -> None:
    alice = FIXTURE["users"]["alice"]
    try:
        with client_for(name) as hub:
            hub.post(
                "/api-platform/developer/session", json={"username": alice["username"], "password": alice["password"]}
            )
    except HubAPIError as error:
        assert error.status == 503 and error.code == ErrorCode.SERVICE_UNAVAILABLE, str(error)
    else:
        raise AssertionError("expected a 503")
    assert len(proxy_saw(name)) == 1


def transfer_after_drop(name: str) -> None:
    with alice_client(name, "economy:read economy:transfer") as alice:
        before = balance_of(alice)
        answer = transfer(alice, 7)
        assert answer["data"]["amount"] == 7, answer
        assert balance_of(alice) == before - 7, "the coins moved once"
    posts = [r for r in proxy_saw(name) if r["method"] == "POST" and r["path"] == "/v1/economy/transfer"]
    assert len(posts) == 2, "sent again after the dropped connection"
    assert posts[0]["idempotency_key"] and posts[0]["idempotency_key"] == posts[1]["idempotency_key"], "same key"


def code_flow(name: str) -> None:
    tokens, oauth = sign_in(name, "identify offline_access")
    assert tokens.access_token and tokens.refresh_token, "access and refresh token"
    with client_for(name, api_key=None, oauth=oauth, tokens=tokens) as hub:
        me = hub.get_as(models.V1UsersMeGetResult, "/v1/users/@me")
    assert me.data.id == str(ALICE), me


def refresh_rotation(name: str) -> None:
    tokens, oauth = sign_in(name, "identify offline_access")
    handed: list[OAuthTokens] = []
    expired = OAuthTokens(tokens.access_token, tokens.refresh_token, time.time() - 1, tokens.scope)
    with client_for(name, api_key=None, oauth=oauth, tokens=expired, on_tokens=handed.append) as hub:
        assert hub.get("/v1/users/@me")["data"]["id"] == str(ALICE)
    assert len(handed) == 1, "the new tokens were handed over once"
    assert handed[0].refresh_token and handed[0].refresh_token != tokens.refresh_token, "a new refresh token"
    refused_with(lambda: oauth.refresh(tokens.refresh_token or ""), "invalid_grant")


def revoke(name: str) -> None:
    tokens, oauth = sign_in(name, "identify offline_access")
    oauth.revoke(tokens.refresh_token or "", "refresh_token")
    refused_with(lambda: oauth.refresh(tokens.refresh_token or ""), "invalid_grant")


def webhook_vectors(name: str) -> None:
    with open(FIXTURE["vectors_file"]) as handle:
        vectors = json.load(handle)["vectors"]
    for v in vectors:
        verifier = WebhookVerifier(v["secrets"], now=clock(float(v["now"])))
        try:
            verifier.verify(v["body"], v["headers"])
            accepted = True
        except WebhookVerificationError:
            accepted = False
        assert accepted == v["valid"], v["name"]


def real_delivery(name: str) -> None:
    with alice_client(name, "economy:read economy:transfer webhooks:read webhooks:write") as alice:
        inbox = control("POST", "inbox")
        created = alice.post("/v1/webhooks", json={"url": inbox["url"], "events": ["economy.transfer.created"]})
        secret = created["data"]["secret"]
        assert secret, "the creation answer carries the secret"
        transfer(alice, 3)
    deliveries = control("GET", f"inbox/{inbox['id']}?wait_ms=20000")["deliveries"]
    assert deliveries, "no delivery within 20 s"
    delivery = deliveries[0]
    verifier = WebhookVerifier(secret)
    event = verifier.parse(delivery["body"], delivery["headers"])
    assert isinstance(event, models.EconomyTransferCreatedEvent), type(event)
    assert event.data.amount == 3
    try:
        verifier.verify(delivery["body"].replace('"amount":3', '"amount":300'), delivery["headers"])
    except WebhookVerificationError:
        pass
    else:
        raise AssertionError("a tampered body was accepted")


def stream_resume(name: str) -> None:
    with alice_client(name, "economy:read economy:transfer") as alice:
        transfer(alice, 1)  # an event to put the cursor on
        cursor = None
        for item in alice.paginate("/v1/events", params={"limit": 1000}):
            cursor = item["id"]
        assert cursor, "the pull route lists the warm-up transfer"
        for _ in range(3):
            transfer(alice, 1)
        tokens = alice.tokens
    types = ["economy.transfer.created"]
    assert tokens is not None

    # the async twin reads the stream: the same behaviour as the blocking one (unit tests)
    async def read() -> list[str]:
        seen: list[str] = []
        async with AsyncHubClient(FIXTURE["base_url"], tokens=tokens, headers={SCENARIO_HEADER: name}) as hub:
            stream = hub.events(types=types, after=cursor)
            async with stream:
                async for event in stream:
                    seen.append(event.id)
                    if len(seen) == 3:
                        break
        return seen

    ids = asyncio.run(asyncio.wait_for(read(), 20))
    assert len(ids) == 3, f"3 events, got {ids}"
    assert ids == sorted(ids) and len(set(ids)) == 3, "in order, no duplicate"
    with client_for(name, api_key=None, tokens=tokens) as hub:
        pulled = [e["id"] for e in hub.paginate("/v1/events", params={"after": cursor, "types": ",".join(types)})]
    assert ids == pulled, "the same events as the pull route"
    opens = [r for r in proxy_saw(name) if r["path"] == "/v1/events/stream"]
    assert len(opens) == 2, "reconnected once"
    assert opens[1]["last_event_id"] == ids[0], "with Last-Event-ID"


def transport_distinct(name: str) -> None:
    try:
        with HubClient("http://127.0.0.1:9", api_key=FIXTURE["api_key"], max_retries=0) as closed:
            closed.get("/api-platform/v1/servers")
    except HubConnectionError:
        pass
    else:
        raise AssertionError("no connection error")
    try:
        with client_for(name) as hub:
            hub.get("/api-platform/v1/servers")
    except HubDecodeError:
        pass
    else:
        raise AssertionError("no decode error")


CUSTOM: dict[str, Callable[[str], None]] = {
    "rate_limit.state": rate_limit_state,
    "conditional.etag": conditional_etag,
    "retry.429_retry_after": retry_429,
    "retry.gateway_backoff": gateway_backoff,
    "retry.write_without_key_not_retried": write_not_retried,
    "idempotency.transfer_after_dropped_connection": transfer_after_drop,
    "oauth.code_flow_pkce": code_flow,
    "oauth.refresh_rotation": refresh_rotation,
    "oauth.revoke": revoke,
    "webhooks.vectors": webhook_vectors,
    "webhooks.real_delivery": real_delivery,
    "stream.resume_after_disconnect": stream_resume,
    "errors.transport_distinct": transport_distinct,
}
