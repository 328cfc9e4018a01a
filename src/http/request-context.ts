import type { Tier } from '../modules/keys/tiers.js';

export interface AuthenticatedKey {
  id: number;
  userId: number | null;
  tier: Tier;
  /** requests per hour for this key: the operator's override, or the tier's quota */
  limit: number;
  /** the rate-limit store's counter the key spends: its account's (see sharesAccountQuota) or its own */
  storeKey: string;
  /** how the 429 names whose quota it is */
  noun: 'key' | 'account';
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
  etag: string;
  contentType: string;
  expiresAt: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'apiKey': the route needs a valid `x-api-key` and counts against its hourly quota */
    auth?: 'apiKey';
    /** serve from the response cache and answer conditional requests with ETag/304 */
    cache?: boolean;
  }
  interface FastifyRequest {
    apiKey?: AuthenticatedKey;
    quota?: QuotaState;
    /** answered from the response cache: its ETag and body are already set */
    servedFromCache?: boolean;
    /** the pattern of the route a 405 was answered for (unmatched requests have no routeOptions.url) */
    routePattern?: string;
  }
}
