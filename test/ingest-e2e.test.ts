import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { IngestResultBody } from '../src/modules/ingest/routes.js';
import type { UserBody, UserStatsBody } from '../src/modules/users/routes.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { postLogs, registerServer, stamp } from './helpers/ingest.js';

/**
 * A whole CS2 match, scripted as the server writes it and posted through the HTTP log endpoint in
 * three batches, then checked against values worked out by hand (see the comments).
 *
 * CT: Alice [U:1:1001], Bob [U:1:1002]   T: Carol [U:1:1003], `D"ave [☃] <x>` [U:1:1004]
 *   round 1: Alice kills Carol (ak47, headshot, 2000 units = 50.8 m), Alice kills Dave (ak47, 500 u = 12.7 m)   CT 1:0
 *   round 2: Carol kills Alice (awp, headshot), Bob kills Carol (knife), Dave kills Bob (glock)                  1:1
 *            Dave disconnects (played 2 of 3 rounds)
 *   round 3: Alice kills Carol (deagle, headshot, 25.4 m)                                                         CT 2:1
 *   Game Over 2:1 -> CT (team 1) wins.
 */
const T = Date.UTC(2026, 10, 21, 18, 0, 0);
const NOW = Date.UTC(2026, 10, 21, 20, 0, 0);
const DAVE = 'D"ave [☃] <x>';
const P = {
  alice: { tag: 'Alice<2><[U:1:1001]>', steam: '76561197960266729' },
  bob: { tag: 'Bob<3><[U:1:1002]>', steam: '76561197960266730' },
  carol: { tag: 'Carol<4><[U:1:1003]>', steam: '76561197960266731' },
  dave: { tag: `${DAVE}<5><[U:1:1004]>`, steam: '76561197960266732' },
};
type Who = keyof typeof P;
let clock = 0;
const line = (body: string) => stamp(T + ++clock * 1000) + body;
const side = (who: Who) => (who === 'alice' || who === 'bob' ? 'CT' : 'TERRORIST');
const kill = (a: Who, b: Who, weapon: string, to: string, hs = false) =>
  line(
    `"${P[a].tag}<${side(a)}>" [0 0 0] killed "${P[b].tag}<${side(b)}>" [${to}] with "${weapon}"${hs ? ' (headshot)' : ''}`,
  );

const batch1 = [
  line('Loading map "de_dust2"'),
  line('World triggered "Match_Start" on "de_dust2"'),
  ...(['alice', 'bob', 'carol', 'dave'] as const).map((w) =>
    line(`"${P[w].tag}" switched from team <Unassigned> to <${side(w) === 'CT' ? 'CT' : 'TERRORIST'}>`),
  ),
  line('World triggered "Round_Start"'),
  kill('alice', 'carol', 'ak47', '0 2000 0', true),
  kill('alice', 'dave', 'ak47', '300 400 0'),
  line('Team "CT" triggered "SFUI_Notice_CTs_Win" (CT "1") (T "0")'),
  line('World triggered "Round_End"'),
];
const batch2 = [
  line('World triggered "Round_Start"'),
  kill('carol', 'alice', 'awp', '0 0 100', true),
  kill('bob', 'carol', 'knife', '30 40 0'),
  kill('dave', 'bob', 'glock', '0 0 0'),
  line('Team "TERRORIST" triggered "SFUI_Notice_Terrorists_Win" (CT "1") (T "1")'),
  line('World triggered "Round_End"'),
  line(`"${P.dave.tag}<TERRORIST>" disconnected (reason "NETWORK_DISCONNECT_DISCONNECT_BY_USER")`),
];
const batch3 = [
  line('World triggered "Round_Start"'),
  kill('alice', 'carol', 'deagle', '0 1000 0', true),
  line('Team "CT" triggered "SFUI_Notice_CTs_Win" (CT "2") (T "1")'),
  line('World triggered "Round_End"'),
  line('Game Over: competitive mg_active de_dust2 score 2:1 after 5 min'),
];

/** A public read through the app; it must answer 200. */
async function route(ctx: TestContext, path: string) {
  const res = await ctx.get(path);
  assert.equal(res.statusCode, 200, res.body);
  return res;
}

