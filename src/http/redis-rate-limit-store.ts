import { Redis } from 'ioredis';
import type { RateLimitStore } from './rate-limit-store.js';

/**
 * Shares quota counters between API instances. One key per (API key, window); INCR is atomic, and
 * the key expires one window (plus a minute) after its first hit, so Redis holds only current counters.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'hub:rl:',
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  }

  private keyFor(key: string, windowStart: number): string {
    return `${this.prefix}${key}:${windowStart}`;
  }

  async hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    const redisKey = this.keyFor(key, windowStart);
    const result = await this.redis
      .multi()
      .incr(redisKey)
      .pexpire(redisKey, windowMs + 60_000, 'NX')
      .exec();
    const [error, count] = result?.[0] ?? [new Error('empty reply'), 0];
    if (error) throw error;
    return Number(count);
  }

  async refund(key: string, windowStart: number): Promise<void> {
    await this.redis.decr(this.keyFor(key, windowStart));
  }

  async peek(key: string, windowStart: number): Promise<number> {
    return Number((await this.redis.get(this.keyFor(key, windowStart))) ?? 0);
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
