import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import { PIPELINE_STEPS, type PipelineStep } from '../src/http/pipeline-switches.js';
import { openTestDb, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';

/**
 * The pipeline bench (bench/pipeline.ts) prices a step by turning it off: that is a measurement only
 * if turning it off takes out that step and nothing else. A cached hit of a hub with one step off
 * answers what the whole hub answers, the same status, body and headers, but for the headers the step
 * itself writes; and the steps after it still run (the quota is still counted, the ETag still sent).
 */
const OWN_HEADERS: Record<PipelineStep, string[]> = {
  requestId: ['x-request-id'],
  securityHeaders: ['x-content-type-options', 'referrer-policy', 'x-frame-options'],
  cors: [],
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

describe('the pipeline bench’s switches each take out one step', () => {
  let testDb: TestDb;
  let secret: string;
  const apps: FastifyInstance[] = [];
  const build = async (off: PipelineStep[]) => {
    const app = await buildApp({
      db: testDb.db,
      config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 60_000, TRUST_PROXY: false },
      stepsOff: new Set(off),
    });
    apps.push(app);
    return app;
  };
  /** the second of two reads: a cache hit */
  const hit = async (app: FastifyInstance): Promise<LightMyRequestResponse> => {
    const read = () =>
      app.inject({ method: 'GET', url: '/api-platform/v1/leaderboards', headers: { 'x-api-key': secret } });
    await read();
    return read();
  };
  const shape = (response: LightMyRequestResponse) =>
    Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name, VARYING.has(name) ? '*' : value]),
    );

  before(async () => {
    testDb = await openTestDb('sqlite');
    ({ secret } = await factories(testDb.db).makeKey({ tier: 'partner' }));
  });
  after(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await testDb.drop();
  });

  it('answers a hit as the whole hub does, but for the step’s own headers', async () => {
    const whole = await hit(await build([]));
    assert.equal(whole.statusCode, 200);
    assert.ok(whole.headers.etag);
    for (const step of PIPELINE_STEPS) {
      const response = await hit(await build([step]));
      assert.equal(response.statusCode, 200, step);
      assert.equal(response.body, whole.body, step);
      const own = new Set(OWN_HEADERS[step]);
      const expected = Object.fromEntries(Object.entries(shape(whole)).filter(([name]) => !own.has(name)));
      assert.deepEqual(shape(response), expected, step);
      if (!OWN_HEADERS[step].includes('x-ratelimit-used') && step !== 'quota')
        assert.equal(response.headers['x-ratelimit-used'], '2', `${step}: the hit is counted`);
    }
  });
});
