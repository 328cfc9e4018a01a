import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { dropTable, openTestDb, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';

describe('access log', () => {
  let testDb: TestDb;
  let app: FastifyInstance;
  const lines: Record<string, unknown>[] = [];
  before(async () => {
    testDb = await openTestDb('sqlite');
    app = await buildApp({
      db: testDb.db,
      config: { LOG_LEVEL: 'info', CACHE_TTL_MS: 0, TRUST_PROXY: false },
      logStream: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
  });
  after(async () => {
    await app.close();
    await testDb.drop();
  });

  it('writes one line per request with route, status and key id, never the key', async () => {
    const made = factories(testDb.db);
    const user = await made.makeUser();
    const { id, secret } = await made.makeKey();
    lines.length = 0;
    const ok = await app.inject({
      url: `/api-platform/v1/users/${user.id}?x=1`,
      headers: { 'x-api-key': secret },
    });
    const denied = await app.inject({
      url: '/api-platform/v1/users/1',
      headers: { 'x-api-key': `${secret}x` },
    });
    const requests = lines.filter((l) => l.msg === 'request');
    assert.equal(requests.length, 2);
    assert.deepEqual(
      requests.map((l) => l.reqId),
      [ok.headers['x-request-id'], denied.headers['x-request-id']],
    );
    assert.deepEqual(
      requests.map((l) => [l.url, l.status, l.key]),
      [
        ['/api-platform/v1/users/:id?x=1', 200, id],
        ['/api-platform/v1/users/:id', 401, undefined],
      ],
    );
    assert.ok(!JSON.stringify(lines).includes(secret.slice(4)));
  });

  it('logs a wrong method on a path that carries a token by the route pattern, not the path', async () => {
    const token = '12345678901234567890123456789012';
    lines.length = 0;
    const res = await app.inject({ method: 'GET', url: `/api-platform/ingest/logs/${token}?x=1` });
    assert.equal(res.statusCode, 405);
    const requests = lines.filter((l) => l.msg === 'request');
    assert.deepEqual(
      requests.map((l) => [l.url, l.status]),
      [['/api-platform/ingest/logs/:token?x=1', 405]],
    );
    assert.ok(!JSON.stringify(lines).includes(token));
  });

  it("logs an unhandled error once, at error level, with the request's id and the error", async () => {
    const { secret } = await factories(testDb.db).makeKey();
    await dropTable(testDb, 'tournaments');
    lines.length = 0;
    const res = await app.inject({ url: '/api-platform/v1/tournaments', headers: { 'x-api-key': secret } });
    assert.equal(res.statusCode, 500);
    const errors = lines.filter((l) => l.level === 50);
    assert.equal(errors.length, 1);
    const [line] = errors as [Record<string, unknown>];
    assert.equal(line.msg, 'unhandled error');
    assert.equal(line.reqId, res.headers['x-request-id']);
    assert.match(JSON.stringify(line.err), /tournaments/);
  });
});
