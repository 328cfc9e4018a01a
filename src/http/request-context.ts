import type { Tier } from '../modules/keys/tiers.js';
import type { Scope } from './scopes.js';
import type { RequestSeries } from './request-series.js';

/** Whose hourly quota a request spends: an API key's, or an OAuth app's for one user. */
export interface QuotaSubject {
  /** the rate-limit store's counter name */
  storeKey: string;
  tier: Tier;
  /** requests per hour: the operator's override, or the tier's quota */
  limit: number;
  /** how the 429 names the subject: "key" or "app" */
  noun: 'key' | 'app';
}

export interface AuthenticatedKey extends QuotaSubject {
  id: number;
  userId: number | null;
  /** the browser origins the key may be used from; null: any */
  allowedOrigins: readonly string[] | null;
}

/**
 * Who calls a bearer route (/v1): `user` is an OAuth access token acting for a hub user; `app`
 * is an API key or a client_credentials token (public data only).
 */
export interface Principal {
  kind: 'user' | 'app';
  /** the hub user an OAuth token acts for (null in app context) */
  userId: number | null;
  /** the registered OAuth app (null for an API key) */
  appId: number | null;
  /** the API key (null for an OAuth token) */
  keyId: number | null;
  scopes: ReadonlySet<Scope>;
}

export interface QuotaState {
  limit: number;
  used: number;
  windowStart: number;
  resetAt: number;
  storeKey: string;
}

export interface CachedResponse {
  /** encoded once, so a hit costs no UTF-8 encoding of the body */
  payload: Buffer;
  /** the payload's length, as the content-length header (made once) */
  contentLength: string;
  etag: string;
  contentType: string;
  expiresAt: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * 'apiKey': the route needs a valid `x-api-key` (the published API); 'bearer': an
     * `Authorization: Bearer` OAuth access token or API key (the /v1 surface). Both count
     * against the hourly quota.
     */
    auth?: 'apiKey' | 'bearer';
    /** bearer routes: the scope the credential must hold (403 insufficient_scope otherwise) */
    scope?: Scope;
    /** bearer routes that act for a signed-in user: an API key or app token gets 403 */
    userContext?: boolean;
    /** serve from the response cache and answer conditional requests with ETag/304 */
    cache?: boolean;
    /** how deep a JSON body may nest arrays and objects (default 32; see json-body.ts) */
    maxJsonDepth?: number;
    /**
     * the route answers errors in its protocol's own format (the OAuth endpoints: RFC 6749 JSON), as
     * its schema documents them, rather than as problem documents
     */
    protocolErrors?: boolean;
  }
  interface FastifyRequest {
    apiKey?: AuthenticatedKey;
    /** set on bearer routes once the credential is accepted */
    principal?: Principal;
    /** whose quota this request spends (set by either authentication step) */
    quotaSubject?: QuotaSubject;
    quota?: QuotaState;
    /** answered from the response cache: its ETag and body are already set */
    servedFromCache?: boolean;
    /** the pattern of the route a 405 was answered for (unmatched requests have no routeOptions.url) */
    routePattern?: string;
    /** where the request is counted and timed, when its route named it up front (the pipeline's) */
    metricsSeries?: RequestSeries;
  }
}
