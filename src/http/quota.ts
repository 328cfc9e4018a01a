import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from './problem.js';
import type { RateLimitStore } from './rate-limit-store.js';

export const WINDOW_MS = 3_600_000;

/** Fixed one-hour windows aligned to the UTC hour. */
export const windowStartOf = (now: number): number => now - (now % WINDOW_MS);

function quotaHeaders(limit: number, used: number, resetAt: number, now: number): Record<string, string> {
  const remaining = Math.max(0, limit - used);
  const secondsLeft = Math.max(0, Math.ceil((resetAt - now) / 1000));
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-used': String(Math.min(used, limit)),
    'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
    'ratelimit-policy': `"hourly";q=${limit};w=${WINDOW_MS / 1000}`,
    ratelimit: `"hourly";r=${remaining};t=${secondsLeft}`,
  };
}

/** onRequest hook (after authentication): counts the request and rejects it past the quota. */
export function consumeQuotaHook(store: RateLimitStore, now: () => number) {
  return async function consumeQuota(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const key = request.apiKey;
    if (!key) return;
    const at = now();
    const windowStart = windowStartOf(at);
    const storeKey = `key:${key.id}`;
    const used = await store.hit(storeKey, windowStart, WINDOW_MS);
    const resetAt = windowStart + WINDOW_MS;
    request.quota = { limit: key.limit, used, windowStart, resetAt, storeKey };
    if (used > key.limit) {
      const retryAfter = Math.max(1, Math.ceil((resetAt - at) / 1000));
      throw new ProblemError(
        'rate_limited',
        `This key's ${key.tier} tier allows ${key.limit} requests per hour; the quota resets in ${retryAfter} s.`,
        { headers: { ...quotaHeaders(key.limit, used, resetAt, at), 'retry-after': String(retryAfter) } },
      );
    }
  };
}

/** onSend hook (last): reports the quota; a 304 is refunded because it does not count. */
export function quotaHeadersHook(store: RateLimitStore, now: () => number) {
  return async function writeQuotaHeaders(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const quota = request.quota;
    if (!quota || reply.statusCode === 429) return payload;
    if (reply.statusCode === 304) {
      await store.refund(quota.storeKey, quota.windowStart);
      quota.used--;
    }
    reply.headers(quotaHeaders(quota.limit, quota.used, quota.resetAt, now()));
    return payload;
  };
}
