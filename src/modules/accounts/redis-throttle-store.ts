import { randomUUID } from 'node:crypto';
import type { Result } from 'ioredis';
import type { StoreHealth } from '../../http/rate-limit-store.js';
import { shareOf } from '../../http/redis-fleet.js';
import type { RedisLink } from '../../http/redis-link.js';
import { MemoryThrottleStore, type Reservation, type ThrottleCheck, type ThrottleStore } from './throttle.js';

/**
 * Check-and-reserve over every subject in one script, so Redis runs it atomically: attempts sent
 * in parallel to several instances still take one place each. A subject is a sorted set of tickets
 * scored by their expiry. KEYS: the subjects' sets; ARGV: now, ticket, then limit and window per key.
 * Returns 0 when reserved, else when the last refusing subject frees a place (epoch ms).
 */
const RESERVE = `
local now = tonumber(ARGV[1])
local retry = 0
for i = 1, #KEYS do
  local limit = tonumber(ARGV[1 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  local count = redis.call('ZCARD', KEYS[i])
  if count >= limit then
    local freeing = redis.call('ZRANGE', KEYS[i], count - limit, count - limit, 'WITHSCORES')
    local at = tonumber(freeing[2])
    if at > retry then retry = at end
  end
end
if retry > 0 then return retry end
for i = 1, #KEYS do
  local window = tonumber(ARGV[2 + 2 * i])
  redis.call('ZADD', KEYS[i], now + window, ARGV[2])
  redis.call('PEXPIRE', KEYS[i], window)
end
return 0
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    hubThrottleReserve(keyCount: number, ...keysThenArgs: (string | number)[]): Result<number, Context>;
  }
}

/**
 * Shares sign-in and sign-up throttles between API instances. While Redis is unreachable the link
 * fails open to this instance's memory counts, each limit divided by the instances last seen alive
 * (or closed, with 503); release and reset are best effort.
 */
export class RedisThrottleStore implements ThrottleStore {
  private readonly fallback = new MemoryThrottleStore();
  private readonly prefix: string;

  /** `prefix`: the deployment's Redis prefix (REDIS_PREFIX); throttle keys live under `<prefix>th:`. */
  constructor(
    private readonly link: RedisLink,
    prefix: string,
  ) {
    this.prefix = `${prefix}th:`;
    link.client.defineCommand('hubThrottleReserve', { lua: RESERVE });
  }

  reserve(checks: readonly ThrottleCheck[], now: number): Reservation | Promise<Reservation> {
    return this.link.use(
      async (redis): Promise<Reservation> => {
        const ticket = randomUUID();
        const keys = checks.map((c) => this.prefix + c.subject);
        const args = checks.flatMap((c) => [c.limit, c.windowMs]);
        const retryAt = await redis.hubThrottleReserve(keys.length, ...keys, now, ticket, ...args);
        return retryAt > 0 ? { ok: false, retryAt } : { ok: true, ticket };
      },
      // counting alone: this instance's share of each limit (see Fleet), at least one attempt
      () =>
        this.fallback.reserve(
          checks.map((c) => ({ ...c, limit: shareOf(c.limit, this.link.fleetSize()) })),
          now,
        ),
    );
  }

  release(subject: string, ticket: string): void | Promise<void> {
    return this.link.use(
      async (redis) => {
        await redis.zrem(this.prefix + subject, ticket);
      },
      () => this.fallback.release(subject, ticket),
      'open',
    );
  }

  reset(subject: string): void | Promise<void> {
    return this.link.use(
      async (redis) => {
        await redis.del(this.prefix + subject);
      },
      () => this.fallback.reset(subject),
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
