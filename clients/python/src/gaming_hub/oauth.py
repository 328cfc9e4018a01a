"""The Authorization Code flow with PKCE (S256) against the hub's authorization server: the URL to
send the user to, the code exchange, refresh (the hub rotates refresh tokens: keep the new one)
and revocation. `HubOAuth` blocks; `AsyncHubOAuth` is its asyncio twin."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from ._version import USER_AGENT
from .errors import HubAPIError, HubConnectionError, HubDecodeError, api_error_of

AUTHORIZE_PATH = "/api-platform/oauth/authorize"
TOKEN_PATH = "/api-platform/oauth/token"
REVOKE_PATH = "/api-platform/oauth/revoke"


@dataclass(frozen=True, slots=True)
class OAuthTokens:
    """The tokens of one grant. Store the refresh token: it changes on every refresh (rotation)."""

    access_token: str
    refresh_token: str | None = None
    expires_at: float | None = None
    """when the access token expires (epoch seconds)"""
    scope: str | None = None


@dataclass(frozen=True, slots=True)
class AuthorizationRequest:
    """A pending authorization: keep `state` and `code_verifier` until the user comes back."""

    url: str
    state: str
    code_verifier: str


TokenHint = Literal["access_token", "refresh_token"]


class OAuthError(HubAPIError):
    """An OAuth error answer (RFC 6749 section 5.2: `error`, `error_description`), or a state mismatch."""

    def __init__(self, error: str, description: str, status: int = 400, headers: httpx.Headers | None = None) -> None:
        super().__init__(status, {"code": error, "title": error, "detail": description}, headers)
        self.error = error


def pkce_challenge(verifier: str) -> str:
    """The PKCE S256 challenge of a verifier (RFC 7636)."""
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _oauth_error_of(response: httpx.Response) -> HubAPIError:
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        return OAuthError(body["error"], str(body.get("error_description", "")), response.status_code, response.headers)
    return api_error_of(response)


def _tokens_of(response: httpx.Response) -> OAuthTokens:
    if response.is_error:
        raise _oauth_error_of(response)
    try:
        answer = json.loads(response.content)
        expires_in = answer.get("expires_in")
        return OAuthTokens(
            access_token=answer["access_token"],
            refresh_token=answer.get("refresh_token"),
            expires_at=None if expires_in is None else time.time() + float(expires_in),
            scope=answer.get("scope"),
        )
    except (ValueError, KeyError, AttributeError) as error:
        raise HubDecodeError("the token endpoint answered no token", response.status_code) from error


H = TypeVar("H", httpx.Client, httpx.AsyncClient)


class _OAuthBase(Generic[H]):
    """What both OAuth clients share: their settings, the URLs and forms they send, without I/O."""

    def __init__(
        self,
        base_url: str,
        client_id: str,
        redirect_uri: str,
        *,
        client_secret: str | None = None,
        http_client: H | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.client_id = client_id
        self.redirect_uri = redirect_uri
        self._client_secret = client_secret
        self._http: H = http_client or self._new_http()

    def _new_http(self) -> H:
        raise NotImplementedError

    def authorization_url(
        self, scope: str | Sequence[str], *, state: str | None = None, extra: Mapping[str, str] | None = None
    ) -> AuthorizationRequest:
        """The authorization URL with a fresh state and PKCE pair."""
        state = state or secrets.token_urlsafe(16)
        verifier = secrets.token_urlsafe(32)
        query = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "scope": scope if isinstance(scope, str) else " ".join(scope),
            "state": state,
            "code_challenge": pkce_challenge(verifier),
            "code_challenge_method": "S256",
            **(extra or {}),
        }
        return AuthorizationRequest(f"{self.base_url}{AUTHORIZE_PATH}?{urlencode(query)}", state, verifier)

    @staticmethod
    def _code_of(callback: str, pending: AuthorizationRequest) -> str:
        query = {k: v[0] for k, v in parse_qs(urlsplit(callback).query or callback.lstrip("?")).items()}
        if not secrets.compare_digest(query.get("state", ""), pending.state):
            raise OAuthError("state_mismatch", "the state does not match")
        if "error" in query:
            raise OAuthError(query["error"], query.get("error_description", ""))
        if not query.get("code"):
            raise OAuthError("invalid_request", "the callback carries no code")
        return query["code"]

    def _exchange_form(self, code: str, verifier: str) -> dict[str, str]:
        return {
            "grant_type": "authorization_code",
            "code": code,
            "code_verifier": verifier,
            "redirect_uri": self.redirect_uri,
        }

    @staticmethod
    def _refresh_form(refresh_token: str) -> dict[str, str]:
        return {"grant_type": "refresh_token", "refresh_token": refresh_token}

    @staticmethod
    def _revoke_form(token: str, hint: TokenHint | None) -> dict[str, str]:
        return {"token": token, **({"token_type_hint": hint} if hint else {})}

    def _post_args(self, path: str, fields: Mapping[str, str]) -> dict[str, object]:
        form = dict(fields)
        auth: tuple[str, str] | None = None
        if self._client_secret is None:
            form["client_id"] = self.client_id
        else:
            auth = (self.client_id, self._client_secret)
        args: dict[str, object] = {"url": f"{self.base_url}{path}", "data": form, "headers": {"user-agent": USER_AGENT}}
        if auth:
            args["auth"] = auth
        return args


class HubOAuth(_OAuthBase[httpx.Client]):
    """The OAuth client of an app (public without `client_secret`)."""

    def _new_http(self) -> httpx.Client:
        return httpx.Client(timeout=30.0)

    def handle_callback(self, callback: str, pending: AuthorizationRequest) -> OAuthTokens:
        """The redirect back to the app (its URL or query): checks the state and exchanges the code."""
        return self.exchange_code(self._code_of(callback, pending), pending.code_verifier)

    def exchange_code(self, code: str, code_verifier: str) -> OAuthTokens:
        return self._request_tokens(self._exchange_form(code, code_verifier))

    def refresh(self, refresh_token: str) -> OAuthTokens:
        """A new access token; the answer's refresh token replaces the one given (rotation)."""
        return self._request_tokens(self._refresh_form(refresh_token))

    def revoke(self, token: str, hint: TokenHint | None = None) -> None:
        """Revokes an access or refresh token (RFC 7009); revoking a refresh token ends its grant."""
        response = self._post(REVOKE_PATH, self._revoke_form(token, hint))
        if response.is_error:
            raise _oauth_error_of(response)

    def _request_tokens(self, form: Mapping[str, str]) -> OAuthTokens:
        """The one way to the token endpoint: the code exchange and the refresh both post a form."""
        return _tokens_of(self._post(TOKEN_PATH, form))

    def _post(self, path: str, fields: Mapping[str, str]) -> httpx.Response:
        try:
            return self._http.post(**self._post_args(path, fields))  # type: ignore[arg-type]
        except httpx.TransportError as error:
            raise HubConnectionError(f"connection failed: POST {path}") from error


