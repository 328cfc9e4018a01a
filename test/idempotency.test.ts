import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Type } from 'typebox';
import { connect, type Db } from '../src/db/connect.js';
import { ProblemError, type Problem } from '../src/http/problem.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { pipelineApp } from './helpers/pipeline-app.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * The Idempotency-Key mechanism of state-changing /v1 routes, on a route that counts how often
 * its handler really ran. Two app instances share the database, as two API instances would.
 */
for (const dialect of testDialects()) {
  describe(`idempotency keys (${dialect})`, () => {
    let testDb: TestDb;
    let second: Db;
    let apps: FastifyInstance[];
    const tokens = new TokenTable();
    const runs = { transfer: 0, flaky: 0, refused: 0, leave: 0 };

    const routes = (app: FastifyInstance) => {
      const config = { auth: 'bearer', scope: 'economy:transfer', idempotency: 'required' } as const;
      const body = Type.Object({ amount: Type.Integer({ minimum: 1 }) });
      app.post('/transfer', { config, schema: { body } }, async (request, reply) => {
        const { amount } = request.body as { amount: number };
        await sleep(30);
        runs.transfer++;
        return reply.code(201).send({ id: runs.transfer, amount, at: Math.random() });
      });
      app.post('/flaky', { config }, () => {
        if (++runs.flaky === 1) throw new Error('the database went away');
        return { ran: runs.flaky };
      });
      app.post('/refused', { config }, () => {
        runs.refused++;
        throw new ProblemError('forbidden', `refused ${Math.random()}`);
      });
      app.post('/leave', { config }, (_request, reply) => {
        runs.leave++;
        return reply.code(204).send();
      });
      app.put('/settings', { config: { ...config, idempotency: 'optional' } }, () => ({ ok: true }));
    };

    before(async () => {
      testDb = await openTestDb(dialect);
      // a second connection to the same database: another API instance
      second = connect(testDb.url, testDb.schema ? { schema: testDb.schema } : {});
      apps = [await pipelineApp(testDb.db, tokens, routes), await pipelineApp(second, tokens, routes)];
      tokens.tokens.set('alice', userToken(['economy:transfer'], { userId: 1 }));
      tokens.tokens.set('bob', userToken(['economy:transfer'], { userId: 2 }));
    });
    after(async () => {
      for (const app of apps) await app.close();
      await second.close();
      await testDb.drop();
    });

    const send = (
      url: string,
      key: string | undefined,
      payload: unknown = { amount: 5 },
      { who = 'alice', instance = 0 } = {},
    ): Promise<LightMyRequestResponse> =>
      (apps[instance] as FastifyInstance).inject({
        method: url === '/settings' ? 'PUT' : 'POST',
        url,
        headers: { authorization: `Bearer ${who}`, ...(key === undefined ? {} : { 'idempotency-key': key }) },
        payload: payload as Record<string, unknown>,
      });

    it('requires a well-formed key where the route says so, and accepts none where optional', async () => {
      for (const key of [undefined, '', 'x'.repeat(256), 'tab\there']) {
        const res = await send('/transfer', key);
        assert.equal(res.statusCode, 400, JSON.stringify(key));
        const problem = res.json<Problem>();
        assert.equal(problem.code, 'invalid_parameter');
        assert.deepEqual(problem.errors?.[0]?.name, 'Idempotency-Key');
      }
      assert.equal((await send('/settings', undefined)).statusCode, 200);
      assert.equal(runs.transfer, 0);
    });

    it('replays the first answer byte for byte, marked, and runs the handler once', async () => {
      const before = runs.transfer;
      const first = await send('/transfer', 'replay-1');
      assert.equal(first.statusCode, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      for (const instance of [0, 1]) {
        const again = await send('/transfer', 'replay-1', { amount: 5 }, { instance });
        assert.equal(again.statusCode, 201);
        assert.equal(again.body, first.body);
        assert.equal(again.headers['content-type'], first.headers['content-type']);
        assert.equal(again.headers['idempotent-replayed'], 'true');
      }
      assert.equal(runs.transfer, before + 1);
    });

    it('stores and replays an answer without a body (204) like any other', async () => {
      const first = await send('/leave', 'leave-1');
      assert.equal(first.statusCode, 204);
      const again = await send('/leave', 'leave-1', { amount: 5 }, { instance: 1 });
      assert.equal(again.statusCode, 204);
      assert.equal(again.body, '');
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(runs.leave, 1, 'the handler ran once');
    });

    it('refuses the same key with another body (422) and keeps keys per credential', async () => {
      const before = runs.transfer;
      assert.equal((await send('/transfer', 'reuse-1')).statusCode, 201);
      const other = await send('/transfer', 'reuse-1', { amount: 6 });
      assert.equal(other.statusCode, 422);
      assert.equal(other.json<Problem>().code, 'idempotency_key_reused');
      const elsewhere = await send('/flaky', 'reuse-1');
      assert.equal(
        elsewhere.json<Problem>().code,
        'idempotency_key_reused',
        'another route is another request',
      );
      const bob = await send('/transfer', 'reuse-1', { amount: 6 }, { who: 'bob' });
      assert.equal(bob.statusCode, 201, "bob's key is his own");
      assert.equal(runs.transfer, before + 2);
    });

    it('runs 50 concurrent retries over two instances exactly once', async () => {
      const before = runs.transfer;
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          send('/transfer', 'burst-1', { amount: 9 }, { instance: i % 2 }),
        ),
      );
      assert.equal(runs.transfer, before + 1);
      const created = answers.filter((a) => a.statusCode === 201);
      const busy = answers.filter((a) => a.statusCode === 409);
      assert.equal(created.length + busy.length, 50);
      assert.equal(created.filter((a) => a.headers['idempotent-replayed'] === undefined).length, 1);
      for (const a of busy) {
        assert.equal(a.json<Problem>().code, 'idempotency_key_in_use');
        assert.equal(a.headers['retry-after'], '1');
      }
      const later = await send('/transfer', 'burst-1', { amount: 9 });
      assert.equal(later.headers['idempotent-replayed'], 'true');
      assert.equal(later.body, (created[0] as LightMyRequestResponse).body);
    });

    it('releases the key after a 5xx so the retry runs, and replays a 4xx', async () => {
      const failed = await send('/flaky', 'flaky-1');
      assert.equal(failed.statusCode, 500);
      const retried = await send('/flaky', 'flaky-1');
      assert.equal(retried.statusCode, 200);
      assert.deepEqual(retried.json(), { ran: 2 });

      const refused = await send('/refused', 'refused-1');
      assert.equal(refused.statusCode, 403);
      const again = await send('/refused', 'refused-1');
      assert.equal(again.statusCode, 403);
      assert.equal(again.body, refused.body);
      assert.equal(runs.refused, 1);
    });

    it('takes over the claim of a request whose process died, and forgets answers after 24 hours', async () => {
      const k = testDb.db.kysely;
      const before = runs.transfer;
      assert.equal((await send('/transfer', 'dead-1')).statusCode, 201);
      // the process that claimed 'dead-2' died before answering: its lease ran out
      const stale = await k
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('key', '=', 'dead-1')
        .executeTakeFirstOrThrow();
      await k
        .insertInto('idempotency_keys')
        .values({
          ...stale,
          key: 'dead-2',
          state: 'in_flight',
          status: null,
          body: null,
          lease_until: Date.now() - 1,
        })
        .execute();
      assert.equal((await send('/transfer', 'dead-2')).statusCode, 201);
      // an answer older than its 24 hours is gone: the key is new again
      await k
        .updateTable('idempotency_keys')
        .set({ expires_at: Date.now() - 1 })
        .where('key', '=', 'dead-1')
        .execute();
      const fresh = await send('/transfer', 'dead-1');
      assert.equal(fresh.headers['idempotent-replayed'], undefined);
      assert.equal(runs.transfer, before + 3);
    });
  });
}
