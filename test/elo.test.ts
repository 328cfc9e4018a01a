import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import type { EloLadderBody } from '../src/modules/elo/routes.js';
import type { MadeUser } from './helpers/factories.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { makeRating } from './helpers/killboard-factories.js';

for (const dialect of testDialects()) {
  describe(`ELO ladder (${dialect})`, () => {
    let ctx: TestContext;
    let ace: MadeUser, low: MadeUser, high: MadeUser, fresh: MadeUser, vet: MadeUser;
    const crowd: MadeUser[] = [];

    const ladder = async (query: string) => {
      const res = await ctx.get(`/stats/elo${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return json<EloLadderBody>(res);
    };
    const rows = async (query: string) =>
      (await ladder(query)).leaderboard.map((e) => [e.rank, e.user_id, e.rating, e.games, e.wins, e.win_pct]);

    before(async () => {
      ctx = await createTestContext(dialect);
      ace = await ctx.makeUser({ username: 'ace' });
      low = await ctx.makeUser({ username: 'low' });
      high = await ctx.makeUser({ username: 'high', steam_id: null });
      fresh = await ctx.makeUser({ username: 'fresh' });
      vet = await ctx.makeUser({ username: 'vet' });
      const db = ctx.testDb.db;
      // the higher id is written first, so insertion order cannot fake the tie-break
      await makeRating(db, { user: high, rating: 1200, games: 3, wins: 2 }); // 66.7
      await makeRating(db, { user: low, rating: 1200, games: 3, wins: 1 }); // 33.3
      await makeRating(db, { user: ace, rating: 1500, games: 20, wins: 12 }); // 60
      await makeRating(db, { user: fresh, rating: 1000, games: 0, wins: 0 });
      await makeRating(db, { user: vet, game: 'cs16', rating: 1800, games: 16, wins: 1 }); // 6.25 → 6.3
      await makeRating(db, { user: low, game: 'cs16', rating: 1000, games: 8, wins: 7 }); // 87.5
      crowd.push(
        ...(await Promise.all(
          Array.from({ length: 201 }, async (_, i) => {
            const user = await ctx.makeUser({ username: `crowd${i}` });
            await makeRating(db, { user, rating: 900 - i, games: 1, wins: 0 });
            return user;
          }),
        )),
      );
    });
    after(() => ctx.close());

    it('ranks by rating desc, ties to the lower user id, with exactly the documented fields', async () => {
      const body = await ladder('?limit=4');
      assert.deepEqual(body, {
        game: 'cs2',
        leaderboard: [
          {
            rank: 1,
            user_id: ace.id,
            steam_id: ace.steam_id,
            name: 'ace',
            rating: 1500,
            games: 20,
            wins: 12,
            win_pct: 60,
          },
          {
            rank: 2,
            user_id: low.id,
            steam_id: low.steam_id,
            name: 'low',
            rating: 1200,
            games: 3,
            wins: 1,
            win_pct: 33.3,
          },
          {
            rank: 3,
            user_id: high.id,
            steam_id: null,
            name: 'high',
            rating: 1200,
            games: 3,
            wins: 2,
            win_pct: 66.7,
          },
          {
            rank: 4,
            user_id: fresh.id,
            steam_id: fresh.steam_id,
            name: 'fresh',
            rating: 1000,
            games: 0,
            wins: 0,
            win_pct: 0,
          },
        ],
      });
    });

    it('keeps the games apart and echoes the game, default cs2', async () => {
      assert.equal((await ladder('')).game, 'cs2');
      assert.equal((await ladder('?game=cs2')).game, 'cs2');
      const cs16 = await ladder('?game=cs16');
      assert.equal(cs16.game, 'cs16');
      assert.deepEqual(await rows('?game=cs16'), [
        [1, vet.id, 1800, 16, 1, 6.3],
        [2, low.id, 1000, 8, 7, 87.5],
      ]);
    });

    it('enforces limit 1-200, default 100', async () => {
      const byDefault = await rows('');
      assert.equal(byDefault.length, 100);
      assert.deepEqual(byDefault[99], [100, crowd[95]?.id, 805, 1, 0, 0]);
      assert.deepEqual(await rows('?limit=1'), [[1, ace.id, 1500, 20, 12, 60]]);
      const max = await rows('?limit=200');
      assert.equal(max.length, 200);
      assert.deepEqual(max[199], [200, crowd[195]?.id, 705, 1, 0, 0]);
      for (const bad of ['0', '201', 'abc', '-1', '1.5']) {
        const res = await ctx.get(`/stats/elo?limit=${bad}`);
        assert.equal(res.statusCode, 400, bad);
        const problem = json<Problem>(res);
        assert.equal(problem.code, 'invalid_parameter');
        assert.equal(problem.errors?.[0]?.name, 'limit', bad);
        assert.match(problem.detail, /1 to 200/);
      }
    });

    it('rejects games without a ladder', async () => {
      for (const bad of ['rust', 'minecraft', 'CS2', '']) {
        const res = await ctx.get(`/stats/elo?game=${bad}`);
        assert.equal(res.statusCode, 400, bad);
        const problem = json<Problem>(res);
        assert.equal(problem.errors?.[0]?.name, 'game', bad);
        assert.match(problem.detail, /one of: cs2, cs16/);
      }
    });

    it('documents the Elo formula, and every query parameter as optional', async () => {
      const doc = json<{
        paths: Record<
          string,
          { get: { description: string; parameters: { name: string; required: boolean }[] } }
        >;
      }>(await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }));
      for (const [path, names] of [
        ['/api-platform/v1/stats/elo', ['game', 'limit']],
        ['/api-platform/v1/killboard/feed', ['game', 'player', 'limit']],
        ['/api-platform/v1/killboard/top-frag', ['period', 'game', 'limit']],
      ] as const) {
        assert.deepEqual(
          doc.paths[path]?.get.parameters
            .filter((p) => p.name !== 'If-None-Match')
            .map((p) => [p.name, p.required]),
          names.map((name) => [name, false]),
          path,
        );
      }
      const description = doc.paths['/api-platform/v1/stats/elo']?.get.description ?? '';
      assert.match(description, /starts at 1000/);
      assert.match(description, /E = 1 \/ \(1 \+ 10\^\(\(R_opponent − R_team\) \/ 400\)\)/);
      assert.match(description, /K is 50, or 100 during a player's first 10 rated matches/);
    });
  });
}
