import type * as App from '../src/app.js';
import type * as Config from '../src/config.js';
import type * as Link from '../src/http/redis-link.js';
import type * as LeaseStore from '../src/http/redis-rate-limit-store.js';
import type { RateLimitStore } from '../src/http/rate-limit-store.js';
import type * as Startup from '../src/startup.js';

/**
 * One API instance of bench/quota.ts and bench/shared.ts: the service as `hub serve` builds it (from
 * the build, config from the environment, REDIS_URL set), instrumented from outside the source: every
 * command through the Redis link is timed from the call to its answer, as the link's timeout sees it
 * (event-loop delay included), and the quota store's round trips are counted. With `per-request` as
 * its first argument the quota store is the one the service had before leases (one MULTI of INCR
 * and PEXPIRE per request, below), the baseline of the round-trip count. Answers `stats` messages
 * with what it measured since the last `reset`.
 */
const dist = (path: string) => import(new URL(`../dist/${path}`, import.meta.url).href);
const { buildApp } = (await dist('app.js')) as typeof App;
const { loadConfig } = (await dist('config.js')) as typeof Config;
const { RedisLink } = (await dist('http/redis-link.js')) as typeof Link;
const { RedisRateLimitStore } = (await dist('http/redis-rate-limit-store.js')) as typeof LeaseStore;
const { openDatabase } = (await dist('startup.js')) as typeof Startup;

/** Redis command latencies (ms) since the last reset: the first MAX_SAMPLES of them, so a long run's memory stays bounded. */
const MAX_SAMPLES = 200_000;
let latencies: number[] = [];
const counted = new Set<{ roundTrips: number }>();

type Use = Link.RedisLink['use'];
// The bench wraps the built classes' methods from outside (the source carries no timing code): each
// original is called with the instance as `this`.
// eslint-disable-next-line @typescript-eslint/unbound-method
const originalUse = RedisLink.prototype.use;
RedisLink.prototype.use = function timedUse(this: Link.RedisLink, viaRedis, fallback, mode) {
  const sentAt = performance.now();
  return originalUse.call(
    this,
    async (client) => {
      const value = await viaRedis(client);
      if (latencies.length < MAX_SAMPLES) latencies.push(performance.now() - sentAt);
      return value;
    },
    fallback,
    mode,
  );
} as Use;
// eslint-disable-next-line @typescript-eslint/unbound-method
const originalHit = RedisRateLimitStore.prototype.hit;
RedisRateLimitStore.prototype.hit = function countedHit(this: LeaseStore.RedisRateLimitStore, ...args) {
  counted.add(this);
  return originalHit.apply(this, args);
};

/** The quota store before leases (src/http/redis-rate-limit-store.ts at c601550^), for its round trips. */
class PerRequestStore implements RateLimitStore {
  roundTrips = 0;
  constructor(
    private readonly link: Link.RedisLink,
    private readonly prefix: string,
  ) {}

  hit(key: string, windowStart: number, windowMs: number): number | Promise<number> {
    const redisKey = `${this.prefix}${key}:${windowStart}`;
    this.roundTrips++;
    return this.link.use(
      async (redis) => {
        const result = await redis
          .multi()
          .incr(redisKey)
          .pexpire(redisKey, windowMs + 60_000, 'NX')
          .exec();
        return Number(result?.[0]?.[1] ?? 0);
      },
      () => 1,
    );
  }

  refund(): void {}
  peek(): number {
    return 0;
  }
  health() {
    return this.link.health();
  }
  async close(): Promise<void> {
    await this.link.close();
  }
}

const config = loadConfig();
const db = await openDatabase(config.DATABASE_URL);
let rateLimitStore: RateLimitStore | undefined;
if (process.argv[2] === 'per-request') {
  if (!config.REDIS_URL) throw new Error('per-request needs REDIS_URL');
  const link = new RedisLink({ url: config.REDIS_URL, commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
  await link.connected();
  const store = new PerRequestStore(link, `${config.REDIS_PREFIX ?? 'bench:'}rl-per-request:`);
  counted.add(store);
  rateLimitStore = store;
}
const app = await buildApp({ db, config, ...(rateLimitStore ? { rateLimitStore } : {}) });
// Node's own listen (see bench/pipeline-server.ts: no docs-bundle compression at start)
app.server.listen(0, '127.0.0.1', () => {
  const address = app.server.address();
  if (address && typeof address === 'object') process.send?.(`http://127.0.0.1:${address.port}`);
});

const sum = (values: Iterable<{ roundTrips: number }>) => [...values].reduce((n, s) => n + s.roundTrips, 0);
let tripsAtReset = 0;
process.on('message', (message) => {
  if (message === 'reset') {
    latencies = [];
    tripsAtReset = sum(counted);
    process.send?.({ reset: true });
  } else if (message === 'stats') {
    process.send?.({ roundTrips: sum(counted) - tripsAtReset, latencies });
  }
});
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => rateLimitStore?.close())
    .then(() => db.close())
    .then(() => process.exit(0));
});
