import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedKeyBody, MyKeysBody, UsageBody } from '../src/modules/portal/schemas.js';
import { statusClass } from '../src/modules/usage/recorder.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { dropTable, testDialects } from './helpers/db.js';
import { signUp, type PortalSession } from './helpers/portal.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('usage status classes', () => {
  it('maps statuses to 2xx, 3xx, 4xx, 429 and 5xx', () => {
    const cases: [number, string][] = [
      [200, '2xx'],
      [299, '2xx'],
      [304, '3xx'],
      [400, '4xx'],
      [401, '4xx'],
      [428, '4xx'],
      [429, '429'],
      [430, '4xx'],
      [499, '4xx'],
      [500, '5xx'],
      [503, '5xx'],
    ];
    for (const [status, cls] of cases) assert.equal(statusClass(status), cls, String(status));
  });
});

for (const dialect of testDialects()) {
  describe(`portal usage (${dialect})`, () => {
    let ctx: TestContext;
    // 10:20 UTC: well inside an hour, so a few requests never straddle two
    let clock = Date.UTC(2026, 10, 20, 10, 20);
    let session: PortalSession;
    before(async () => {
      ctx = await createTestContext(dialect, { now: () => clock, usageFlushMs: 3_600_000 });
      session = await signUp(ctx);
    });
    after(() => ctx.close());

    const newKey = async () => json<CreatedKeyBody>(await session.call('POST', '/keys', { name: 'usage' }));
    const usage = async (id: number, hours = 48) => {
      const res = await session.call('GET', `/keys/${id}/usage?hours=${hours}`);
      assert.equal(res.statusCode, 200, res.body);
      return json<UsageBody>(res).usage;
    };
    const rowsOf = (id: number) =>
      ctx.testDb.db.kysely
        .selectFrom('key_usage')
        .select(['hour', 'class', 'count'])
        .where('key_id', '=', id)
        .orderBy('hour')
        .orderBy('class')
        .execute();

    it('counts per status class in memory, writes nothing per request, and flushes in one batch', async () => {
      const { key, secret } = await newKey();
      await ctx.testDb.db.kysely.updateTable('api_keys').set({ quota: 5 }).where('id', '=', key.id).execute();
      const user = await ctx.makeUser();
      const call = (path: string, headers: Record<string, string> = {}) =>
        ctx.get(path, { 'x-api-key': secret, ...headers });
      const ok = await call(`/users/${user.id}`);
      assert.equal(ok.statusCode, 200);
      assert.equal((await call(`/users/${user.id}/stats`)).statusCode, 200);
      const etag = String(ok.headers.etag);
      assert.equal((await call(`/users/${user.id}`, { 'if-none-match': etag })).statusCode, 304);
      assert.equal((await call('/users/2147483647')).statusCode, 404);
      assert.equal((await call('/users/abc')).statusCode, 400);
      assert.equal((await call(`/users/${user.id}`)).statusCode, 200); // 5th counted: at the quota
      assert.equal((await call(`/users/${user.id}`)).statusCode, 429);
      assert.equal((await ctx.get('/users/1', { 'x-api-key': 'ghk_bogus' })).statusCode, 401); // no key: not counted

      assert.deepEqual(await rowsOf(key.id), [], 'no write on the request path');
      const expected = { '2xx': 3, '3xx': 1, '4xx': 2, '429': 1, '5xx': 0, total: 7 };
      assert.deepEqual((await usage(key.id)).totals, expected, 'unflushed counts are visible');

      await ctx.app.usageRecorder.flush();
      const hour = Date.UTC(2026, 10, 20, 10);
      assert.deepEqual(await rowsOf(key.id), [
        { hour, class: '2xx', count: 3 },
        { hour, class: '3xx', count: 1 },
        { hour, class: '429', count: 1 },
        { hour, class: '4xx', count: 2 },
      ]);
      assert.deepEqual((await usage(key.id)).totals, expected, 'flushed counts are not counted twice');
      const [listed] = json<MyKeysBody>(await session.call('GET', '/my-keys')).keys;
      assert.equal(listed?.last_used, new Date(clock).toISOString());

      // a second flush of the same hour adds up (another instance, or the next batch)
      assert.equal((await call(`/users/${user.id}`)).statusCode, 429);
      await ctx.app.usageRecorder.flush();
      assert.deepEqual(
        (await rowsOf(key.id)).find((r) => r.class === '429'),
        { hour, class: '429', count: 2 },
      );
    });

    it('returns one bucket per hour for the last 48 hours, current hour last, zeros included', async () => {
      const { key, secret } = await newKey();
      const user = await ctx.makeUser();
      const start = clock;
      clock = start - 3 * HOUR; // three hours ago
      assert.equal((await ctx.get(`/users/${user.id}`, { 'x-api-key': secret })).statusCode, 200);
      clock = start - 47 * HOUR; // the oldest hour shown
      assert.equal((await ctx.get(`/users/${user.id}`, { 'x-api-key': secret })).statusCode, 200);
      clock = start - 48 * HOUR; // one hour too old for the chart
      assert.equal((await ctx.get(`/users/${user.id}`, { 'x-api-key': secret })).statusCode, 200);
      clock = start;
      await ctx.app.usageRecorder.flush();
      const result = await usage(key.id);
      assert.equal(result.quota, 100);
      assert.equal(result.hours.length, 48);
      assert.equal(result.hours[47]?.hour, '2026-11-20T10:00:00.000Z');
      assert.equal(result.hours[0]?.hour, '2026-11-18T11:00:00.000Z');
      assert.equal(result.hours[0].total, 1);
      assert.equal(result.hours[44]?.total, 1);
      assert.equal(result.hours[44].hour, '2026-11-20T07:00:00.000Z');
      assert.equal(result.totals.total, 2);
      assert.equal(result.hours.filter((h) => h.total > 0).length, 2);

      assert.equal((await usage(key.id, 1)).hours.length, 1);
      assert.equal((await usage(key.id, 720)).hours.length, 720);
      assert.equal((await usage(key.id, 720)).totals.total, 3);
      for (const bad of ['0', '721', 'x', '1.5']) {
        const res = await session.call('GET', `/keys/${key.id}/usage?hours=${bad}`);
        assert.equal(res.statusCode, 400, bad);
      }
    });

    it('keeps usage at least 30 days: retention deletes only rows older than 35 days', async () => {
      const { key } = await newKey();
      const hourNow = clock - (clock % HOUR);
      const rows = [29, 34, 36, 60].map((days) => ({
        key_id: key.id,
        hour: hourNow - days * DAY,
        class: '2xx' as const,
        count: days,
      }));
      await ctx.testDb.db.kysely.insertInto('key_usage').values(rows).execute();
      clock += 2 * HOUR; // retention runs at most hourly
      await ctx.app.usageRecorder.flush();
      const kept = (await rowsOf(key.id)).map((r) => r.count);
      assert.deepEqual(kept, [34, 29]);
    });
  });

  describe(`usage of failed requests (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('counts a 500 answered after the key was accepted as 5xx', async () => {
      await dropTable(ctx.testDb, 'tournaments');
      const res = await ctx.get('/tournaments');
      assert.equal(res.statusCode, 500);
      const { id } = await ctx.testDb.db.kysely
        .selectFrom('api_keys')
        .select('id')
        .where('name', '=', 'context key')
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        (await ctx.app.usageRecorder.withPending([id], () => Promise.resolve([]))).map((row) => [
          row.class,
          row.count,
        ]),
        [['5xx', 1]],
      );
    });
  });
}
