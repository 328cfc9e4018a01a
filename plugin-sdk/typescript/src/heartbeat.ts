import { retryAfterMs } from './backoff.js';

/**
 * When the next heartbeat goes (plugin-sdk/vectors/commands.json, "heartbeat"): the hub's interval
 * after a 200; after a failure the usual interval too (a heartbeat is a fresh status, an old one is
 * worth nothing), unless the hub's Retry-After asks for longer.
 */
export function nextHeartbeat(
  intervalS: number,
  status: number | 'network error' | 'timeout',
  body: unknown,
  retryAfter: string | null,
  now: number,
): { intervalS: number; delayMs: number } {
  if (status === 200) {
    const asked = (body as { heartbeat_interval_s?: unknown } | undefined)?.heartbeat_interval_s;
    const next = typeof asked === 'number' && asked > 0 ? asked : intervalS;
    return { intervalS: next, delayMs: next * 1000 };
  }
  return { intervalS, delayMs: Math.max(intervalS * 1000, retryAfterMs(retryAfter, now) ?? 0) };
}