for (const dialect of testDialects()) {
  describe(`end to end: a scripted CS2 match through the HTTP log endpoint (${dialect})`, () => {
    let ctx: TestContext;
    const ids: Record<Who, number> = { alice: 0, bob: 0, carol: 0, dave: 0 };
    before(async () => {
      ctx = await createTestContext(dialect, { now: () => NOW });
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const results: IngestResultBody[] = [];
      for (const [i, b] of [batch1, batch2, batch3].entries()) {
        const res = await postLogs(ctx, server.token, b, i === 1);
        assert.equal(res.statusCode, 200, res.body);
        results.push(json<IngestResultBody>(res));
      }
      assert.deepEqual(
        results.map((r) => [r.accepted, r.rejected, r.kills, r.matches]),
        // a round's kills count when the next round starts (or the match ends)
        [
          [11, 0, 0, 0],
          [7, 0, 2, 0],
          [5, 0, 4, 1],
        ],
      );
      const users = await ctx.testDb.db.kysely
        .selectFrom('users')
        .select(['id', 'steam_id', 'username'])
        .execute();
      for (const who of Object.keys(P) as Who[]) {
        const u = users.find((x) => x.steam_id === P[who].steam);
        assert.ok(u, `${who} has a hub profile`);
        ids[who] = u.id;
      }
      assert.equal(users.find((u) => u.id === ids.dave)?.username, DAVE);
    });
    after(() => ctx.close());
    const db = () => ctx.testDb.db.kysely;

    it('stores the six kills with rounds, headshots and distances in metres', async () => {
      const kills = await db()
        .selectFrom('kills')
        .select(['killer_user_id', 'victim_user_id', 'weapon', 'headshot', 'distance', 'round_number'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        kills.map((k) => [
          k.killer_user_id,
          k.victim_user_id,
          k.weapon,
          k.headshot,
          k.distance,
          k.round_number,
        ]),
        [
          [ids.alice, ids.carol, 'ak47', 1, 50.8, 1],
          [ids.alice, ids.dave, 'ak47', 0, 12.7, 1],
          [ids.carol, ids.alice, 'awp', 1, 2.54, 2],
          [ids.bob, ids.carol, 'knife', 0, 1.27, 2],
          [ids.dave, ids.bob, 'glock', 0, 0, 2],
          [ids.alice, ids.carol, 'deagle', 1, 25.4, 3],
        ],
      );
    });

    it('rolls kills up per player and day and into every top-frag period', async () => {
      const totals = await db()
        .selectFrom('frag_totals')
        .select(['period', 'user_id', 'kills', 'headshots'])
        .where('game', '=', 'cs2')
        .orderBy('period')
        .orderBy('user_id')
        .execute();
      for (const period of ['all', 'month', 'week'] as const) {
        assert.deepEqual(
          totals.filter((t) => t.period === period).map((t) => [t.user_id, t.kills, t.headshots]),
          [
            [ids.alice, 3, 2],
            [ids.bob, 1, 0],
            [ids.carol, 1, 1],
            [ids.dave, 1, 0],
          ],
          period,
        );
      }
    });

    it('rates the match with team Elo (placement K 100, equal teams: ±50; the leaver loses in full)', async () => {
      const match = await db().selectFrom('matches').selectAll().executeTakeFirstOrThrow();
      assert.deepEqual(
        [match.map, match.team1_score, match.team2_score, match.winner],
        ['de_dust2', 2, 1, 1],
      );
      const history = await db()
        .selectFrom('elo_history')
        .select(['match_id', 'user_id', 'rating_before', 'rating_after'])
        .orderBy('user_id')
        .execute();
      assert.deepEqual(history, [
        { match_id: match.id, user_id: ids.alice, rating_before: 1000, rating_after: 1050 },
        { match_id: match.id, user_id: ids.bob, rating_before: 1000, rating_after: 1050 },
        { match_id: match.id, user_id: ids.carol, rating_before: 1000, rating_after: 950 },
        { match_id: match.id, user_id: ids.dave, rating_before: 1000, rating_after: 950 },
      ]);
      const ratings = await db()
        .selectFrom('elo_ratings')
        .select(['user_id', 'rating', 'games', 'wins'])
        .orderBy('user_id')
        .execute();
      assert.deepEqual(
        ratings.map((r) => [r.user_id, r.rating, r.games, r.wins]),
        [
          [ids.alice, 1050, 1, 1],
          [ids.bob, 1050, 1, 1],
          [ids.carol, 950, 1, 0],
          [ids.dave, 950, 1, 0],
        ],
      );
    });

    it('awards XP, levels and achievements, visible through /users/{id} and /users/{id}/stats', async () => {
      // Alice: 3 kills 30 + 2 headshots 10 + played 20 + won 50 = 110; First Blood 50, Long Shot 100,
      //        Rookie 50, Winner 100 -> 410 XP, level 3 (300..599), 110 into the level.
      // Bob:   knife kill 10 + 20 + 50 = 80; First Blood, Knife Party 100, Rookie, Winner -> 380, level 3.
      // Carol: awp headshot 15 + 20 = 35; First Blood, Rookie -> 135, level 2.
      // Dave:  glock kill 10 + 20 = 30; First Blood, Rookie -> 130, level 2.
      const expected: Record<Who, [number, number, number, string[]]> = {
        alice: [410, 3, 110, ['first_blood', 'first_win', 'long_shot', 'rookie']],
        bob: [380, 3, 80, ['first_blood', 'first_win', 'knife_party', 'rookie']],
        carol: [135, 2, 35, ['first_blood', 'rookie']],
        dave: [130, 2, 30, ['first_blood', 'rookie']],
      };
      for (const who of Object.keys(P) as Who[]) {
        const [totalXp, level, xp, codes] = expected[who];
        const stats = json<UserStatsBody>(await ctx.get(`/users/${ids[who]}/stats`)).stats;
        assert.deepEqual(stats, {
          xp,
          level,
          total_xp: totalXp,
          achievements: codes.length,
          forum_posts: 0,
          tournaments_played: 0,
        });
        const user = json<UserBody>(await ctx.get(`/users/${ids[who]}`)).user;
        assert.deepEqual([user.level, user.achievements_count], [level, codes.length]);
        const held = await db()
          .selectFrom('user_achievements as ua')
          .innerJoin('achievements as a', 'a.id', 'ua.achievement_id')
          .select('a.code')
          .where('ua.user_id', '=', ids[who])
          .orderBy('a.code')
          .execute();
        assert.deepEqual(
          held.map((h) => h.code),
          codes,
          who,
        );
      }
      // level-ups are recorded per batch: Alice reached 2 in batch 1 (175 XP) and 3 in batch 3
      const ups = await db()
        .selectFrom('level_ups')
        .select(['from_level', 'to_level'])
        .where('user_id', '=', ids.alice)
        .orderBy('id')
        .execute();
      assert.deepEqual(ups, [
        { from_level: 1, to_level: 2 },
        { from_level: 2, to_level: 3 },
      ]);
    });

    it('GET /killboard/feed lists the kills newest first', async () => {
      const res = await route(ctx, '/killboard/feed?game=cs2&limit=10');
      const { kills } = json<{
        kills: {
          game: string;
          killer: { steam_id: string; user_id: number; name: string };
          victim: { steam_id: string; user_id: number; name: string };
          weapon: string;
          headshot: boolean;
          distance: number;
          round_number: number;
        }[];
      }>(res);
      assert.deepEqual(
        kills.map((k) => [k.killer.name, k.victim.name, k.weapon, k.headshot, k.distance, k.round_number]),
        [
          ['Alice', 'Carol', 'deagle', true, 25.4, 3],
          [DAVE, 'Bob', 'glock', false, 0, 2],
          ['Bob', 'Carol', 'knife', false, 1.27, 2],
          ['Carol', 'Alice', 'awp', true, 2.54, 2],
          ['Alice', DAVE, 'ak47', false, 12.7, 1],
          ['Alice', 'Carol', 'ak47', true, 50.8, 1],
        ],
      );
      assert.deepEqual(kills[0]?.killer, { steam_id: P.alice.steam, user_id: ids.alice, name: 'Alice' });
    });

    it('GET /killboard/top-frag ranks by kills, ties by user id', async () => {
      const res = await route(ctx, '/killboard/top-frag?period=week&game=cs2');
      const body = json<{
        period: string;
        leaders: { rank: number; user_id: number; kills: number; headshots: number }[];
      }>(res);
      assert.equal(body.period, 'week');
      assert.deepEqual(
        body.leaders.map((l) => [l.rank, l.user_id, l.kills, l.headshots]),
        [
          [1, ids.alice, 3, 2],
          [2, ids.bob, 1, 0],
          [3, ids.carol, 1, 1],
          [4, ids.dave, 1, 0],
        ],
      );
    });

    it('GET /stats/elo shows the ladder', async () => {
      const res = await route(ctx, '/stats/elo?game=cs2');
      const body = json<{
        game: string;
        leaderboard: {
          rank: number;
          user_id: number;
          steam_id: string;
          rating: number;
          games: number;
          wins: number;
        }[];
      }>(res);
      assert.equal(body.game, 'cs2');
      assert.deepEqual(
        body.leaderboard.map((e) => [e.rank, e.user_id, e.steam_id, e.rating, e.games, e.wins]),
        [
          [1, ids.alice, P.alice.steam, 1050, 1, 1],
          [2, ids.bob, P.bob.steam, 1050, 1, 1],
          [3, ids.carol, P.carol.steam, 950, 1, 0],
          [4, ids.dave, P.dave.steam, 950, 1, 0],
        ],
      );
    });
  });
}
