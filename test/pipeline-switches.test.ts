import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import { createMetrics } from '../src/http/metrics.js';
import { PIPELINE_STEPS, type PipelineStep } from '../src/http/pipeline-switches.js';
import { keysRepo } from '../src/modules/keys/repo.js';
import { usageRepo } from '../src/modules/usage/repo.js';
import { openTestDb, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';

/**
 * The pipeline bench (bench/pipeline.ts) prices a step by turning it off: that is a measurement only
 * if turning it off takes out that step and nothing else. A cached hit of a hub with one step off
 * answers what the whole hub answers, the same status, body and headers, but for the headers the step
 * itself writes; and the steps after it still run (the quota is still counted, the ETag still sent).
 * And the step is really out: what it does shows on the whole hub and not on the hub without it.
 */
const OWN_HEADERS: Record<PipelineStep, string[]> = {
  requestId: ['x-request-id'],
  securityHeaders: ['x-content-type-options', 'referrer-policy', 'x-frame-options'],
  cors: ['access-control-allow-origin', 'access-control-expose-headers'],
  keyLookup: [],
  quota: [],
  cache: [],
  quotaHeaders: [
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-used',
    'x-ratelimit-reset',
    'ratelimit-policy',
    'ratelimit',
  ],
  usage: [],
  metrics: [],
};
/** headers whose value differs from one response to the next whatever the steps */
const VARYING = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-used', 'ratelimit']);
const URL = '/api-platform/v1/leaderboards';
const TTL_MS = 60_000;

interface Hub {
  app: FastifyInstance;
  db: TestDb;
  key: { id: number; secret: string };
  clock: { at: number };
  metrics: ReturnType<typeof createMetrics>;
  /** a read of the leaderboard from a page, with the hub's key or the one given */
  read: (secret?: string) => Promise<LightMyRequestResponse>;
}

/**
 * Whether the step's work shows in what a hub does. Every probe but `usage` leaves the hub usable
 * for the next one (a key of its own where it revokes one); `usage` closes the hub, to flush.
 */
const DOES: Record<PipelineStep, (hub: Hub) => Promise<boolean>> = {
  requestId: async ({ read }) => (await read()).headers['x-request-id'] !== undefined,
  securityHeaders: async ({ read }) => (await read()).headers['x-content-type-options'] !== undefined,
  cors: async ({ read }) => (await read()).headers['access-control-allow-origin'] !== undefined,
  keyLookup: async ({ read, db }) => {
    const key = await factories(db.db).makeKey({ tier: 'partner' });
    await read(key.secret);
    assert.ok(await keysRepo(db.db.kysely).revoke(key.id, 1));
    return (await read(key.secret)).statusCode === 401;
  },
  // turned off, the quota reports a fixed single request used
  quota: async ({ read }) => {
    await read();
    return (await read()).headers['x-ratelimit-used'] !== '1';
  },
  cache: async ({ read, db, clock }) => {
    await read();
    const before = (await read()).body;
    await factories(db.db).makeUser({ total_xp: 1_000_000 });
    clock.at += TTL_MS;
    return (await read()).body !== before;
  },
  quotaHeaders: async ({ read }) => (await read()).headers['x-ratelimit-limit'] !== undefined,
  usage: async ({ read, app, db, key }) => {
    await read();
    await app.close();
    return (await usageRepo(db.db.kysely).since([key.id], 0)).length > 0;
  },
  metrics: async ({ read, metrics }) => {
    await read();
    return (await metrics.registry.metrics()).includes(`route="${URL}"`);
  },
};

describe('the pipeline bench’s switches each take out one step', () => {
  let testDb: TestDb;
  const apps: FastifyInstance[] = [];
  /** the whole hub, and one hub with each step off */
  let whole: Hub;
  const without = new Map<PipelineStep, Hub>();
  const build = async (off: PipelineStep[]): Promise<Hub> => {
    const clock = { at: Date.now() };
    const metrics = createMetrics({ processMetrics: false });
    const app = await buildApp({
      db: testDb.db,
      config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: TTL_MS, TRUST_PROXY: false },
      stepsOff: new Set(off),
      now: () => clock.at,
      metrics,
    });
    apps.push(app);
    const key = await factories(testDb.db).makeKey({ tier: 'partner' });
    const read = (secret = key.secret) =>
      app.inject({
        method: 'GET',
        url: URL,
        headers: { 'x-api-key': secret, origin: 'https://page.example' },
      });
    return { app, db: testDb, key, clock, metrics, read };
  };
  const hubWithout = (step: PipelineStep): Hub => {
    const hub = without.get(step);
    assert.ok(hub);
    return hub;
  };
  /** the second of two reads: a cache hit */
  const hit = async ({ read }: Hub): Promise<LightMyRequestResponse> => {
    await read();
    return read();
  };
  const shape = (response: LightMyRequestResponse) =>
    Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name, VARYING.has(name) ? '*' : value]),
    );

  before(async () => {
    testDb = await openTestDb('sqlite');
    whole = await build([]);
    for (const step of PIPELINE_STEPS) without.set(step, await build([step]));
  });
  after(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await testDb.drop();
  });

  it('answers a hit as the whole hub does, but for the step’s own headers', async () => {
    const reference = await hit(whole);
    assert.equal(reference.statusCode, 200);
    assert.ok(reference.headers.etag);
    for (const step of PIPELINE_STEPS) {
      const response = await hit(hubWithout(step));
      assert.equal(response.statusCode, 200, step);
      assert.equal(response.body, reference.body, step);
      const own = new Set(OWN_HEADERS[step]);
      const expected = Object.fromEntries(
        Object.entries(shape(reference)).filter(([name]) => !own.has(name)),
      );
      assert.deepEqual(shape(response), expected, step);
      if (!OWN_HEADERS[step].includes('x-ratelimit-used') && step !== 'quota')
        assert.equal(response.headers['x-ratelimit-used'], '2', `${step}: the hit is counted`);
    }
  });

  it('takes the step out: its work shows on the whole hub, not on the hub without it', async () => {
    // usage last on the whole hub: its probe closes the hub
    for (const step of [...PIPELINE_STEPS.filter((s) => s !== 'usage'), 'usage' as const])
      assert.equal(await DOES[step](whole), true, `${step}: the whole hub`);
    for (const step of PIPELINE_STEPS) assert.equal(await DOES[step](hubWithout(step)), false, `${step} off`);
  });
});
