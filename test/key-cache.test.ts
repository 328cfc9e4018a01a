import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashKey } from '../src/modules/keys/key-format.js';
import { keysRepo } from '../src/modules/keys/repo.js';
import { newKey } from '../src/modules/keys/service.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';

/**
 * KEY_CACHE_MS: on PostgreSQL an instance may remember the key rows it looked up, for at most that
 * long (the per-request lookup is a database round trip there). The bound is what these pin: a
 * change made elsewhere applies within KEY_CACHE_MS of the read, one made through the instance's
 * own repo at its next request, and a key not found or revoked is never remembered.
 */
const BOUND_MS = 1000;

for (const dialect of testDialects()) {
  // Without SQLite's reader connection: the lookup path PostgreSQL takes, on either database.
  describe(`key lookups remembered for KEY_CACHE_MS (${dialect})`, () => {
    let testDb: TestDb;
    before(async () => {
      testDb = await openTestDb(dialect);
    });
    after(() => testDb.drop());

    const setup = async () => {
      const clock = { at: 1_000_000 };
      const repo = keysRepo(testDb.db.kysely, { cacheMs: BOUND_MS, now: () => clock.at });
      const elsewhere = keysRepo(testDb.db.kysely);
      const { id, secret } = await factories(testDb.db).makeKey();
      const find = async () => (await repo.findForAuth(hashKey(secret), () => true))?.revoked_at ?? 'active';
      return { clock, repo, elsewhere, id, find };
    };

    it('serves a key revoked elsewhere until KEY_CACHE_MS after its last read, and not a moment longer', async () => {
      const { clock, elsewhere, id, find } = await setup();
      assert.equal(await find(), 'active');
      assert.ok(await elsewhere.revoke(id, 42));
      clock.at += BOUND_MS - 1;
      assert.equal(await find(), 'active', 'remembered within the bound (read again without the cache)');
      clock.at += 1;
      assert.equal(await find(), 42, 'read again once the bound has passed');
    });

    it('refuses a key revoked through the same repo at the next request', async () => {
      const { repo, id, find } = await setup();
      assert.equal(await find(), 'active');
      assert.ok(await repo.revoke(id, 43));
      assert.equal(await find(), 43);
    });

    it('remembers neither a key it did not find nor a revoked one', async () => {
      const { clock, elsewhere, id, find, repo } = await setup();
      const { row, secret } = newKey({ name: 'made after a miss', tier: 'free' }, clock.at);
      const missing = () => Promise.resolve(repo.findForAuth(hashKey(secret), () => true));
      assert.equal(await missing(), undefined);
      await elsewhere.insert(row);
      assert.equal((await missing())?.revoked_at, null, 'a new key works at once');
      assert.ok(await elsewhere.revoke(id, 44));
      clock.at += BOUND_MS;
      assert.equal(await find(), 44);
      // were the revoked row remembered, this read would not see the key come back
      await testDb.db.kysely.updateTable('api_keys').set({ revoked_at: null }).where('id', '=', id).execute();
      assert.equal(await find(), 'active');
    });
  });

  describe(`KEY_CACHE_MS through the app (${dialect})`, () => {
    let ctx: TestContext;
    const clock = { at: Date.now() };
    before(async () => {
      ctx = await createTestContext(dialect, { keyCacheMs: BOUND_MS, now: () => clock.at });
    });
    after(() => ctx.close());

    it(
      dialect === 'sqlite'
        ? 'changes nothing on SQLite: a key revoked by another connection is refused at the next request'
        : 'serves a key revoked by another process for at most KEY_CACHE_MS after it was looked up',
      async () => {
        const { id, secret } = await ctx.makeKey();
        const status = async () => (await ctx.get('/leaderboards', { 'x-api-key': secret })).statusCode;
        assert.equal(await status(), 200);
        assert.ok(await keysRepo(ctx.testDb.db.kysely).revoke(id, clock.at));
        if (dialect === 'postgres') {
          clock.at += BOUND_MS - 1;
          assert.equal(await status(), 200, 'within the bound');
          clock.at += 1;
        }
        assert.equal(await status(), 401);
      },
    );
  });
}
