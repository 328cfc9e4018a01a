/**
 * Counts requests per key per fixed window. The embedded implementation lives in process memory;
 * a Redis implementation shares counts between API instances. Both must be safe under concurrency
 * (hit returns the count after this request's increment).
 */
/** Whose quota a hit spends: a lease of the shared store belongs to one tier and limit. */
export interface LeaseSubject {
  limit: number;
  tier: string;
}

export interface RateLimitStore {
  /**
   * Counts one request; returns its figure: the count after it (the shared store: the fleet-wide
   * figure of its unit, see RedisRateLimitStore), past `subject.limit` when refused.
   */
  hit(key: string, windowStart: number, windowMs: number, subject: LeaseSubject): number | Promise<number>;
  /** Takes back one hit (a 304 does not count against the quota). */
  refund(key: string, windowStart: number): void | Promise<void>;
  /** Current count without incrementing. */
  peek(key: string, windowStart: number): number | Promise<number>;
  /** For the readiness probe; synchronous (a memory store is always ok). */
  health(): StoreHealth;
  close(): Promise<void>;
}

/** A store's state: `degraded` while its shared backend is unreachable and it counts per instance. */
export interface StoreHealth {
  status: 'ok' | 'degraded';
  detail?: string;
}

export const HEALTHY: StoreHealth = Object.freeze({ status: 'ok' });

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, { windowStart: number; count: number }>();

  hit(key: string, windowStart: number): number {
    const counter = this.counters.get(key);
    if (counter?.windowStart === windowStart) return ++counter.count;
    this.counters.set(key, { windowStart, count: 1 });
    return 1;
  }

  refund(key: string, windowStart: number): void {
    const counter = this.counters.get(key);
    if (counter?.windowStart === windowStart && counter.count > 0) counter.count--;
  }

  peek(key: string, windowStart: number): number {
    const counter = this.counters.get(key);
    return counter?.windowStart === windowStart ? counter.count : 0;
  }

  health(): StoreHealth {
    return HEALTHY;
  }

  close(): Promise<void> {
    this.counters.clear();
    return Promise.resolve();
  }
}
