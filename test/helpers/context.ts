import { isIP } from 'node:net';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import type { Dialect } from '../../src/db/connect.js';
import type { SecretKey } from '../../src/engines/secret-box.js';
import type { AccessTokenVerifier } from '../../src/http/access-tokens.js';
import type { RateLimitStore } from '../../src/http/rate-limit-store.js';
import type { ThrottleStore } from '../../src/modules/accounts/throttle.js';
import type { Resolver } from '../../src/modules/webhooks/delivery/ssrf.js';
import { openTestDb, type TestDb } from './db.js';
import { factories, type Factories } from './factories.js';

export interface TestContext extends Factories {
  app: FastifyInstance;
  testDb: TestDb;
  /** a partner-tier key, so ordinary tests never hit a quota */
  key: string;
  /** GET under /api-platform/v1 with the context's key */
  get(path: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface ContextOptions {
  now?: () => number;
  cacheTtlMs?: number;
  rateLimitStore?: RateLimitStore;
  throttle?: ThrottleStore;
  usageFlushMs?: number;
  /** OAuth access tokens for /v1 routes (a TokenTable in tests of the pipeline's own rules) */
  accessTokens?: AccessTokenVerifier;
  /** short request timeouts, for tests that wait for them on a listening server */
  timeouts?: Pick<Config, 'REQUEST_HEADERS_TIMEOUT_MS' | 'REQUEST_TIMEOUT_MS'>;
  /** WEBHOOKS_ALLOW_PRIVATE_TARGETS: webhooks to local receivers */
  allowPrivateTargets?: boolean;
  /** HUB_SECRET_KEY: seals RCON passwords (server commands answer 503 without one) */
  secretKey?: SecretKey;
  /** RCON_TIMEOUT_MS, short for tests of slow game servers */
  rconTimeoutMs?: number;
  /** resolves webhook hosts at registration (default: fakeDns(), so no test reaches a real DNS server) */
  lookup?: Resolver;
  /** told of every route the app adds (its route table) */
  onRoute?: AppDeps['onRoute'];
  /** KEY_CACHE_MS (PostgreSQL: how long a looked-up key is remembered) */
  keyCacheMs?: number;
}

/** An address outside every forbidden range (example.com's), for names that tests treat as public. */
export const PUBLIC_ADDRESS = '93.184.215.14';

/**
 * A resolver for tests: the names given resolve as given, `localhost` to 127.0.0.1 (as a hosts
 * file says), a name ending in `.invalid` does not resolve (ENOTFOUND), any other to PUBLIC_ADDRESS.
 */
export function fakeDns(names: Record<string, string[]> = {}): Resolver {
  return (host) => {
    const given = Object.hasOwn(names, host) ? names[host] : undefined;
    const addresses =
      given ?? (host === 'localhost' ? ['127.0.0.1'] : host.endsWith('.invalid') ? [] : [PUBLIC_ADDRESS]);
    if (addresses.length === 0)
      return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(addresses.map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 })));
  };
}

/** A fresh migrated database, the app built on it, and factories. */
export async function createTestContext(
  dialect: Dialect,
  options: ContextOptions = {},
): Promise<TestContext> {
  const testDb = await openTestDb(dialect);
  const app = await buildApp({
    db: testDb.db,
    config: {
      LOG_LEVEL: 'silent',
      CACHE_TTL_MS: options.cacheTtlMs ?? 0,
      TRUST_PROXY: false,
      ...options.timeouts,
      ...(options.allowPrivateTargets ? { WEBHOOKS_ALLOW_PRIVATE_TARGETS: true } : {}),
      ...(options.rconTimeoutMs ? { RCON_TIMEOUT_MS: options.rconTimeoutMs } : {}),
      ...(options.keyCacheMs ? { KEY_CACHE_MS: options.keyCacheMs } : {}),
    },
    ...(options.secretKey ? { secretKey: options.secretKey } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.rateLimitStore ? { rateLimitStore: options.rateLimitStore } : {}),
    ...(options.throttle ? { throttle: options.throttle } : {}),
    ...(options.usageFlushMs ? { usageFlushMs: options.usageFlushMs } : {}),
    ...(options.accessTokens ? { accessTokens: options.accessTokens } : {}),
    lookup: options.lookup ?? fakeDns(),
    ...(options.onRoute ? { onRoute: options.onRoute } : {}),
  });
  const made = factories(testDb.db);
  const { secret } = await made.makeKey({ tier: 'partner', name: 'context key' });
  return {
    ...made,
    app,
    testDb,
    key: secret,
    get: (path, headers = {}) =>
      app.inject({
        method: 'GET',
        url: `/api-platform/v1${path}`,
        headers: { 'x-api-key': secret, ...headers },
      }),
    inject: (opts) => app.inject(opts),
    close: async () => {
      await app.close();
      await testDb.drop();
    },
  };
}

/** Parses a JSON body with the type the test expects (response types are exported by each module). */
export const json = <T>(response: LightMyRequestResponse): T => response.json<T>();
