import type { FastifyReply, FastifyRequest } from 'fastify';
import { andThen, CONTINUE, isPromise, type MaybePromise } from './pipeline-steps.js';
import { ProblemError } from './problem.js';
import type { RateLimitStore } from './rate-limit-store.js';
import type { AuthenticatedKey, QuotaState } from './request-context.js';

export const WINDOW_MS = 3_600_000;

/** Fixed one-hour windows aligned to the UTC hour. */
export const windowStartOf = (now: number): number => now - (now % WINDOW_MS);

/** The quota headers in the order `quotaHeaderValues` fills them. */
const QUOTA_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-used',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
] as const;

function quotaHeaderValues(limit: number, used: number, resetAt: number, now: number): string[] {
  const remaining = Math.max(0, limit - used);
  const secondsLeft = Math.max(0, Math.ceil((resetAt - now) / 1000));
  return [
    String(limit),
    String(remaining),
    String(Math.min(used, limit)),
    String(Math.ceil(resetAt / 1000)),
    `"hourly";q=${limit};w=${WINDOW_MS / 1000}`,
    `"hourly";r=${remaining};t=${secondsLeft}`,
  ];
}

const quotaHeaders = (limit: number, used: number, resetAt: number, now: number): Record<string, string> => {
  const values = quotaHeaderValues(limit, used, resetAt, now);
  const headers: Record<string, string> = {};
  QUOTA_HEADERS.forEach((name, i) => (headers[name] = values[i] as string));
  return headers;
};

/** Records the count on the request and rejects it past the key's quota. */
function admit(
  request: FastifyRequest,
  key: AuthenticatedKey,
  quota: QuotaState,
  at: number,
  used: number,
): boolean {
  quota.used = used;
  request.quota = quota;
  if (used > key.limit) {
    const retryAfter = Math.max(1, Math.ceil((quota.resetAt - at) / 1000));
    throw new ProblemError(
      'rate_limited',
      `This key's ${key.tier} tier allows ${key.limit} requests per hour; the quota resets in ${retryAfter} s.`,
      { headers: { ...quotaHeaders(key.limit, used, quota.resetAt, at), 'retry-after': String(retryAfter) } },
    );
  }
  return CONTINUE;
}

/** The rate-limit store's counter name for a key. */
export const storeKeyOf = (keyId: number): string => `key:${keyId}`;

/** onRequest step (after authentication): counts the request and rejects it past the quota. */
export function consumeQuotaHook(store: RateLimitStore, now: () => number) {
  return function consumeQuota(request: FastifyRequest, _reply: FastifyReply): MaybePromise<boolean> {
    const key = request.apiKey;
    if (!key) return CONTINUE;
    const at = now();
    const windowStart = windowStartOf(at);
    const quota: QuotaState = {
      limit: key.limit,
      used: 0,
      windowStart,
      resetAt: windowStart + WINDOW_MS,
      storeKey: storeKeyOf(key.id),
    };
    const used = store.hit(quota.storeKey, windowStart, WINDOW_MS);
    if (isPromise(used)) return used.then((count) => admit(request, key, quota, at, count));
    return admit(request, key, quota, at, used);
  };
}

/**
 * Sets the quota headers one by one: this runs on every response, and `reply.headers(object)` would
 * cost an object and a walk over its keys.
 */
function writeQuotaHeaders(reply: FastifyReply, { limit, used, resetAt }: QuotaState, now: number): void {
  const values = quotaHeaderValues(limit, used, resetAt, now);
  for (let i = 0; i < QUOTA_HEADERS.length; i++) reply.header(QUOTA_HEADERS[i] as string, values[i]);
}

/** onSend step (last): reports the quota; a 304 is refunded because it does not count. */
export function quotaHeadersHook(store: RateLimitStore, now: () => number) {
  const write = (reply: FastifyReply, quota: QuotaState, payload: unknown) => {
    writeQuotaHeaders(reply, quota, now());
    return payload;
  };
  return function writeQuotaHeaders(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const quota = request.quota;
    if (!quota || reply.statusCode === 429) return payload;
    if (reply.statusCode !== 304) return write(reply, quota, payload);
    return andThen(store.refund(quota.storeKey, quota.windowStart), () => {
      quota.used--;
      return write(reply, quota, payload);
    });
  };
}
