/**
 * Which event times ingest takes. Game servers stamp their own lines and plugins their own events,
 * so a time is the sender's word: one far in the future would stay on top of the kill feed, one
 * far in the past could not be recognised as a resend once its fingerprint is gone. Both are
 * refused, alone, with a reason.
 */
export const MAX_FUTURE_MS = 5 * 60_000;
export const DAY_MS = 86_400_000;
export const DEFAULT_MAX_AGE_DAYS = 7;

export interface TimeWindow {
  /** lines and events older than this (by their own time) are refused */
  maxAgeMs: number;
}

export const timeWindow = (maxAgeDays = DEFAULT_MAX_AGE_DAYS): TimeWindow => ({
  maxAgeMs: maxAgeDays * DAY_MS,
});

const iso = (at: number) => {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? String(at) : d.toISOString();
};

/** Why `at` is refused at `now`, or null when it is inside the window. */
export function outsideWindow(window: TimeWindow, at: number, now: number): string | null {
  if (!Number.isFinite(at)) return 'invalid time';
  if (at > now + MAX_FUTURE_MS) {
    return `dated ${iso(at)}, more than ${MAX_FUTURE_MS / 60_000} minutes ahead of the service clock`;
  }
  if (at < now - window.maxAgeMs) {
    return `dated ${iso(at)}, before the ingest window (the last ${Math.round(window.maxAgeMs / DAY_MS)} days)`;
  }
  return null;
}

/** The oldest time a stored fingerprint or client id can still be needed for. */
export const windowStart = (window: TimeWindow, now: number): number => now - window.maxAgeMs - MAX_FUTURE_MS;
