import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { instancesOnSharedRedis, sharedRedisUrl } from './helpers/redis.js';

// Scale-out: several stateless API instances share one quota through Redis.
for (const dialect of testDialects()) {
  describe(
    `quota shared by two API instances through Redis (${dialect})`,
    { skip: !sharedRedisUrl && 'TEST_REDIS_URL is not set' },
    () => {
      let testDb: TestDb;
      let apps: FastifyInstance[];
      before(async () => {
        testDb = await openTestDb(dialect);
        apps = await instancesOnSharedRedis(testDb, 2);
      });
      after(async () => {
        for (const app of apps) await app.close();
        await testDb.drop();
      });

      it('counts requests to either instance against the same hourly quota', async () => {
        const made = factories(testDb.db);
        const user = await made.makeUser();
        const { secret } = await made.makeKey({ tier: 'free', quota: 3 });
        const statuses: number[] = [];
        const remaining: string[] = [];
        for (let i = 0; i < 4; i++) {
          const app = apps[i % 2];
          assert.ok(app);
          const res = await app.inject({
            url: `/api-platform/v1/users/${user.id}`,
            headers: { 'x-api-key': secret },
          });
          statuses.push(res.statusCode);
          remaining.push(String(res.headers['x-ratelimit-remaining']));
        }
        assert.deepEqual(statuses, [200, 200, 200, 429]);
        assert.deepEqual(remaining, ['2', '1', '0', '0']);
      });

      it('refunds a 304 in the shared store, whichever instance answered it', async () => {
        const made = factories(testDb.db);
        const user = await made.makeUser();
        const { secret } = await made.makeKey({ tier: 'free', quota: 5 });
        const [first, second] = apps;
        assert.ok(first && second);
        const url = `/api-platform/v1/users/${user.id}`;
        const fresh = await first.inject({ url, headers: { 'x-api-key': secret } });
        assert.equal(fresh.headers['x-ratelimit-remaining'], '4');
        const etag = String(fresh.headers.etag);
        for (const app of [second, first, second]) {
          const res = await app.inject({ url, headers: { 'x-api-key': secret, 'if-none-match': etag } });
          assert.equal(res.statusCode, 304);
          assert.equal(res.headers['x-ratelimit-remaining'], '4', 'a 304 does not count');
        }
        const again = await second.inject({ url, headers: { 'x-api-key': secret } });
        assert.equal(again.statusCode, 200);
        assert.equal(again.headers['x-ratelimit-remaining'], '3');
      });
    },
  );
}