class AsyncHubOAuth(_OAuthBase[httpx.AsyncClient]):
    """`HubOAuth` for asyncio."""

    def _new_http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=30.0)

    async def handle_callback(self, callback: str, pending: AuthorizationRequest) -> OAuthTokens:
        return await self.exchange_code(self._code_of(callback, pending), pending.code_verifier)

    async def exchange_code(self, code: str, code_verifier: str) -> OAuthTokens:
        return await self._request_tokens(self._exchange_form(code, code_verifier))

    async def refresh(self, refresh_token: str) -> OAuthTokens:
        return await self._request_tokens(self._refresh_form(refresh_token))

    async def revoke(self, token: str, hint: TokenHint | None = None) -> None:
        response = await self._post(REVOKE_PATH, self._revoke_form(token, hint))
        if response.is_error:
            raise _oauth_error_of(response)

    async def _request_tokens(self, form: Mapping[str, str]) -> OAuthTokens:
        return _tokens_of(await self._post(TOKEN_PATH, form))

    async def _post(self, path: str, fields: Mapping[str, str]) -> httpx.Response:
        try:
            return await self._http.post(**self._post_args(path, fields))  # type: ignore[arg-type]
        except httpx.TransportError as error:
            raise HubConnectionError(f"connection failed: POST {path}") from error


OnTokens = Callable[[OAuthTokens], None]
AsyncOnTokens = Callable[[OAuthTokens], Awaitable[None] | None]
