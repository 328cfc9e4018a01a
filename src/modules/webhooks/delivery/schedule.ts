import type { SendResult } from './send.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Waits before each retry (DESIGN.md, "Events"): about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h,
 * so a delivery is tried 8 times over about 28 hours, and a receiver down for an afternoon still
 * gets everything.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** ± this share of each wait, so the retries of a burst do not all land on a receiver at once. */
export const JITTER = 0.2;
/** A receiver's `Retry-After` is taken up to this long (longer: this long). */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;
/** An endpoint failing without one success for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * HOUR;

/** What happens to a delivery after one attempt. */
export type AttemptOutcome =
  /** 2xx: done */
  | { kind: 'succeeded' }
  /** try again at `at` */
  | { kind: 'retry'; at: number }
  /** every attempt failed: the delivery is over (the log keeps it; redeliver starts it again) */
  | { kind: 'failed' }
  /** 410 Gone: the receiver asked for no more; the endpoint is disabled at once */
  | { kind: 'gone' };

/**
 * The next step for a delivery whose attempt number `attempt` (1 for the first send) ended with
 * `result`, at `now`. `random` gives [0, 1) (injected for tests). A `Retry-After` later than the
 * schedule's wait is honoured (up to 24 h); an earlier one does not make the receiver wait less
 * than the schedule gives it to recover.
 */
export function afterAttempt(
  attempt: number,
  result: SendResult,
  now: number,
  random: () => number = Math.random,
): AttemptOutcome {
  if (result.ok) return { kind: 'succeeded' };
  if (result.status === 410) return { kind: 'gone' };
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return { kind: 'failed' };
  const jittered = Math.round(base * (1 + JITTER * (2 * random() - 1)));
  const asked = result.error === undefined ? result.retryAfterMs : undefined;
  const wait = asked === undefined ? jittered : Math.max(jittered, Math.min(asked, MAX_RETRY_AFTER_MS));
  return { kind: 'retry', at: now + wait };
}

/** Whether an endpoint that has failed since `failingSince` (null: its last delivery succeeded) is to be disabled. */
export const failingTooLong = (failingSince: number | null, now: number): boolean =>
  failingSince !== null && now - failingSince >= DISABLE_AFTER_FAILING_MS;
