/**
 * Counts failed sign-ins per subject (an account or an address) in a sliding window. The embedded
 * store lives in process memory; a shared (Redis) store can implement the same interface.
 */
export interface LoginThrottleStore {
  /** Failures of `subject` still inside the window, and when the oldest of them expires. */
  failures(
    subject: string,
    now: number,
  ): { count: number; retryAt: number } | Promise<{ count: number; retryAt: number }>;
  recordFailure(subject: string, now: number): void | Promise<void>;
  reset(subject: string): void | Promise<void>;
}

export const THROTTLE_WINDOW_MS = 15 * 60_000;
const MAX_TRACKED = 10_000;

export class MemoryLoginThrottleStore implements LoginThrottleStore {
  private readonly attempts = new Map<string, number[]>();
  constructor(private readonly windowMs = THROTTLE_WINDOW_MS) {}

  private live(subject: string, now: number): number[] {
    const list = (this.attempts.get(subject) ?? []).filter((at) => at > now - this.windowMs);
    if (list.length === 0) this.attempts.delete(subject);
    else this.attempts.set(subject, list);
    return list;
  }

  failures(subject: string, now: number): { count: number; retryAt: number } {
    const list = this.live(subject, now);
    return { count: list.length, retryAt: (list[0] ?? now) + this.windowMs };
  }

  recordFailure(subject: string, now: number): void {
    this.attempts.set(subject, [...this.live(subject, now), now]);
    // Spraying many usernames must not grow memory without bound: drop whatever has expired.
    if (this.attempts.size > MAX_TRACKED) for (const key of [...this.attempts.keys()]) this.live(key, now);
  }

  get size(): number {
    return this.attempts.size;
  }

  reset(subject: string): void {
    this.attempts.delete(subject);
  }
}

/** Limits per window: per account (guessing one password) and per address (spraying many accounts). */
export const THROTTLE_LIMITS = { account: 5, address: 20 } as const;
