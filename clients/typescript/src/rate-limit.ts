/** The quota state the hub sent with the last response that carried one. */
export interface RateLimitState {
  /** requests allowed in the current window */
  limit: number;
  /** requests left in the current window */
  remaining: number;
  /** when the window ends and the quota resets */
  reset: Date;
}

const int = (value: string | null): number | undefined => {
  if (value === null || !/^\d+$/.test(value)) return undefined;
  return Number(value);
};

/** The state the headers tell, or undefined when they carry none (a /v1 answer without quota headers). */
export function rateLimitOf(headers: Headers): RateLimitState | undefined {
  const limit = int(headers.get('x-ratelimit-limit'));
  const remaining = int(headers.get('x-ratelimit-remaining'));
  const reset = int(headers.get('x-ratelimit-reset'));
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return { limit, remaining, reset: new Date(reset * 1000) };
}

/** Milliseconds `Retry-After` asks to wait (seconds or an HTTP date), or the quota's reset on a 429. */
export function retryAfterMs(headers: Headers, status: number, now: number): number | undefined {
  const value = headers.get('retry-after');
  if (value !== null) {
    if (/^\d+$/.test(value)) return Number(value) * 1000;
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  if (status === 429) {
    const reset = int(headers.get('x-ratelimit-reset'));
    if (reset !== undefined) return Math.max(0, reset * 1000 - now);
  }
  return undefined;
}
