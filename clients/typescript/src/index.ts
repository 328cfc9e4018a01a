export {
  HubClient,
  type HubClientOptions,
  type CallOptions,
  type Conditional,
  type ResponseOf,
} from './client.js';
export type { Credentials, OAuthCredentials } from './credentials.js';
export {
  HubError,
  HubApiError,
  HubConnectionError,
  HubTimeoutError,
  HubDecodeError,
  type Problem,
  type ProblemLike,
} from './errors.js';
export { HubErrorCode, WEBHOOK_EVENT_TYPES } from './generated/metadata.js';
export type { paths, components, operations, webhooks } from './generated/schema.js';
export {
  HubOAuth,
  OAuthError,
  OAUTH_PATHS,
  pkceChallenge,
  type OAuthTokens,
  type OAuthClientOptions,
  type AuthorizationRequest,
} from './oauth.js';
export type { ItemOf, PagedPath } from './paging.js';
export type { RateLimitState } from './rate-limit.js';
export { EventStream, type EventStreamOptions } from './stream.js';
export type { RequestSettings, RetryTiming } from './transport.js';
export { VERSION, USER_AGENT } from './version.js';
export {
  WebhookVerifier,
  WebhookVerificationError,
  type HubEvent,
  type HubEventMap,
  type HubEventType,
  type WebhookVerifierOptions,
} from './webhooks.js';
