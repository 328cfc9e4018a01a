import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import type { V1UserStatsBody } from '../src/modules/users/v1-routes.js';
import { contentFactories } from './helpers/content-factories.js';
import { json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import type { MadeUser } from './helpers/factories.js';
import { makeKills, makeRating } from './helpers/killboard-factories.js';
import { v1Context, v1Get, v1Json } from './helpers/v1.js';

const NOW = Date.UTC(2026, 10, 20, 12);

for (const dialect of testDialects()) {
  describe(`GET /v1/users/:id/stats (${dialect})`, () => {
    let ctx: TestContext;
    let player: MadeUser;
    let rival: MadeUser;
    const stats = async (id: number, credential = ctx.key) =>
      (await v1Json<V1UserStatsBody>(ctx, `/users/${id}/stats`, credential)).data;

    before(async () => {
      ctx = await v1Context(
        dialect,
        { 'tok-stats': ['stats:read'], 'tok-servers': ['servers:read'] },
        { now: () => NOW },
      );
      player = await ctx.makeUser({ total_xp: 600, achievements_count: 2 });
      rival = await ctx.makeUser();
      const at = NOW - 3_600_000;
      await makeKills(
        ctx.testDb.db,
        [
          { killer: player, victim: rival, game: 'cs2', headshot: true, occurred_at: at },
          { killer: player, victim: rival, game: 'cs2', headshot: false, occurred_at: at + 1 },
          { killer: player, victim: rival, game: 'cs2', headshot: true, occurred_at: at + 2 },
          { killer: rival, victim: player, game: 'cs2', occurred_at: at + 3 },
          { killer: rival, victim: player, game: 'rust', occurred_at: at + 4 },
        ],
        NOW,
      );
      await makeRating(ctx.testDb.db, { user: player, game: 'cs2', rating: 1084, games: 8, wins: 5 });
      await makeRating(ctx.testDb.db, { user: player, game: 'cs16', rating: 990, games: 3, wins: 1 });
      const content = contentFactories(ctx.testDb.db);
      const first = await content.makeAchievement({ name: 'First Blood', icon: '🩸', category: 'combat' });
      const later = await content.makeAchievement({ name: 'Regular', icon: '📅', category: 'community' });
      await ctx.testDb.db.kysely
        .insertInto('user_achievements')
        .values([
          { user_id: player.id, achievement_id: first.id, unlocked_at: NOW - 86_400_000 },
          { user_id: player.id, achievement_id: later.id, unlocked_at: NOW - 3_600_000 },
        ])
        .execute();
      ids.first = first.id;
      ids.later = later.id;
    });
    const ids: Record<string, number> = {};
    after(() => ctx.close());

    it('has the published stats plus Elo, kills/deaths/headshots per game and unlocked achievements', async () => {
      const published = await ctx.get(`/users/${player.id}/stats`);
      const { stats: base } = json<{ stats: Record<string, number> }>(published);
      assert.deepEqual(await stats(player.id), {
        user_id: String(player.id),
        ...base,
        elo: [
          { game: 'cs16', rank: 1, rating: 990, games: 3, wins: 1, win_pct: 33.3 },
          { game: 'cs2', rank: 1, rating: 1084, games: 8, wins: 5, win_pct: 62.5 },
        ],
        combat: [
          { game: 'cs2', kills: 3, deaths: 1, headshots: 2, hs_pct: 66.7 },
          { game: 'rust', kills: 0, deaths: 1, headshots: 0, hs_pct: 0 },
        ],
        unlocked_achievements: [
          {
            id: ids.later,
            name: 'Regular',
            icon: '📅',
            category: 'community',
            unlocked_at: new Date(NOW - 3_600_000).toISOString(),
          },
          {
            id: ids.first,
            name: 'First Blood',
            icon: '🩸',
            category: 'combat',
            unlocked_at: new Date(NOW - 86_400_000).toISOString(),
          },
        ],
      });
      assert.equal(base.total_xp, 600);
    });

    it('reads deaths from the death_totals rollup kept beside the kills, not by counting raw kills', async () => {
      const killer = await ctx.makeUser();
      const victim = await ctx.makeUser();
      const at = NOW - 60_000;
      await makeKills(
        ctx.testDb.db,
        [
          { killer, victim, game: 'cs16', occurred_at: at },
          { killer, victim, game: 'cs16', occurred_at: at + 1 },
        ],
        NOW,
      );
      const expected = [{ game: 'cs16', kills: 0, deaths: 2, headshots: 0, hs_pct: 0 }];
      assert.deepEqual((await stats(victim.id)).combat, expected);
      // without the raw rows the answer stands: the request counted nothing in `kills`
      await ctx.testDb.db.kysely.deleteFrom('kills').where('victim_user_id', '=', victim.id).execute();
      assert.deepEqual((await stats(victim.id)).combat, expected);
    });

    it('gives each player their place on the ladder, in its order, beyond its top 200 too', async () => {
      // 250 more cs2 players, two on each rating, made in an order unlike the ladder's
      const made = [];
      for (let i = 0; i < 250; i++) made.push(await ctx.makeUser());
      const rated = made.map((user, i) => ({ user, rating: 1000 + ((i * 37) % 125) * 3 }));
      await Promise.all(
        rated.map(({ user, rating }) =>
          makeRating(ctx.testDb.db, { user, game: 'cs2', rating, games: 10, wins: 5 }),
        ),
      );
      const ladder = [...rated, { user: player, rating: 1084 }].sort(
        (a, b) => b.rating - a.rating || a.user.id - b.user.id,
      );
      // the top, both sides of 200, and the bottom: tied pairs included (places 200 and 201 share a rating)
      const places = [1, 2, 3, 100, 199, 200, 201, 202, 250, 251];
      const ranks = [];
      for (const place of places) {
        const { user } = ladder[place - 1] ?? assert.fail(`no place ${place}`);
        ranks.push((await stats(user.id)).elo.find((e) => e.game === 'cs2')?.rank);
      }
      assert.deepEqual(ranks, places);
      // the published ladder's first 200 places are the same players
      const published = json<{ leaderboard: { rank: number; user_id: number }[] }>(
        await ctx.get('/stats/elo?game=cs2&limit=200'),
      ).leaderboard;
      assert.deepEqual(
        published.map((e) => e.user_id),
        ladder.slice(0, 200).map((e) => e.user.id),
      );
      assert.equal((await stats(player.id)).elo.find((e) => e.game === 'cs16')?.rank, 1);
    });

    it('is empty-handed, not absent, for a user who has not played', async () => {
      const fresh = await ctx.makeUser();
      const body = await stats(fresh.id);
      assert.deepEqual([body.elo, body.combat, body.unlocked_achievements], [[], [], []]);
      assert.equal(body.total_xp, 0);
    });

    it('takes an OAuth token with stats:read; another scope is 403; an unknown user 404; a bad id 400', async () => {
      assert.deepEqual((await stats(rival.id, 'tok-stats')).combat, [
        { game: 'cs2', kills: 1, deaths: 3, headshots: 0, hs_pct: 0 },
        { game: 'rust', kills: 1, deaths: 0, headshots: 0, hs_pct: 0 },
      ]);
      const wrong = await v1Get(ctx, `/users/${rival.id}/stats`, 'tok-servers');
      assert.equal(wrong.statusCode, 403);
      assert.equal(json<Problem>(wrong).code, 'insufficient_scope');
      const unknown = await v1Get(ctx, '/users/999999/stats', ctx.key);
      assert.equal(unknown.statusCode, 404);
      assert.equal(json<Problem>(unknown).code, 'user_not_found');
      for (const bad of ['0', 'abc', '99999999999', '@me']) {
        const res = await v1Get(ctx, `/users/${bad}/stats`, ctx.key);
        assert.equal(res.statusCode, 400, bad);
        assert.equal(json<Problem>(res).code, 'invalid_parameter', bad);
      }
    });
  });
}
