import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TournamentsBody } from '../src/modules/tournaments/routes.js';
import type { UserStatsBody } from '../src/modules/users/routes.js';
import { contentFactories, type ContentFactories } from './helpers/content-factories.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { expectInvalidParameter } from './helpers/expect-problem.js';

type Made = Awaited<ReturnType<ContentFactories['makeTournament']>>;

const at = (iso: string) => Date.parse(iso);

for (const dialect of testDialects()) {
  describe(`tournaments (${dialect})`, () => {
    let ctx: TestContext;
    let content: ContentFactories;
    const t: Record<string, Made> = {};
    const pick = (name: string): Made => {
      const made = t[name];
      assert.ok(made, name);
      return made;
    };
    const rendered = (name: string) => {
      const row = pick(name);
      return {
        id: row.id,
        name: row.name,
        game: row.game,
        status: row.status,
        max_teams: row.max_teams,
        starts_at: new Date(row.starts_at).toISOString(),
      };
    };
    const list = async (query = '') => {
      const res = await ctx.get(`/tournaments${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return json<TournamentsBody>(res).tournaments;
    };

    before(async () => {
      ctx = await createTestContext(dialect);
      content = contentFactories(ctx.testDb.db);
      // Inserted out of date order so that id order and date order disagree.
      const specs = [
        ['u1', 'upcoming', '2026-12-05T10:00:00.000Z', 'cs2', 16],
        ['u2', 'upcoming', '2026-12-01T10:00:00.000Z', 'rust', 8],
        ['a1', 'active', '2026-11-20T18:00:00.000Z', 'cs16', 32],
        ['u3', 'upcoming', '2026-12-01T10:00:00.000Z', 'minecraft', 4],
        ['c1', 'completed', '2026-10-01T12:00:00.000Z', 'cs2', 16],
        ['c2', 'completed', '2026-11-01T12:00:00.000Z', 'cs2', 16],
        ['c3', 'completed', '2026-11-01T12:00:00.000Z', 'rust', 12],
        ['a2', 'active', '2026-11-21T12:30:00.000Z', 'cs2', 64],
      ] as const;
      for (const [key, status, starts, game, maxTeams] of specs) {
        t[key] = await content.makeTournament({
          name: `Cup ${key}`,
          status,
          starts_at: at(starts),
          game,
          max_teams: maxTeams,
        });
      }
    });
    after(() => ctx.close());

    it('without status lists upcoming and active, soonest first, with exactly the documented fields', async () => {
      const res = await ctx.get('/tournaments');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json<TournamentsBody>(res), {
        tournaments: [
          {
            id: pick('a1').id,
            name: 'Cup a1',
            game: 'cs16',
            status: 'active',
            max_teams: 32,
            starts_at: '2026-11-20T18:00:00.000Z',
          },
          {
            id: pick('a2').id,
            name: 'Cup a2',
            game: 'cs2',
            status: 'active',
            max_teams: 64,
            starts_at: '2026-11-21T12:30:00.000Z',
          },
          // u2 and u3 start together: lower id first
          {
            id: pick('u2').id,
            name: 'Cup u2',
            game: 'rust',
            status: 'upcoming',
            max_teams: 8,
            starts_at: '2026-12-01T10:00:00.000Z',
          },
          {
            id: pick('u3').id,
            name: 'Cup u3',
            game: 'minecraft',
            status: 'upcoming',
            max_teams: 4,
            starts_at: '2026-12-01T10:00:00.000Z',
          },
          {
            id: pick('u1').id,
            name: 'Cup u1',
            game: 'cs2',
            status: 'upcoming',
            max_teams: 16,
            starts_at: '2026-12-05T10:00:00.000Z',
          },
        ],
      });
    });

    it('status selects exactly one status', async () => {
      assert.deepEqual(await list('?status=upcoming'), ['u2', 'u3', 'u1'].map(rendered));
      assert.deepEqual(await list('?status=active'), ['a1', 'a2'].map(rendered));
    });

    it('lists completed tournaments most recent first, ties by higher id first', async () => {
      assert.deepEqual(await list('?status=completed'), ['c3', 'c2', 'c1'].map(rendered));
    });

    it('rejects any other status with a problem listing the allowed values', async () => {
      for (const bad of ['UPCOMING', 'finished', '', 'upcoming,active', '1']) {
        await expectInvalidParameter(
          ctx,
          `/tournaments?status=${encodeURIComponent(bad)}`,
          'status',
          'one of: upcoming, active, completed',
        );
      }
    });

    it('user stats count the tournaments a user played', async () => {
      const player = await ctx.makeUser();
      const other = await ctx.makeUser();
      await content.addParticipant(pick('c1').id, player.id);
      await content.addParticipant(pick('a1').id, player.id);
      await content.addParticipant(pick('u1').id, player.id);
      await content.addParticipant(pick('c1').id, other.id);
      const stats = async (id: number) =>
        json<UserStatsBody>(await ctx.get(`/users/${id}/stats`)).stats.tournaments_played;
      assert.equal(await stats(player.id), 3);
      assert.equal(await stats(other.id), 1);
      assert.equal(await stats((await ctx.makeUser()).id), 0);
    });
  });

  describe(`tournaments on an empty hub (${dialect})`, () => {
    it('is an empty list for every status', async () => {
      const ctx = await createTestContext(dialect);
      try {
        for (const query of ['', '?status=upcoming', '?status=active', '?status=completed']) {
          const res = await ctx.get(`/tournaments${query}`);
          assert.equal(res.statusCode, 200);
          assert.deepEqual(json<TournamentsBody>(res), { tournaments: [] });
        }
      } finally {
        await ctx.close();
      }
    });
  });
}
