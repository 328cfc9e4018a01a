"""Python client for the Gaming Hub API: typed models generated from its OpenAPI document,
retries, paging, OAuth with PKCE, webhook verification and the live event stream.
`HubClient` blocks; `AsyncHubClient` is its asyncio twin."""

from ._core import RetryTiming
from ._generated import models
from ._generated.events import EVENT_MODELS, HubEvent
from ._generated.metadata import WEBHOOK_EVENT_TYPES, ErrorCode
from ._rate_limit import RateLimit
from ._version import USER_AGENT, VERSION
from .async_client import AsyncEventStream, AsyncHubClient
from .client import Conditional, EventStream, HubClient
from .errors import HubAPIError, HubConnectionError, HubDecodeError, HubError, HubTimeoutError
from .oauth import AsyncHubOAuth, AuthorizationRequest, HubOAuth, OAuthError, OAuthTokens, pkce_challenge
from .webhooks import WebhookVerificationError, WebhookVerifier, parse_event

__version__ = VERSION
__all__ = [
    "EVENT_MODELS",
    "USER_AGENT",
    "VERSION",
    "WEBHOOK_EVENT_TYPES",
    "AsyncEventStream",
    "AsyncHubClient",
    "AsyncHubOAuth",
    "AuthorizationRequest",
    "Conditional",
    "ErrorCode",
    "EventStream",
    "HubAPIError",
    "HubClient",
    "HubConnectionError",
    "HubDecodeError",
    "HubError",
    "HubEvent",
    "HubOAuth",
    "HubTimeoutError",
    "OAuthError",
    "OAuthTokens",
    "RateLimit",
    "RetryTiming",
    "WebhookVerificationError",
    "WebhookVerifier",
    "models",
    "parse_event",
    "pkce_challenge",
]
