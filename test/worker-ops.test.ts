import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { createMetrics } from '../src/http/metrics.js';
import { startWorkerOps } from '../src/modules/ops/worker-server.js';
import { openTestDb } from './helpers/db.js';

describe("hub worker's operator endpoints (WORKER_METRICS_PORT)", () => {
  it('a database that stops answering: /ready is 503, and the worker logs why', async () => {
    const testDb = await openTestDb('sqlite');
    const lines: string[] = [];
    const ops = await startWorkerOps(testDb.db, {
      port: 0,
      host: '127.0.0.1',
      metrics: createMetrics(),
      log: pino({ level: 'warn' }, { write: (line: string) => lines.push(line) }),
    });
    try {
      assert.equal((await fetch(`http://127.0.0.1:${ops.port}/ready`)).status, 200);
      await testDb.db.close();
      const res = await fetch(`http://127.0.0.1:${ops.port}/ready`);
      assert.equal(res.status, 503);
      assert.match(lines.join(''), /readiness: the database did not answer/);
    } finally {
      await ops.close();
      await testDb.drop().catch(() => undefined);
    }
  });
});
