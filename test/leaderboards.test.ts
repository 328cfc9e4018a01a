import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LeaderboardBody } from '../src/modules/leaderboards/routes.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { expectInvalidParameter } from './helpers/expect-problem.js';

interface Fixture {
  id: number;
  username: string;
  total_xp: number;
}

for (const dialect of testDialects()) {
  describe(`leaderboards (${dialect})`, () => {
    let ctx: TestContext;
    // 120 users: two tied at 5000 XP, one at 4500, then 117 at 10, 20, ..., 1170 XP.
    let tiedLow: Fixture;
    let tiedHigh: Fixture;
    let third: Fixture;
    const fillers: Fixture[] = [];

    before(async () => {
      ctx = await createTestContext(dialect);
      // The lower id gets the later username and join date, so only the id can put it first.
      tiedLow = { ...(await ctx.makeUser({ username: 'zz_tied', total_xp: 5000 })), total_xp: 5000 };
      third = { ...(await ctx.makeUser({ username: 'mid_4500', total_xp: 4500 })), total_xp: 4500 };
      tiedHigh = {
        ...(await ctx.makeUser({ username: 'aa_tied', total_xp: 5000, joined_at: Date.UTC(2020, 0, 1) })),
        total_xp: 5000,
      };
      for (let i = 1; i <= 117; i++) {
        const user = await ctx.makeUser({ total_xp: i * 10 });
        fillers.push({ ...user, total_xp: i * 10 });
      }
    });
    after(() => ctx.close());

    const board = async (query = '') => {
      const res = await ctx.get(`/leaderboards${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return json<LeaderboardBody>(res).leaderboard;
    };

    it('ranks by total XP, ties by lower user id, with exactly the documented fields', async () => {
      const res = await ctx.get('/leaderboards?limit=4');
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      // level from 50·L·(L−1): 5000 and 4500 XP are level 10, 1170 XP is level 5
      assert.deepEqual(json<LeaderboardBody>(res), {
        leaderboard: [
          { rank: 1, user_id: tiedLow.id, username: 'zz_tied', level: 10, total_xp: 5000 },
          { rank: 2, user_id: tiedHigh.id, username: 'aa_tied', level: 10, total_xp: 5000 },
          { rank: 3, user_id: third.id, username: 'mid_4500', level: 10, total_xp: 4500 },
          { rank: 4, user_id: fillers[116]?.id, username: fillers[116]?.username, level: 5, total_xp: 1170 },
        ],
      });
    });

    it('returns 100 entries by default when more users exist, ranked 1..100', async () => {
      const entries = await board();
      assert.equal(entries.length, 100);
      assert.deepEqual(
        entries.map((e) => e.rank),
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      // after the three leaders come fillers from 1170 XP down; the 100th is the 97th filler: 210 XP,
      // level 2 (level 3 starts at 300)
      const last = entries[99];
      assert.deepEqual(last, {
        rank: 100,
        user_id: fillers[20]?.id,
        username: fillers[20]?.username,
        level: 2,
        total_xp: 210,
      });
      for (let i = 1; i < entries.length; i++) {
        const [prev, cur] = [entries[i - 1], entries[i]];
        assert.ok(prev && cur);
        assert.ok(
          prev.total_xp > cur.total_xp || (prev.total_xp === cur.total_xp && prev.user_id < cur.user_id),
          `order broken at rank ${cur.rank}`,
        );
      }
    });

    it('honours limit at both ends of its range', async () => {
      assert.deepEqual(await board('?limit=1'), [
        { rank: 1, user_id: tiedLow.id, username: 'zz_tied', level: 10, total_xp: 5000 },
      ]);
      const max = await board('?limit=100');
      assert.equal(max.length, 100);
      assert.deepEqual(max, await board());
      const some = await board('?limit=37');
      assert.equal(some.length, 37);
      assert.deepEqual(some, max.slice(0, 37));
    });

    it('rejects limit outside 1-100 or not an integer with a problem naming it', async () => {
      for (const bad of ['0', '101', '-1', 'abc', '1.5', '']) {
        await expectInvalidParameter(ctx, `/leaderboards?limit=${bad}`, 'limit', 'an integer from 1 to 100');
      }
    });

    it('takes decimal digits only: hex, exponents, decimals and padding are 400s, not coerced', async () => {
      for (const bad of ['0x10', '1e1', '10.0', '%2010', '10%20', '+10', '0b11']) {
        const problem = await expectInvalidParameter(
          ctx,
          `/leaderboards?limit=${bad}`,
          'limit',
          'an integer from 1 to 100',
        );
        assert.match(problem.detail, /\(got "/, bad);
      }
      // leading zeros are still decimal
      assert.equal((await board('?limit=010')).length, 10);
    });
  });

  describe(`leaderboards on an empty hub (${dialect})`, () => {
    it('is an empty list, not an error', async () => {
      const ctx = await createTestContext(dialect);
      try {
        const res = await ctx.get('/leaderboards');
        assert.equal(res.statusCode, 200);
        assert.deepEqual(json<LeaderboardBody>(res), { leaderboard: [] });
      } finally {
        await ctx.close();
      }
    });
  });
}
