import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../src/app.js';
import type { Config } from '../src/config.js';
import type { Problem } from '../src/http/problem.js';
import { windowStartOf } from '../src/http/quota.js';
import type { StoreHealth } from '../src/http/rate-limit-store.js';
import { openStores, redisPrefixFor } from '../src/stores.js';
import { json } from './helpers/context.js';
import { openTestDb, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { GOOD_PASSWORD, PORTAL, uniqueName } from './helpers/portal.js';
import { ownRedis, redisServerInstalled, uniquePrefix, type OwnRedis } from './helpers/redis.js';

/**
 * The Redis failure mode, against a redis-server this file starts, kills, freezes and restarts on a
 * port of its own. Requests must keep being answered quickly (no seconds of waiting on a dead
 * connection), per instance (fail open, the default) or with 503 (fail closed), and the shared
 * counts must come back on their own with Redis.
 */

/** Far above a request's own time even on a loaded machine, far below the seconds of waiting it replaces. */
const LATENCY_BOUND_MS = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(what: string, check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

async function timed(run: () => Promise<LightMyRequestResponse>): Promise<[LightMyRequestResponse, number]> {
  const started = performance.now();
  const response = await run();
  return [response, performance.now() - started];
}

interface LogLine {
  level: number;
  msg: string;
  reason?: string;
}

describe('Redis failure mode', { skip: !redisServerInstalled && 'redis-server is not installed' }, () => {
  let redis: OwnRedis;
  let testDb: TestDb;
  const apps: FastifyInstance[] = [];
  // ioredis writes "[ioredis] Unhandled error event" to stderr when nobody listens: catch any of it
  const stderr: string[] = [];
  const write = process.stderr.write.bind(process.stderr);

  before(async () => {
    process.stderr.write = (chunk: string | Uint8Array, ...rest: never[]) => {
      stderr.push(String(chunk));
      return write(chunk, ...rest);
    };
    redis = await ownRedis();
    testDb = await openTestDb('sqlite');
  });
  after(async () => {
    for (const app of apps) await app.close();
    await redis.kill();
    await testDb.drop();
    process.stderr.write = write;
  });
  beforeEach(async () => {
    redis.thaw();
    await redis.start();
  });
  afterEach(async () => {
    redis.thaw();
    while (apps.length) await apps.pop()?.close();
  });

  async function appOn(
    config: Partial<
      Pick<Config, 'RATE_LIMIT_STORE_FAILURE' | 'REDIS_COMMAND_TIMEOUT_MS' | 'REDIS_PREFIX'>
    > = {},
  ) {
    const lines: LogLine[] = [];
    const app = await buildApp({
      db: testDb.db,
      config: {
        LOG_LEVEL: 'info',
        CACHE_TTL_MS: 0,
        TRUST_PROXY: false,
        REDIS_URL: redis.url,
        // generous by default, so only the outage fails over; the frozen-Redis test sets its own
        REDIS_COMMAND_TIMEOUT_MS: 2000,
        REDIS_PREFIX: uniquePrefix('fail'),
        ...config,
      },
      logStream: { write: (line: string) => lines.push(JSON.parse(line) as LogLine) },
    });
    apps.push(app);
    const redisLines = () => lines.filter((l) => l.msg.includes('Redis'));
    return { app, redisLines };
  }

  const newKey = (quota = 1000) => factories(testDb.db).makeKey({ tier: 'free', quota });
  const call = (app: FastifyInstance, secret: string) =>
    app.inject({ url: '/api-platform/v1/achievements', headers: { 'x-api-key': secret } });
  const used = (response: LightMyRequestResponse) => Number(response.headers['x-ratelimit-used']);

  it('fails open: with Redis killed, keyed requests are answered at once and counted per instance; counts return to Redis with it, from where they were', async () => {
    const prefix = uniquePrefix('open');
    const { app, redisLines } = await appOn({ REDIS_PREFIX: prefix });
    const { id, secret } = await newKey();
    for (let i = 1; i <= 3; i++) assert.equal(used(await call(app, secret)), i);

    await redis.kill();
    const latencies: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < 30; i++) {
      const [response, ms] = await timed(() => call(app, secret));
      assert.equal(response.statusCode, 200, response.body);
      latencies.push(ms);
      counts.push(used(response));
    }
    latencies.sort((a, b) => a - b);
    const slowest = latencies.at(-1) ?? 0;
    assert.ok(slowest < LATENCY_BOUND_MS, `slowest request while Redis was down: ${slowest.toFixed(0)} ms`);
    console.log(
      `  Redis down, fail open: median ${latencies[15]?.toFixed(1)} ms, slowest ${slowest.toFixed(1)} ms`,
    );
    // this instance's own count: from 1, one per request
    assert.deepEqual(
      counts,
      counts.map((_, i) => (counts[0] ?? 0) + i),
    );
    const down = redisLines();
    const [warning, ...more] = down;
    assert.ok(warning && more.length === 0, JSON.stringify(down));
    assert.equal(warning.level, 40);
    assert.match(warning.msg, /Redis is unreachable; quotas and sign-in throttles count per instance/);

    await redis.start(); // an empty Redis, as after a crash
    const hash = `${prefix}rl:key:${id}:${windowStartOf(Date.now())}`;
    const direct = new Redis(redis.url);
    try {
      await eventually('counts are in Redis again', async () => {
        await call(app, secret);
        return (await direct.exists(hash)) === 1;
      });
      // the restart gave no fresh quota: the count goes on from what this instance counted alone
      const last = counts.at(-1) ?? 0;
      const after = used(await call(app, secret));
      assert.ok(after > last, `${after} after the restart, ${last} before`);
      await sleep(200); // the spending is reported
      // reported spent; units reserved but not spent yet are held apart
      const spent = Number(await direct.hget(hash, 'spent'));
      assert.equal(spent, after, 'the count the header reports is the one in Redis');
    } finally {
      direct.disconnect();
    }
    const lines = redisLines();
    const [, back, ...rest] = lines;
    assert.ok(back && rest.length === 0, JSON.stringify(lines));
    assert.equal(back.level, 30);
    assert.match(back.msg, /Redis is reachable again/);
  });

  it('fails closed when RATE_LIMIT_STORE_FAILURE=closed: 503 service_unavailable with Retry-After, at once', async () => {
    const { app, redisLines } = await appOn({ RATE_LIMIT_STORE_FAILURE: 'closed' });
    const { secret } = await newKey();
    assert.equal((await call(app, secret)).statusCode, 200);
    await redis.kill();
    for (let i = 0; i < 10; i++) {
      const [response, ms] = await timed(() => call(app, secret));
      assert.equal(response.statusCode, 503);
      assert.ok(ms < LATENCY_BOUND_MS, `${ms} ms`);
      assert.equal(response.headers['retry-after'], '1');
      const problem = json<Problem>(response);
      assert.equal(problem.code, 'service_unavailable');
      assert.match(problem.detail, /rate-limit store is unreachable/);
    }
    // sign-in cannot be throttled either, so it is refused the same way
    const signIn = await app.inject({
      method: 'POST',
      url: `${PORTAL}/session`,
      payload: { username: 'anyone', password: 'any-password-1' },
    });
    assert.equal(signIn.statusCode, 503);
    assert.match(redisLines()[0]?.msg ?? '', /keyed requests and sign-ins get 503/);
    await redis.start();
    await eventually('requests are served again', async () => (await call(app, secret)).statusCode === 200);
  });

  it('a frozen Redis (connected, never answering) costs one wait of 10 timeouts per pause, not one per request', async () => {
    const { app } = await appOn({ REDIS_COMMAND_TIMEOUT_MS: 50 });
    const { secret } = await newKey();
    assert.equal((await call(app, secret)).statusCode, 200);
    redis.freeze();
    const started = performance.now();
    const latencies: number[] = [];
    while (performance.now() - started < 2500) {
      const [response, ms] = await timed(() => call(app, secret));
      assert.equal(response.statusCode, 200);
      latencies.push(ms);
      await sleep(20);
    }
    const elapsed = performance.now() - started;
    const slow = latencies.filter((ms) => ms >= 90).length;
    console.log(
      `  Redis frozen: ${latencies.length} requests in ${elapsed.toFixed(0)} ms, ${slow} waited for Redis (10 timeouts of 50 ms in a row judge it down), slowest ${Math.max(...latencies).toFixed(0)} ms`,
    );
    assert.ok(Math.max(...latencies) < LATENCY_BOUND_MS);
    // one probe per 1 s pause (plus the first failure), not one wait per request
    assert.ok(slow <= Math.ceil(elapsed / 1000) + 1, `${slow} of ${latencies.length} requests waited`);
    assert.ok(latencies.length > 3 * slow);
    redis.thaw();
    await eventually('Redis answers again', async () => {
      await call(app, secret);
      return (await call(app, secret)).statusCode === 200;
    });
  });

  it('the sign-in and sign-up throttles fail open to per-instance counts', async () => {
    const { app } = await appOn();
    const username = uniqueName('Down');
    const signUp = await app.inject({
      method: 'POST',
      url: `${PORTAL}/accounts`,
      payload: { username, password: GOOD_PASSWORD },
      remoteAddress: '10.40.0.1',
    });
    assert.equal(signUp.statusCode, 201);
    await redis.kill();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const [response, ms] = await timed(() =>
        app.inject({
          method: 'POST',
          url: `${PORTAL}/session`,
          payload: { username, password: `wrong-guess-${i}` },
          remoteAddress: '10.40.0.2',
        }),
      );
      assert.ok(ms < LATENCY_BOUND_MS, `${ms} ms`);
      statuses.push(response.statusCode);
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
  });

  it('two deployments on one Redis do not share counters: the default prefix comes from each database', async () => {
    const other = await openTestDb('sqlite');
    try {
      const build = (db: TestDb) =>
        buildApp({
          db: db.db,
          config: {
            LOG_LEVEL: 'silent',
            CACHE_TTL_MS: 0,
            TRUST_PROXY: false,
            REDIS_URL: redis.url,
            REDIS_COMMAND_TIMEOUT_MS: 2000,
          },
        });
      const [first, second] = [await build(testDb), await build(other)];
      apps.push(first, second);
      // key ids are per database: find an id both databases use
      const a = await factories(testDb.db).makeKey({ tier: 'free', quota: 2 });
      let b = await factories(other.db).makeKey({ tier: 'free', quota: 2 });
      while (b.id < a.id) b = await factories(other.db).makeKey({ tier: 'free', quota: 2 });
      assert.equal(b.id, a.id);
      assert.deepEqual(
        [await call(first, a.secret), await call(first, a.secret), await call(first, a.secret)].map(
          (r) => r.statusCode,
        ),
        [200, 200, 429],
      );
      const fresh = await call(second, b.secret);
      assert.equal(fresh.statusCode, 200, 'the other deployment’s key with the same id is untouched');
      assert.equal(used(fresh), 1);
      const prefixes = [
        await redisPrefixFor({}, testDb.db.kysely),
        await redisPrefixFor({}, other.db.kysely),
      ];
      assert.notEqual(prefixes[0], prefixes[1]);
      assert.match(prefixes[0] ?? '', /^hub:[0-9a-f]{16}:$/);
      assert.equal(await redisPrefixFor({ REDIS_PREFIX: 'acme:prod:' }, testDb.db.kysely), 'acme:prod:');
      const direct = new Redis(redis.url);
      try {
        const keys = await direct.keys(`${prefixes[0]}rl:*`);
        assert.ok(keys.includes(`${prefixes[0]}rl:key:${a.id}:${windowStartOf(Date.now())}`), keys.join());
      } finally {
        direct.disconnect();
      }
    } finally {
      while (apps.length) await apps.pop()?.close();
      await other.drop();
    }
  });

  it('the stores report degraded while Redis is away, and tell the state changes and failures', async () => {
    const changes: StoreHealth[] = [];
    let failures = 0;
    const warnings: string[] = [];
    const stores = await openStores(
      { REDIS_URL: redis.url, REDIS_PREFIX: uniquePrefix('health'), REDIS_COMMAND_TIMEOUT_MS: 2000 },
      {
        db: testDb.db.kysely,
        log: { warn: (_fields, message) => warnings.push(message), info: () => undefined },
        onStateChange: (health) => changes.push(health),
        onFailure: () => failures++,
      },
    );
    try {
      assert.deepEqual(stores.rateLimitStore.health(), { status: 'ok' });
      assert.deepEqual(stores.throttle.health(), { status: 'ok' });
      await redis.kill();
      await eventually(
        'the stores see Redis gone',
        () => stores.rateLimitStore.health().status === 'degraded',
      );
      const health = stores.throttle.health();
      assert.equal(health.status, 'degraded');
      assert.match(health.detail ?? '', new RegExp(`^Redis at 127\\.0\\.0\\.1:${redis.port}: `));
      await sleep(1500); // ioredis retries the connection meanwhile: still one warning
      assert.equal(warnings.length, 1);
      assert.ok(failures >= 1);
      await redis.start();
      await eventually('the stores see Redis back', () => stores.rateLimitStore.health().status === 'ok');
      assert.deepEqual(
        changes.map((c) => c.status),
        ['ok', 'degraded', 'ok'],
        'connected at start, lost, back',
      );
    } finally {
      await stores.close();
    }
  });

  // last: every test above killed or froze Redis at least once
  it('wrote nothing to stderr: no "[ioredis] Unhandled error event", no stack per request', () => {
    assert.deepEqual(
      stderr.filter((line) => /ioredis|Unhandled error|Error:/i.test(line)),
      [],
    );
  });
});
