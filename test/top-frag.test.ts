import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import { ensureFragWindow } from '../src/modules/killboard/rollups.js';
import type { TopFragBody } from '../src/modules/killboard/routes.js';
import type { MadeUser } from './helpers/factories.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { makeKills, type KillFields } from './helpers/killboard-factories.js';

const DAY = 86_400_000;
const TODAY = Date.UTC(2026, 10, 20); // midnight UTC, Friday 2026-11-20
const NOON = TODAY + 12 * 3_600_000;
const NAMES = ['today', 'd6', 'd7', 'd29', 'd30', 'd89'] as const;

const nth = <T>(items: T[], i: number): T => {
  const item = items[i];
  assert.ok(item !== undefined, `no item ${i}`);
  return item;
};

/** `count` kills by `killer`, the first `headshots` of them headshots. */
const kills = (
  killer: MadeUser,
  victim: MadeUser,
  count: number,
  headshots: number,
  occurred_at: number,
  game: KillFields['game'] = 'cs2',
): KillFields[] =>
  Array.from({ length: count }, (_, i) => ({ killer, victim, game, headshot: i < headshots, occurred_at }));

for (const dialect of testDialects()) {
  describe(`top-frag periods with a moving clock (${dialect})`, () => {
    let ctx: TestContext;
    let clock = NOON;
    let p: Record<(typeof NAMES)[number], MadeUser>;

    const leaders = async (query: string) => {
      const res = await ctx.get(`/killboard/top-frag${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return json<TopFragBody>(res);
    };
    /** [username, kills] per leader: enough to see who is in which period */
    const board = async (period: string) =>
      (await leaders(`?period=${period}`)).leaders.map((l) => [l.name, l.kills]);

    before(async () => {
      ctx = await createTestContext(dialect, { now: () => clock });
      const victim = await ctx.makeUser({ username: 'victim' });
      const made = [];
      for (const username of NAMES) made.push(await ctx.makeUser({ username }));
      const [today, d6, d7, d29, d30, d89] = made as [
        MadeUser,
        MadeUser,
        MadeUser,
        MadeUser,
        MadeUser,
        MadeUser,
      ];
      p = { today, d6, d7, d29, d30, d89 };
      const at = (daysAgo: number, msIntoDay: number) => TODAY - daysAgo * DAY + msIntoDay;
      const v = victim;
      await makeKills(
        ctx.testDb.db,
        [
          // each player's count is distinct, so the boards read in one order
          ...kills(p.today, v, 6, 2, at(0, 1)), // 33.3 %
          ...kills(p.d6, v, 5, 0, at(6, 0)), // first instant of the week
          ...kills(p.d7, v, 4, 3, at(7, DAY - 1)), // last instant before it
          ...kills(p.d29, v, 3, 2, at(29, 0)), // 66.7 %, first instant of the month
          ...kills(p.d30, v, 2, 1, at(30, DAY - 1)),
          ...kills(p.d89, v, 1, 1, at(89, 5000)),
        ],
        clock,
      );
    });
    after(() => ctx.close());

    it('puts each kill in exactly the periods it belongs to', async () => {
      assert.deepEqual(await board('week'), [
        ['today', 6],
        ['d6', 5],
      ]);
      assert.deepEqual(await board('month'), [
        ['today', 6],
        ['d6', 5],
        ['d7', 4],
        ['d29', 3],
      ]);
      const all = [
        ['today', 6],
        ['d6', 5],
        ['d7', 4],
        ['d29', 3],
        ['d30', 2],
        ['d89', 1],
      ];
      assert.deepEqual(await board('all'), all);
      assert.deepEqual(
        (await leaders('')).leaders.map((l) => [l.name, l.kills]),
        all,
      );
    });

    it('echoes the period, default all, with exactly the documented fields', async () => {
      const body = await leaders('');
      assert.equal(body.period, 'all');
      assert.deepEqual(Object.keys(body), ['period', 'leaders']);
      assert.deepEqual(body.leaders[0], {
        rank: 1,
        user_id: p.today.id,
        steam_id: p.today.steam_id,
        name: 'today',
        game: 'cs2',
        kills: 6,
        headshots: 2,
        hs_pct: 33.3,
      });
      assert.deepEqual(
        body.leaders.map((l) => [l.rank, l.hs_pct]),
        [
          [1, 33.3],
          [2, 0],
          [3, 75],
          [4, 66.7],
          [5, 50],
          [6, 100],
        ],
      );
      assert.equal((await leaders('?period=week')).period, 'week');
      assert.equal((await leaders('?period=month')).period, 'month');
    });

    it('does not re-check the window on the same UTC day', async () => {
      await leaders('?period=week');
      const meta = ctx.testDb.db.kysely
        .selectFrom('meta')
        .select('value')
        .where('key', '=', 'frag_window_day');
      const today = String(TODAY / DAY);
      assert.equal((await meta.executeTakeFirstOrThrow()).value, today);
      // Move the stored window behind the app's back: a memoised reader does not notice today.
      await ctx.testDb.db.kysely
        .updateTable('meta')
        .set({ value: '1' })
        .where('key', '=', 'frag_window_day')
        .execute();
      clock = NOON + 3_600_000;
      await leaders('?period=week');
      assert.equal((await meta.executeTakeFirstOrThrow()).value, '1');
      await ctx.testDb.db.kysely
        .updateTable('meta')
        .set({ value: today })
        .where('key', '=', 'frag_window_day')
        .execute();
    });

    it('moves week and month when the UTC day changes', async () => {
      clock = TODAY + DAY; // 00:00:00.000 the next day
      assert.deepEqual(await board('week'), [['today', 6]]);
      assert.deepEqual(await board('month'), [
        ['today', 6],
        ['d6', 5],
        ['d7', 4],
      ]);
      assert.equal((await board('all')).length, 6);
      const stored = await ctx.testDb.db.kysely
        .selectFrom('meta')
        .select('value')
        .where('key', '=', 'frag_window_day')
        .executeTakeFirstOrThrow();
      assert.equal(stored.value, String(TODAY / DAY + 1));

      // a kill on the new day counts in every period straight away
      await makeKills(ctx.testDb.db, kills(p.d89, p.d30, 7, 0, clock + 1000), clock);
      assert.deepEqual(await board('week'), [
        ['d89', 7],
        ['today', 6],
      ]);
      assert.deepEqual((await board('all'))[0], ['d89', 8]);
    });

    it('never moves the window back for a process whose clock lags', async () => {
      const yesterday = TODAY / DAY;
      assert.equal(await ensureFragWindow(ctx.testDb.db.kysely, yesterday), yesterday + 1);
      assert.deepEqual(await board('week'), [
        ['d89', 7],
        ['today', 6],
      ]);
    });
  });

  describe(`top-frag ranking and parameters (${dialect})`, () => {
    let ctx: TestContext;
    let low: MadeUser, high: MadeUser, sharp: MadeUser, rusty: MadeUser;
    let crowd: MadeUser[] = [];

    const leaders = async (query: string) => {
      const res = await ctx.get(`/killboard/top-frag${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return json<TopFragBody>(res).leaders;
    };
    const rows = async (query: string) =>
      (await leaders(query)).map((l) => [l.rank, l.user_id, l.game, l.kills, l.headshots, l.hs_pct]);

    before(async () => {
      ctx = await createTestContext(dialect);
      low = await ctx.makeUser({ username: 'low' });
      high = await ctx.makeUser({ username: 'high' });
      sharp = await ctx.makeUser({ username: 'sharp' });
      rusty = await ctx.makeUser({ username: 'rusty', steam_id: null });
      const victim = await ctx.makeUser({ username: 'victim' });
      // created in parallel for speed, so ranked by their ids whatever order they got
      crowd = (
        await Promise.all(Array.from({ length: 101 }, (_, i) => ctx.makeUser({ username: `crowd${i}` })))
      ).sort((a, b) => a.id - b.id);
      const now = Date.now();
      // the higher user id's kills are written first, so insertion order cannot fake the tie-break
      await makeKills(ctx.testDb.db, [
        ...kills(high, victim, 3, 1, now - 3000),
        ...kills(low, victim, 3, 0, now - 2000, 'cs2'),
        ...kills(low, victim, 3, 3, now - 2000, 'cs16'),
        ...kills(sharp, victim, 16, 1, now - 1000), // 6.25 → 6.3
        ...kills(rusty, victim, 3, 2, now - 1000, 'rust'), // 66.67 → 66.7
        ...crowd.map((c) => ({ killer: c, victim, game: 'rust' as const, occurred_at: now - 500 })),
      ]);
    });
    after(() => ctx.close());

    it('ranks one row per (player, game): kills desc, then user id, then game', async () => {
      assert.deepEqual(await rows('?limit=5'), [
        [1, sharp.id, 'cs2', 16, 1, 6.3],
        [2, low.id, 'cs16', 3, 3, 100],
        [3, low.id, 'cs2', 3, 0, 0],
        [4, high.id, 'cs2', 3, 1, 33.3],
        [5, rusty.id, 'rust', 3, 2, 66.7],
      ]);
      const sixth = (await leaders('?limit=6'))[5];
      assert.deepEqual(sixth, {
        rank: 6,
        user_id: nth(crowd, 0).id,
        steam_id: nth(crowd, 0).steam_id,
        name: nth(crowd, 0).username,
        game: 'rust',
        kills: 1,
        headshots: 0,
        hs_pct: 0,
      });
    });

    it('filters by game', async () => {
      assert.deepEqual(await rows('?game=cs2'), [
        [1, sharp.id, 'cs2', 16, 1, 6.3],
        [2, low.id, 'cs2', 3, 0, 0],
        [3, high.id, 'cs2', 3, 1, 33.3],
      ]);
      assert.deepEqual(await rows('?game=cs16&period=week'), [[1, low.id, 'cs16', 3, 3, 100]]);
      const rust = await leaders('?game=rust&limit=2');
      assert.deepEqual(rust[0], {
        rank: 1,
        user_id: rusty.id,
        steam_id: null,
        name: 'rusty',
        game: 'rust',
        kills: 3,
        headshots: 2,
        hs_pct: 66.7,
      });
      assert.equal(rust[1]?.user_id, nth(crowd, 0).id);
    });

    it('enforces limit 1-100, default 25', async () => {
      assert.equal((await leaders('')).length, 25);
      assert.deepEqual(
        (await leaders('?limit=1')).map((l) => l.user_id),
        [sharp.id],
      );
      const max = await leaders('?limit=100');
      assert.equal(max.length, 100);
      assert.deepEqual(
        max.slice(-1).map((l) => [l.rank, l.user_id]),
        [[100, nth(crowd, 94).id]],
      );
      for (const bad of ['0', '101', 'abc', '-5', '2.5']) {
        const res = await ctx.get(`/killboard/top-frag?limit=${bad}`);
        assert.equal(res.statusCode, 400, bad);
        const problem = json<Problem>(res);
        assert.equal(problem.errors?.[0]?.name, 'limit', bad);
        assert.match(problem.detail, /1 to 100/);
      }
    });

    it('rejects unknown periods and games', async () => {
      for (const [param, bad, allowed] of [
        ['period', 'day', /week, month, all/],
        ['period', 'WEEK', /week, month, all/],
        ['period', '', /week, month, all/],
        ['game', 'minecraft', /cs2, cs16, rust/],
        ['game', 'cs', /cs2, cs16, rust/],
      ] as const) {
        const res = await ctx.get(`/killboard/top-frag?${param}=${bad}`);
        assert.equal(res.statusCode, 400, `${param}=${bad}`);
        const problem = json<Problem>(res);
        assert.equal(problem.code, 'invalid_parameter');
        assert.equal(problem.errors?.[0]?.name, param);
        assert.match(problem.detail, allowed);
      }
    });
  });
}
