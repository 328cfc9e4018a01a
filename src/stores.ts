import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import { readDeploymentId } from './db/deployment.js';
import type { Database } from './db/types.js';
import { MemoryRateLimitStore, type RateLimitStore } from './http/rate-limit-store.js';
import { LocalBroadcast, RedisBroadcast, type Broadcast } from './http/broadcast.js';
import { RedisLink, type LinkLogger, type RedisLinkOptions } from './http/redis-link.js';
import { Fleet } from './http/redis-fleet.js';
import { RedisRateLimitStore } from './http/redis-rate-limit-store.js';
import { RedisThrottleStore } from './modules/accounts/redis-throttle-store.js';
import { MemoryThrottleStore, type ThrottleStore } from './modules/accounts/throttle.js';

export type StoresConfig = Partial<
  Pick<Config, 'REDIS_URL' | 'REDIS_PREFIX' | 'REDIS_COMMAND_TIMEOUT_MS' | 'RATE_LIMIT_STORE_FAILURE'>
>;

export interface Stores {
  rateLimitStore: RateLimitStore;
  throttle: ThrottleStore;
  /** messages to every instance (revocations, event wake-ups): Redis pub/sub, or this process */
  broadcast: Broadcast;
  /** the API instances last seen alive (1 without Redis): the fail-open share is 1/this */
  fleetSize(): number;
  /** closes all three and their Redis connections */
  close(): Promise<void>;
}

function stores(
  rateLimitStore: RateLimitStore,
  throttle: ThrottleStore,
  broadcast: Broadcast,
  fleet?: Fleet,
): Stores {
  return {
    rateLimitStore,
    throttle,
    broadcast,
    fleetSize: () => fleet?.size ?? 1,
    close: async () => {
      await broadcast.close();
      await fleet?.stop();
      // the quota store gives its unspent blocks back before the shared connection is closed
      await rateLimitStore.close();
      await throttle.close();
    },
  };
}

/** The Redis prefix of a deployment: REDIS_PREFIX, or one made from the database's own random id. */
export async function redisPrefixFor(config: StoresConfig, db: Kysely<Database>): Promise<string> {
  return config.REDIS_PREFIX ?? `hub:${await readDeploymentId(db)}:`;
}

/**
 * The deployment's Redis link and the pub/sub broadcast over it, once both have answered (or given
 * up: a link that fails open serves from memory meanwhile).
 */
async function redisBroadcast(
  url: string,
  config: StoresConfig,
  deps: {
    db: Kysely<Database>;
    log: LinkLogger;
    onStateChange?: RedisLinkOptions['onStateChange'];
    onFailure?: RedisLinkOptions['onFailure'];
    fleetSize?: RedisLinkOptions['fleetSize'];
  },
): Promise<{ link: RedisLink; prefix: string; broadcast: RedisBroadcast }> {
  const prefix = await redisPrefixFor(config, deps.db);
  const link = new RedisLink({
    ...(deps.fleetSize ? { fleetSize: deps.fleetSize } : {}),
    url,
    failureMode: config.RATE_LIMIT_STORE_FAILURE ?? 'open',
    ...(config.REDIS_COMMAND_TIMEOUT_MS ? { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS } : {}),
    log: deps.log,
    ...(deps.onStateChange ? { onStateChange: deps.onStateChange } : {}),
    ...(deps.onFailure ? { onFailure: deps.onFailure } : {}),
  });
  const broadcast = new RedisBroadcast(link, prefix, deps.log);
  await Promise.all([link.connected(), broadcast.connected()]);
  return { link, prefix, broadcast };
}

/**
 * The broadcast alone, for what runs without the API's stores (`hub worker`): Redis pub/sub under
 * the deployment's prefix with REDIS_URL (its own link, closed with it), else this process only.
 */
export async function openBroadcast(
  config: StoresConfig,
  deps: { db: Kysely<Database>; log: LinkLogger },
): Promise<Broadcast> {
  if (!config.REDIS_URL) return new LocalBroadcast();
  const { link, broadcast } = await redisBroadcast(config.REDIS_URL, config, deps);
  return {
    publish: (topic, message) => broadcast.publish(topic, message),
    subscribe: (topic, handler) => broadcast.subscribe(topic, handler),
    close: async () => {
      await broadcast.close();
      await link.close();
    },
  };
}

/**
 * The quota and throttle stores and the broadcast: in process memory by default; with REDIS_URL,
 * one Redis connection shared by all three (plus the subscriber connection pub/sub needs), so every
 * API instance counts against the same limits and hears the others. A store the caller hands in
 * (`given`) is used as it is.
 */
export async function openStores(
  config: StoresConfig,
  deps: {
    db: Kysely<Database>;
    log: LinkLogger;
    given?: Partial<Stores>;
    /** for readiness and metrics (see RedisLinkOptions) */
    onStateChange?: RedisLinkOptions['onStateChange'];
    onFailure?: RedisLinkOptions['onFailure'];
    /** the instances last seen alive changed (a metrics gauge) */
    onFleetSize?: (size: number) => void;
  },
): Promise<Stores> {
  const { rateLimitStore, throttle } = deps.given ?? {};
  if (!config.REDIS_URL || (rateLimitStore && throttle)) {
    return stores(
      rateLimitStore ?? new MemoryRateLimitStore(),
      throttle ?? new MemoryThrottleStore(),
      new LocalBroadcast(),
    );
  }
  // the link reports the fleet's size in its warning, and the fleet heartbeats through the link
  const known: { fleet?: Fleet } = {};
  const { link, prefix, broadcast } = await redisBroadcast(config.REDIS_URL, config, {
    ...deps,
    fleetSize: () => known.fleet?.size ?? 1,
  });
  const fleet = (known.fleet = new Fleet(link, prefix, deps.onFleetSize));
  await fleet.start();
  return stores(
    rateLimitStore ?? new RedisRateLimitStore(link, prefix, fleet.id, broadcast),
    throttle ?? new RedisThrottleStore(link, prefix),
    broadcast,
    fleet,
  );
}
