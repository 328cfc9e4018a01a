import type { FastifyReply, FastifyRequest } from 'fastify';
import { andThen, CONTINUE, isPromise, type MaybePromise } from './pipeline-steps.js';
import { ProblemError } from './problem.js';
import type { RateLimitStore } from './rate-limit-store.js';
import type { QuotaState, QuotaSubject } from './request-context.js';

export const WINDOW_MS = 3_600_000;

/** Fixed one-hour windows aligned to the UTC hour. */
export const windowStartOf = (now: number): number => now - (now % WINDOW_MS);

/**
 * Hands each quota header to `set`: the one place their names and values are written, for every
 * response (set straight on the reply: no object built and walked per response) and for a 429.
 */
export function eachQuotaHeader(
  { limit, used, resetAt }: QuotaState,
  now: number,
  set: (name: string, value: string) => void,
): void {
  const remaining = Math.max(0, limit - used);
  set('x-ratelimit-limit', String(limit));
  set('x-ratelimit-remaining', String(remaining));
  set('x-ratelimit-used', String(Math.min(used, limit)));
  set('x-ratelimit-reset', String(Math.ceil(resetAt / 1000)));
  set('ratelimit-policy', `"hourly";q=${limit};w=${WINDOW_MS / 1000}`);
  set('ratelimit', `"hourly";r=${remaining};t=${Math.max(0, Math.ceil((resetAt - now) / 1000))}`);
}

/** Records the count on the request and rejects it past the key's quota. */
function admit(
  request: FastifyRequest,
  key: QuotaSubject,
  quota: QuotaState,
  at: number,
  used: number,
  onReject: ((subject: QuotaSubject) => void) | undefined,
): boolean {
  quota.used = used;
  request.quota = quota;
  if (used > key.limit) {
    onReject?.(key);
    const retryAfter = Math.max(1, Math.ceil((quota.resetAt - at) / 1000));
    const headers: Record<string, string> = {};
    eachQuotaHeader(quota, at, (name, value) => {
      headers[name] = value;
    });
    headers['retry-after'] = String(retryAfter);
    throw new ProblemError(
      'rate_limited',
      `This ${key.noun}'s ${key.tier} tier allows ${key.limit} requests per hour; the quota resets in ${retryAfter} s.`,
      { headers },
    );
  }
  return CONTINUE;
}

/** The rate-limit store's counter name for a key. */
export const storeKeyOf = (keyId: number): string => `key:${keyId}`;

/** The counter of an OAuth app acting for one user (or for itself: user 0). */
export const appStoreKeyOf = (appId: number, userId: number | null): string => `app:${appId}:${userId ?? 0}`;

/**
 * onRequest step (after authentication): counts the request and rejects it past the subject's
 * quota, telling `onReject` (metrics) first.
 */
export function consumeQuotaHook(
  store: RateLimitStore,
  now: () => number,
  onReject?: (subject: QuotaSubject) => void,
) {
  return function consumeQuota(request: FastifyRequest, _reply: FastifyReply): MaybePromise<boolean> {
    const key = request.quotaSubject;
    if (!key) return CONTINUE;
    const at = now();
    const windowStart = windowStartOf(at);
    const quota: QuotaState = {
      limit: key.limit,
      used: 0,
      windowStart,
      resetAt: windowStart + WINDOW_MS,
      storeKey: key.storeKey,
    };
    const used = store.hit(quota.storeKey, windowStart, WINDOW_MS);
    if (isPromise(used)) return used.then((count) => admit(request, key, quota, at, count, onReject));
    return admit(request, key, quota, at, used, onReject);
  };
}

/** onSend step (last): reports the quota; a 304 is refunded because it does not count. */
export function quotaHeadersHook(store: RateLimitStore, now: () => number) {
  const write = (reply: FastifyReply, quota: QuotaState, payload: unknown) => {
    eachQuotaHeader(quota, now(), (name, value) => {
      reply.header(name, value);
    });
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
