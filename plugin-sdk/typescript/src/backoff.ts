/**
 * How long to wait before a retry (plugin-sdk/vectors/backoff.json): exponential with full jitter,
 * bounded below so a failing hub is never hammered and above so a recovered hub is found soon;
 * the hub's Retry-After, when it gives one, wins (bounded below all the same).
 */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  minMs: number;
  maxRetryAfterMs: number;
}
export const BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000, minMs: 100, maxRetryAfterMs: 3_600_000 };

const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** Retry-After as a wait in ms (delta-seconds or an HTTP-date), or undefined when it does not parse. */
export function retryAfterMs(
  header: string | null | undefined,
  now: number,
  options: BackoffOptions = BACKOFF,
): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  let ms: number | undefined;
  if (/^\d+$/.test(value)) ms = Number(value) * 1000;
  else if (IMF_FIXDATE.test(value)) {
    const at = Date.parse(value);
    if (Number.isFinite(at)) ms = Math.max(0, at - now);
  }
  return ms === undefined ? undefined : Math.min(options.maxRetryAfterMs, ms);
}

/** The wait before retry number `attempt` (1 = the first retry); `random` is uniform in [0, 1). */
export function backoffDelay(
  attempt: number,
  random: number,
  retryAfter?: string | null,
  now: number = Date.now(),
  options: BackoffOptions = BACKOFF,
): number {
  const honoured = retryAfterMs(retryAfter, now, options);
  // the floor holds for the hub's wait too: a hub answering `Retry-After: 0` forever is not hammered
  if (honoured !== undefined) return Math.max(options.minMs, honoured);
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(Math.max(attempt, 1) - 1, 30));
  return Math.max(options.minMs, Math.floor(random * ceiling));
}
