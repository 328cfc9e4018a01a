import { MemoryRateLimitStore, type RateLimitStore, type StoreHealth } from './rate-limit-store.js';
import type { RedisLink } from './redis-link.js';

/**
 * Shares quota counters between API instances. One key per (counter, window); INCR is atomic, and
 * the key expires one window (plus a minute) after its first hit, so Redis holds only current
 * counters. While Redis is unreachable the link fails open to this instance's memory counters (or
 * closed, with 503); a refund or a peek is best effort and always falls back.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly fallback = new MemoryRateLimitStore();
  private readonly prefix: string;

  /** `prefix`: the deployment's Redis prefix (REDIS_PREFIX); quota keys live under `<prefix>rl:`. */
  constructor(
    private readonly link: RedisLink,
    prefix: string,
  ) {
    this.prefix = `${prefix}rl:`;
  }

  private keyFor(key: string, windowStart: number): string {
    return `${this.prefix}${key}:${windowStart}`;
  }

  hit(key: string, windowStart: number, windowMs: number): number | Promise<number> {
    const redisKey = this.keyFor(key, windowStart);
    return this.link.use(
      async (redis) => {
        const result = await redis
          .multi()
          .incr(redisKey)
          .pexpire(redisKey, windowMs + 60_000, 'NX')
          .exec();
        const [error, count] = result?.[0] ?? [new Error('empty reply'), 0];
        if (error) throw error;
        return Number(count);
      },
      () => this.fallback.hit(key, windowStart),
    );
  }

  refund(key: string, windowStart: number): void | Promise<void> {
    return this.link.use(
      async (redis) => {
        await redis.decr(this.keyFor(key, windowStart));
      },
      () => this.fallback.refund(key, windowStart),
      'open',
    );
  }

  peek(key: string, windowStart: number): number | Promise<number> {
    return this.link.use(
      async (redis) => Number((await redis.get(this.keyFor(key, windowStart))) ?? 0),
      () => this.fallback.peek(key, windowStart),
      'open',
    );
  }

  health(): StoreHealth {
    return this.link.health();
  }

  async close(): Promise<void> {
    await this.fallback.close();
    await this.link.close();
  }
}
