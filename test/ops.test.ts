import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import type { Config } from '../src/config.js';
import { connect } from '../src/db/connect.js';
import type { Problem } from '../src/http/problem.js';
import type { HealthBody, ReadinessBody } from '../src/modules/ops/routes.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { inRound, postEvents, postLogs, registerServer, stamp } from './helpers/ingest.js';
import { metricValue } from './helpers/metrics.js';
import { tcpProxy } from './helpers/tcp-proxy.js';
import { ownRedis, redisServerInstalled, uniquePrefix, type OwnRedis } from './helpers/redis.js';

// Dated an hour ago, so the 7-day ingest window accepts it whatever today's date is.
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const kill = (killer: number, victim: number) =>
  `${stamp(T0)}"P${killer}<${killer}><[U:1:${killer}]><CT>" [0 0 0] killed "P${victim}<${victim}><[U:1:${victim}]><TERRORIST>" [0 0 0] with "ak47"`;

const silentConfig = { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false } as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function eventually(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

const metricsText = async (app: { inject(options: InjectOptions): Promise<LightMyRequestResponse> }) =>
  (await app.inject({ url: '/metrics' })).body;

function assertProblem(response: LightMyRequestResponse, status: number, code: string): Problem {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const problem = json<Problem>(response);
  assert.equal(problem.code, code);
  return problem;
}

for (const dialect of testDialects()) {
  describe(`operations: health, readiness, metrics (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('/health answers 200 while the process runs, uncached and without a key', async () => {
      const res = await ctx.inject({ url: '/health' });
      assert.equal(res.statusCode, 200);
      const body = json<HealthBody>(res);
      assert.equal(body.status, 'ok');
      assert.ok(Number.isInteger(body.uptime_seconds) && body.uptime_seconds >= 0);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['x-ratelimit-limit'], undefined, 'no quota is spent');
    });

    it('/ready is 200 ready when the database answers and no Redis is configured', async () => {
      const res = await ctx.inject({ url: '/ready' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json<ReadinessBody>(res), {
        status: 'ready',
        checks: { database: { status: 'ok' }, redis: { status: 'not_configured' } },
      });
      assert.equal(res.headers['cache-control'], 'no-store');
    });

    it('/metrics counts requests by route pattern and status, with latency histograms', async () => {
      const user = await ctx.makeUser();
      for (let i = 0; i < 3; i++) assert.equal((await ctx.get(`/users/${user.id}`)).statusCode, 200);
      assert.equal((await ctx.get('/users/2147483000')).statusCode, 404);
      await ctx.inject({ url: '/no/such/path/123' });
      const res = await ctx.inject({ url: '/metrics' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      const text = res.body;
      const route = '/api-platform/v1/users/:id';
      assert.equal(metricValue(text, 'hub_http_requests_total', { route, method: 'GET', status: '200' }), 3);
      assert.equal(metricValue(text, 'hub_http_requests_total', { route, method: 'GET', status: '404' }), 1);
      assert.equal(
        metricValue(text, 'hub_http_requests_total', { route: 'unmatched', status: '404' }),
        1,
        'an unknown URL is counted without becoming a label',
      );
      assert.doesNotMatch(text, /no\/such\/path/);
      assert.equal(metricValue(text, 'hub_http_request_duration_seconds_count', { route, method: 'GET' }), 4);
      assert.equal(
        metricValue(text, 'hub_http_request_duration_seconds_bucket', { route, method: 'GET', le: '+Inf' }),
        4,
      );
      assert.ok(metricValue(text, 'process_cpu_user_seconds_total') > 0, 'process metrics are included');
    });

    it('counts quota rejections by tier', async () => {
      const { secret } = await ctx.makeKey({ tier: 'free', quota: 2 });
      const call = () =>
        ctx.inject({ url: '/api-platform/v1/achievements', headers: { 'x-api-key': secret } });
      const before = metricValue(await metricsText(ctx), 'hub_quota_rejections_total', { tier: 'free' });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await call()).statusCode);
      assert.deepEqual(statuses, [200, 200, 429, 429]);
      const text = await metricsText(ctx);
      assert.equal(metricValue(text, 'hub_quota_rejections_total', { tier: 'free' }) - before, 2);
    });

    it('counts ingested lines, events, rejections and kills by source', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      // kills count once their round is settled (the next round's start)
      const logs = await postLogs(ctx, server.token, [
        ...inRound(T0, [kill(1, 2), kill(1, 3)]),
        'garbage line',
      ]);
      assert.equal(logs.statusCode, 200, logs.body);
      const rust = await registerServer(ctx.testDb.db, 'rust');
      const events = await postEvents(ctx, rust.token, [
        {
          type: 'kill',
          client_id: 'ops-1',
          occurred_at: new Date(T0).toISOString(),
          killer: { steam_id: '76561197960265729', name: 'Rusty' },
          victim: { steam_id: '76561197960265730', name: 'Naked' },
          weapon: 'rifle.bolt',
        },
        { type: 'kill' },
      ]);
      assert.equal(events.statusCode, 200, events.body);
      const text = await metricsText(ctx);
      const value = (name: string, labels: Record<string, string>) => metricValue(text, name, labels);
      assert.deepEqual(
        [
          value('hub_ingest_lines_total', { source: 'http_logs' }),
          value('hub_ingest_rejections_total', { source: 'http_logs', reason: 'invalid' }),
          value('hub_ingest_kills_total', { source: 'http_logs' }),
          value('hub_ingest_lines_total', { source: 'http_events' }),
          value('hub_ingest_rejections_total', { source: 'http_events', reason: 'invalid' }),
          value('hub_ingest_kills_total', { source: 'http_events' }),
        ],
        [4, 1, 2, 1, 1, 1],
      );
    });

    it('is documented under the Operations tag, at the service root, without a key', async () => {
      const doc = json<{
        servers: { url: string }[];
        paths: Record<string, { get?: { tags?: string[]; security?: unknown; servers?: unknown } }>;
      }>(await ctx.inject({ url: '/api-platform/v1/openapi.json' }));
      // one server for the whole document, full paths: generators ignore per-operation servers
      assert.deepEqual(
        doc.servers.map((server) => server.url),
        ['/'],
      );
      for (const path of ['/health', '/ready', '/metrics']) {
        const op = doc.paths[path]?.get;
        assert.ok(op, `${path} is documented`);
        assert.deepEqual(op.tags, ['Operations']);
        assert.equal(op.servers, undefined);
      }
      assert.deepEqual(doc.paths['/health']?.get?.security, []);
      assert.deepEqual(doc.paths['/metrics']?.get?.security, [{}, { metricsToken: [] }]);
    });
  });
}

describe('operations: a database that does not answer, and a metrics token', () => {
  it(
    '/ready is 503 service_unavailable when PostgreSQL stops answering; /health stays 200',
    { skip: !process.env.TEST_DATABASE_URL },
    async () => {
      // The service starts on a working database (start-up needs it), reached through a proxy the
      // test then shuts: every new connection is refused and the open ones are cut.
      const testDb = await openTestDb('postgres');
      const proxy = await tcpProxy(new URL(testDb.url));
      const db = connect(proxy.url(testDb.url), {
        ...(testDb.schema ? { schema: testDb.schema } : {}),
        poolSize: 2,
      });
      const app = await buildApp({ db, config: silentConfig });
      try {
        assert.equal((await app.inject({ url: '/ready' })).statusCode, 200);
        await proxy.close();
        const problem = assertProblem(await app.inject({ url: '/ready' }), 503, 'service_unavailable');
        assert.match(problem.detail, /the database does not answer/);
        assert.equal((await app.inject({ url: '/health' })).statusCode, 200);
      } finally {
        await app.close();
        await db.close().catch(() => undefined);
        await testDb.drop();
      }
    },
  );

  it('/metrics wants the bearer token when METRICS_TOKEN is set', async () => {
    const testDb = await openTestDb('sqlite');
    const token = 'metrics-token-0123456789';
    const app = await buildApp({ db: testDb.db, config: { ...silentConfig, METRICS_TOKEN: token } });
    try {
      const missing = await app.inject({ url: '/metrics' });
      assertProblem(missing, 401, 'missing_token');
      assert.equal(missing.headers['www-authenticate'], 'Bearer realm="metrics"');
      assertProblem(
        await app.inject({ url: '/metrics', headers: { authorization: 'Bearer not-the-token-at-all' } }),
        401,
        'invalid_token',
      );
      const ok = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
      assert.equal(ok.statusCode, 200);
      assert.match(ok.body, /hub_http_requests_total/);
      assert.ok(!missing.body.includes(token) && !ok.body.includes(token), 'the token is never echoed');
    } finally {
      await app.close();
      await testDb.drop();
    }
  });
});

describe(
  'operations with Redis killed',
  { skip: !redisServerInstalled && 'redis-server is not installed' },
  () => {
    let redis: OwnRedis;
    let testDb: TestDb;
    before(async () => {
      // a range of its own: redis-failure.test.ts kills and restarts its Redis on 6391-6395
      redis = await ownRedis([6396, 6397, 6398]);
      testDb = await openTestDb('sqlite');
    });
    after(async () => {
      await redis.kill();
      await testDb.drop();
    });

    async function appOn(failure: Config['RATE_LIMIT_STORE_FAILURE']) {
      await redis.start();
      return buildApp({
        db: testDb.db,
        config: {
          ...silentConfig,
          REDIS_URL: redis.url,
          REDIS_COMMAND_TIMEOUT_MS: 2000,
          REDIS_PREFIX: uniquePrefix('ops'),
          RATE_LIMIT_STORE_FAILURE: failure,
        },
      });
    }
    const readiness = async (app: FastifyInstance) => {
      const res = await app.inject({ url: '/ready' });
      return { status: res.statusCode, body: res.json<ReadinessBody | Problem>() };
    };

    it('fail open: /ready says degraded (still 200) while Redis is down, ready again once it is back; metrics follow', async () => {
      const app = await appOn('open');
      try {
        assert.deepEqual(await readiness(app), {
          status: 200,
          body: { status: 'ready', checks: { database: { status: 'ok' }, redis: { status: 'ok' } } },
        });
        assert.equal(metricValue(await metricsText(app), 'hub_store_up', { store: 'redis' }), 1);

        await redis.kill();
        await eventually('readiness reports Redis degraded', async () => {
          const { body } = await readiness(app);
          return body.status === 'degraded';
        });
        assert.deepEqual(await readiness(app), {
          status: 200,
          body: {
            status: 'degraded',
            checks: {
              database: { status: 'ok' },
              // the only instance alive: it counts alone, and its share is the whole limit
              redis: { status: 'degraded', counting_alone: { instances: 1, share: '1/1' } },
            },
          },
        });
        const down = await metricsText(app);
        assert.equal(metricValue(down, 'hub_store_up', { store: 'redis' }), 0);
        assert.equal(metricValue(down, 'hub_store_fleet_instances', { store: 'redis' }), 1);
        assert.ok(metricValue(down, 'hub_store_failures_total', { store: 'redis' }) >= 1);

        await redis.start();
        await eventually(
          'readiness is back to ready',
          async () => (await readiness(app)).body.status === 'ready',
        );
        assert.equal(metricValue(await metricsText(app), 'hub_store_up', { store: 'redis' }), 1);
      } finally {
        await app.close();
      }
    });

    it('fail closed: /ready is 503 while Redis is down', async () => {
      const app = await appOn('closed');
      try {
        assert.equal((await readiness(app)).status, 200);
        await redis.kill();
        await eventually('readiness refuses', async () => (await readiness(app)).status === 503);
        const problem = assertProblem(await app.inject({ url: '/ready' }), 503, 'service_unavailable');
        assert.match(problem.detail, /Redis is unreachable/);
        assert.doesNotMatch(problem.detail, new RegExp(String(redis.port)), 'no internal address');
      } finally {
        await app.close();
      }
    });
  },
);
