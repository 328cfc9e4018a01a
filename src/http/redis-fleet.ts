import { randomBytes } from 'node:crypto';
import type { Result } from 'ioredis';
import type { RedisLink } from './redis-link.js';

/**
 * Registers one instance as alive until now + ttl (Redis's clock: instances' clocks may differ),
 * forgets the instances whose registration ran out, and returns how many are alive.
 * KEYS: the fleet's sorted set; ARGV: instance id, ttl ms (0: leaving).
 */
const BEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    hubFleetBeat(keyCount: 1, key: string, id: string, ttlMs: number): Result<number, Context>;
  }
}

/** An instance's part of a limit while it counts alone: limit ÷ instances, at least 1. */
export const shareOf = (limit: number, instances: number): number =>
  Math.max(1, Math.floor(limit / Math.max(1, instances)));

/**
 * How often each API instance says it is alive, and how long one that stopped saying so still
 * counts: generous, since a busy instance can miss beats, and counting one too many only makes the
 * fail-open share smaller (a clean shutdown leaves at once).
 */
export const HEARTBEAT_MS = 1000;
export const HEARTBEAT_TTL_MS = 10_000;

/**
 * The API instances of one deployment, as each heartbeats into Redis while it can. While Redis is
 * unreachable an instance counts alone and allows 1/`size` of each limit: the number of instances
 * it last saw alive, so an outage does not multiply anybody's quota by the fleet size.
 */
export class Fleet {
  /** this instance's id in Redis (lease holders and heartbeats) */
  readonly id = randomBytes(6).toString('hex');
  /** 0 until the first heartbeat answers */
  private alive = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly key: string;

  constructor(
    private readonly link: RedisLink,
    prefix: string,
    private readonly onSize?: (size: number) => void,
  ) {
    this.key = `${prefix}instances`;
    link.client.defineCommand('hubFleetBeat', { lua: BEAT });
  }

  /** Instances last seen alive, this one included (1 before the first heartbeat). */
  get size(): number {
    return Math.max(1, this.alive);
  }

  /** First heartbeat now (awaited: the size is known before the instance serves), then every second. */
  async start(): Promise<void> {
    await this.beat(HEARTBEAT_TTL_MS);
    this.timer = setInterval(() => void this.beat(HEARTBEAT_TTL_MS), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Leaves the fleet at once (a clean shutdown), so the others' share grows without waiting. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beat(0);
  }

  private async beat(ttlMs: number): Promise<void> {
    const size = await this.link.use(
      (client) => client.hubFleetBeat(1, this.key, this.id, ttlMs),
      () => this.alive,
      'open',
    );
    if (size > 0 && ttlMs > 0 && size !== this.alive) {
      this.alive = size;
      this.onSize?.(size);
    }
  }
}
