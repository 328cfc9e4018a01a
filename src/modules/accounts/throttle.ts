import { isIPv6 } from 'node:net';
import { HEALTHY, type StoreHealth } from '../../http/rate-limit-store.js';

/** One limit to check: at most `limit` attempts of `subject` in a sliding window of `windowMs`. */
export interface ThrottleCheck {
  subject: string;
  limit: number;
  windowMs: number;
}

export type Reservation = { ok: true; ticket: string } | { ok: false; retryAt: number };

/**
 * Counts attempts (sign-ins, sign-ups) per subject in sliding windows. An attempt is reserved before
 * the work it guards (a password hash) runs, in one atomic step over all its subjects: parallel
 * attempts each take a place, so no more than the limit get through. The embedded store lives in
 * process memory; the Redis one shares the counts between API instances.
 */
export interface ThrottleStore {
  /**
   * When every subject is under its limit, records one attempt on each and returns its ticket;
   * otherwise records nothing and says when the last refusing subject allows an attempt again.
   */
  reserve(checks: readonly ThrottleCheck[], now: number): Reservation | Promise<Reservation>;
  /** Takes back one reserved attempt (it turned out not to be a failure). */
  release(subject: string, ticket: string): void | Promise<void>;
  /** Forgets every attempt of a subject. */
  reset(subject: string): void | Promise<void>;
  /** For the readiness probe; synchronous (a memory store is always ok). */
  health(): StoreHealth;
  close(): Promise<void>;
}

export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const SIGN_UP_WINDOW_MS = 3_600_000;

/**
 * Failed sign-ins per account (guessing one password) and per address (spraying many accounts) in
 * 15 minutes; sign-ups per address in an hour.
 */
export const THROTTLE_LIMITS = { account: 5, address: 20, signUp: 5 } as const;

/**
 * The network an address counts for: an IPv4 address itself, an IPv6 address its /64 (one host is
 * usually handed a whole /64, so counting single IPv6 addresses would throttle nothing).
 */
export function networkOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

interface Attempt {
  expiresAt: number;
  ticket: string;
}

const MAX_TRACKED = 10_000;

export class MemoryThrottleStore implements ThrottleStore {
  private readonly attempts = new Map<string, Attempt[]>();
  private sequence = 0;

  /** The attempts of `subject` still inside their window, oldest first. */
  private live(subject: string, now: number): Attempt[] {
    const list = (this.attempts.get(subject) ?? []).filter((a) => a.expiresAt > now);
    if (list.length === 0) this.attempts.delete(subject);
    else this.attempts.set(subject, list);
    return list;
  }

  reserve(checks: readonly ThrottleCheck[], now: number): Reservation {
    let retryAt = 0;
    for (const { subject, limit } of checks) {
      const list = this.live(subject, now);
      // the attempt whose expiry brings the count back under the limit
      const freeing = list[list.length - limit];
      if (freeing) retryAt = Math.max(retryAt, freeing.expiresAt);
    }
    if (retryAt > 0) return { ok: false, retryAt };
    const ticket = `${now}.${++this.sequence}`;
    for (const { subject, windowMs } of checks) {
      this.attempts.set(subject, [...this.live(subject, now), { expiresAt: now + windowMs, ticket }]);
    }
    // Spraying many subjects must not grow memory without bound: drop whatever has expired.
    if (this.attempts.size > MAX_TRACKED) for (const key of [...this.attempts.keys()]) this.live(key, now);
    return { ok: true, ticket };
  }

  release(subject: string, ticket: string): void {
    const list = this.attempts.get(subject)?.filter((a) => a.ticket !== ticket);
    if (list?.length) this.attempts.set(subject, list);
    else this.attempts.delete(subject);
  }

  reset(subject: string): void {
    this.attempts.delete(subject);
  }

  get size(): number {
    return this.attempts.size;
  }

  health(): StoreHealth {
    return HEALTHY;
  }

  close(): Promise<void> {
    this.attempts.clear();
    return Promise.resolve();
  }
}
