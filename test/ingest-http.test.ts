import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import { serversRepo } from '../src/modules/servers/repo.js';
import type { IngestResultBody } from '../src/modules/ingest/routes.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { dropTable, testDialects } from './helpers/db.js';
import { inRound, postEvents, postLogs, registerServer, stamp } from './helpers/ingest.js';

const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);
// the service's clock: the lines are an hour old, well inside the ingest window
const clock = { now: () => T0 + 3_600_000 };
const kill = (killer: number, victim: number, weapon = 'ak47', flags = '', at = T0) =>
  `${stamp(at)}"P${killer}<${killer}><[U:1:${killer}]><CT>" [0 0 0] killed "P${victim}<${victim}><[U:1:${victim}]><TERRORIST>" [0 0 0] with "${weapon}"${flags ? ` (${flags})` : ''}`;
const steam = (account: number) => String(76561197960265728n + BigInt(account));

for (const dialect of testDialects()) {
  describe(`ingest over HTTP (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, clock);
    });
    after(() => ctx.close());
    const k = () => ctx.testDb.db.kysely;
    const count = async (table: 'kills' | 'users' | 'frag_daily' | 'matches' | 'ingest_events') =>
      (
        await k()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;

    it('accepts a Bearer token and a token in the path, attributing kills to that server and game', async () => {
      const cs2 = await registerServer(ctx.testDb.db, 'cs2');
      const cs16 = await registerServer(ctx.testDb.db, 'cs16');
      const a = await postLogs(ctx, cs2.token, inRound(T0, [kill(101, 102)]));
      assert.equal(a.statusCode, 200, a.body);
      assert.deepEqual(json<IngestResultBody>(a), {
        accepted: 3,
        duplicates: 0,
        rejected: 0,
        kills: 1,
        matches: 0,
        achievements_unlocked: 1,
        errors: [],
      });
      const b = await postLogs(ctx, cs16.token, inRound(T0, [kill(103, 104, 'deagle')]), true);
      assert.equal(b.statusCode, 200, b.body);
      const rows = await k()
        .selectFrom('kills')
        .select(['server_id', 'game', 'killer_steam_id', 'victim_steam_id', 'weapon'])
        .orderBy('id')
        .execute();
      assert.deepEqual(rows, [
        {
          server_id: cs2.id,
          game: 'cs2',
          killer_steam_id: steam(101),
          victim_steam_id: steam(102),
          weapon: 'ak47',
        },
        {
          server_id: cs16.id,
          game: 'cs16',
          killer_steam_id: steam(103),
          victim_steam_id: steam(104),
          weapon: 'deagle',
        },
      ]);
      // every participant got a hub profile
      const users = await k()
        .selectFrom('users')
        .select(['steam_id', 'username'])
        .orderBy('steam_id')
        .execute();
      assert.deepEqual(
        users.map((u) => u.steam_id),
        [steam(101), steam(102), steam(103), steam(104)],
      );
      assert.equal(users[0]?.username, 'P101');
    });

    it('answers 401 for missing, malformed, unknown and revoked tokens and stores nothing', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const before = [await count('kills'), await count('users')];
      const attempts = [
        ctx.inject({
          method: 'POST',
          url: '/api-platform/ingest/logs',
          headers: { 'content-type': 'text/plain' },
          payload: kill(201, 202),
        }),
        postLogs(ctx, 'not-a-token', [kill(201, 202)]),
        postLogs(ctx, '12345678901234567890123456789012', [kill(201, 202)]),
        postLogs(ctx, '12345678901234567890123456789012', [kill(201, 202)], true),
        postEvents(ctx, '12345678901234567890123456789012', [{ type: 'kill' }]),
      ];
      await serversRepo(k()).remove(server.id, Date.now());
      attempts.push(
        postLogs(ctx, server.token, [kill(201, 202)]),
        postLogs(ctx, server.token, [kill(201, 202)], true),
      );
      for (const res of await Promise.all(attempts)) {
        assert.equal(res.statusCode, 401, res.body);
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="ingest"');
        assert.equal(json<Problem>(res).code, 'invalid_server_token');
      }
      assert.deepEqual([await count('kills'), await count('users')], before);
    });

    it('skips malformed lines with reasons and applies the rest', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const res = await postLogs(ctx, server.token, [
        `${stamp(T0)}World triggered "Round_Start"`,
        kill(301, 302, 'awp', 'headshot'),
        'this is not a log line',
        'L 13/40/2026 - 10:00:00: World triggered "Round_Start"',
        `${stamp(T0)}"Bot<5><BOT><CT>" [0 0 0] killed "P302<302><[U:1:302]><TERRORIST>" [0 0 0] with "ak47"`,
        kill(302, 301, 'knife'),
        `${stamp(T0)}World triggered "Round_Start"`,
      ]);
      assert.equal(res.statusCode, 200);
      const body = json<IngestResultBody>(res);
      assert.deepEqual(
        { accepted: body.accepted, rejected: body.rejected, kills: body.kills },
        { accepted: 5, rejected: 2, kills: 2 },
      );
      assert.deepEqual(body.errors, [
        { line: 3, reason: 'not a log line (expected "L MM/DD/YYYY - HH:MM:SS: …")' },
        { line: 4, reason: 'invalid timestamp' },
      ]);
    });

    it('rejects a non-text log body with 415', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const res = await ctx.inject({
        method: 'POST',
        url: '/api-platform/ingest/logs',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        payload: { lines: [] },
      });
      assert.equal(res.statusCode, 415);
    });

    it('takes JSON events, validates each alone and counts a resent client id once', async () => {
      const rust = await registerServer(ctx.testDb.db, 'rust');
      const ev = (id: string, killer: string, victim: string, extra: Record<string, unknown> = {}) => ({
        type: 'kill',
        client_id: id,
        occurred_at: '2026-11-20T12:00:00Z',
        killer: { steam_id: killer, name: 'Rusty' },
        victim: { steam_id: victim, name: 'Naked' },
        weapon: 'rifle.bolt',
        headshot: true,
        distance: 123.456,
        ...extra,
      });
      const batch = [
        ev('k1', steam(401), steam(402)),
        ev('k2', 'STEAM_0:1:200', '[U:1:402]'),
        ev('k2', steam(401), steam(402)),
        { type: 'emote', client_id: 'x' },
        ev('k3', 'nobody', steam(402)),
        ev('k4', steam(401), steam(402), { distance: -1 }),
        ev('k5', 'STEAM_2:0:2052157424', steam(402)),
        ev('k6', steam(401), 'STEAM_0:1:200'),
        {
          type: 'player_session',
          client_id: 's1',
          occurred_at: '2026-11-20T12:00:00Z',
          action: 'connect',
          steam_id: steam(403),
          name: 'Newcomer',
        },
      ];
      const first = json<IngestResultBody>(await postEvents(ctx, rust.token, batch));
      assert.deepEqual(
        {
          accepted: first.accepted,
          duplicates: first.duplicates,
          rejected: first.rejected,
          kills: first.kills,
        },
        { accepted: 3, duplicates: 1, rejected: 5, kills: 2 },
      );
      assert.deepEqual(first.errors, [
        {
          index: 3,
          reason: 'type must be one of: player_session, chat, kill, round, match_result, map_change',
        },
        { index: 4, reason: `killer.steam_id is not a Steam account ("nobody")` },
        { index: 5, reason: first.errors[2]?.reason ?? '' },
        // an emulator id is not an account; a player killing themself is not a frag (engines/counting.ts)
        { index: 6, reason: `killer.steam_id is not a Steam account ("STEAM_2:0:2052157424")` },
        { index: 7, reason: 'killer and victim are the same player (not a frag)' },
      ]);
      assert.match(first.errors[2]?.reason ?? '', /^distance /);
      const again = json<IngestResultBody>(await postEvents(ctx, rust.token, batch.slice(0, 3)));
      assert.deepEqual(
        { accepted: again.accepted, duplicates: again.duplicates, kills: again.kills },
        { accepted: 0, duplicates: 3, kills: 0 },
      );
      const rows = await k()
        .selectFrom('kills')
        .select(['game', 'server_id', 'distance', 'headshot', 'killer_steam_id'])
        .where('server_id', '=', rust.id)
        .execute();
      assert.deepEqual(rows, [
        { game: 'rust', server_id: rust.id, distance: 123.46, headshot: 1, killer_steam_id: steam(401) },
        { game: 'rust', server_id: rust.id, distance: 123.46, headshot: 1, killer_steam_id: steam(401) },
      ]);
      const newcomer = await k()
        .selectFrom('users')
        .select('username')
        .where('steam_id', '=', steam(403))
        .executeTakeFirst();
      assert.equal(newcomer?.username, 'Newcomer');
      const counters = await k()
        .selectFrom('player_counters as c')
        .innerJoin('users as u', 'u.id', 'c.user_id')
        .select(['c.counter', 'c.value'])
        .where('u.steam_id', '=', steam(401))
        .orderBy('c.counter')
        .execute();
      assert.deepEqual(counters, [
        { counter: 'headshots', value: 2 },
        { counter: 'kills', value: 2 },
        { counter: 'long_range_kills', value: 2 },
        { counter: 'max_kills_in_round', value: 1 },
        { counter: 'rust_kills', value: 2 },
        { counter: 'sniper_kills', value: 2 },
      ]);
    });

    it('rates a JSON match result on a cs16 server and credits tournament play', async () => {
      const cs16 = await registerServer(ctx.testDb.db, 'cs16');
      const cup = await k()
        .insertInto('tournaments')
        .values({ name: 'Cup', game: 'cs16', status: 'active', max_teams: 8, starts_at: T0 })
        .returning('id')
        .executeTakeFirstOrThrow();
      const match = {
        type: 'match_result',
        client_id: 'm1',
        ended_at: '2026-11-20T13:00:00Z',
        map: 'de_nuke',
        team1: [{ steam_id: steam(601), name: 'Winner' }],
        team2: [{ steam_id: steam(602), name: 'Leaver', participation: 0.5 }],
        team1_score: 16,
        team2_score: 14,
        tournament_id: cup.id,
      };
      const body = json<IngestResultBody>(await postEvents(ctx, cs16.token, [match]));
      assert.deepEqual([body.accepted, body.matches, body.achievements_unlocked], [1, 1, 5]);
      const rows = await k()
        .selectFrom('users as u')
        .leftJoin('elo_ratings as e', 'e.user_id', 'u.id')
        .select(['u.steam_id', 'u.total_xp', 'u.level', 'u.achievements_count', 'e.game', 'e.rating'])
        .where('u.steam_id', 'in', [steam(601), steam(602)])
        .orderBy('u.steam_id')
        .execute();
      // Winner: played 20 + won 50 + tournament match 100 = 170; Rookie 50, Winner 100, Contender 200 -> 520 (level 3)
      // Leaver: 20 + 100 = 120; Rookie 50, Contender 200 -> 370 (level 3); a leaver on the losing side loses in full
      assert.deepEqual(rows, [
        { steam_id: steam(601), total_xp: 520, level: 3, achievements_count: 3, game: 'cs16', rating: 1050 },
        { steam_id: steam(602), total_xp: 370, level: 3, achievements_count: 2, game: 'cs16', rating: 950 },
      ]);
      const played = await k()
        .selectFrom('tournament_participants')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tournament_id', '=', cup.id)
        .executeTakeFirstOrThrow();
      assert.equal(played.n, 2);
      const resent = json<IngestResultBody>(await postEvents(ctx, cs16.token, [match]));
      assert.deepEqual([resent.accepted, resent.duplicates, resent.matches], [0, 1, 0]);
    });

    it('applies concurrent batches from two servers about the same players exactly', async () => {
      const a = await registerServer(ctx.testDb.db, 'cs2');
      const b = await registerServer(ctx.testDb.db, 'cs2');
      // a second of its own per batch: the same line at the same time again would be a resend
      const batch = (offset: number) =>
        inRound(
          T0 + offset * 1000,
          Array.from({ length: 200 }, (_, i) =>
            kill(
              701 + ((i + offset) % 5),
              706 + (i % 5),
              'ak47',
              i % 2 ? '' : 'headshot',
              T0 + offset * 1000,
            ),
          ),
        );
      const results = await Promise.all([
        postLogs(ctx, a.token, batch(0)),
        postLogs(ctx, b.token, batch(1)),
        postLogs(ctx, a.token, batch(2)),
        postLogs(ctx, b.token, batch(3)),
      ]);
      assert.deepEqual(
        results.map((r) => r.statusCode),
        [200, 200, 200, 200],
      );
      const totals = await k()
        .selectFrom('frag_totals as f')
        .innerJoin('users as u', 'u.id', 'f.user_id')
        .select((eb) => [eb.fn.sum<number>('f.kills').as('kills'), eb.fn.sum<number>('f.headshots').as('hs')])
        .where('f.period', '=', 'all')
        .where('u.steam_id', 'in', [701, 702, 703, 704, 705].map(steam))
        .executeTakeFirstOrThrow();
      assert.deepEqual([totals.kills, totals.hs], [800, 400]);
      const counter = await k()
        .selectFrom('player_counters as c')
        .innerJoin('users as u', 'u.id', 'c.user_id')
        .select((eb) => eb.fn.sum<number>('c.value').as('n'))
        .where('c.counter', '=', 'kills')
        .where('u.steam_id', 'in', [701, 702, 703, 704, 705].map(steam))
        .executeTakeFirstOrThrow();
      assert.equal(counter.n, 800);
    });

    it('a batch that fails midway leaves nothing behind', async () => {
      const other = await createTestContext(dialect, clock);
      try {
        const server = await registerServer(other.testDb.db, 'cs2');
        // level_ups is written last, after kills, rollups, users and counters; 4 headshot kills
        // (60 XP) plus First Blood (50) reach level 2, so the batch needs it
        await dropTable(other.testDb, 'level_ups');
        const hs = kill(501, 502, 'awp', 'headshot');
        const res = await postLogs(other, server.token, inRound(T0, [hs, hs, hs, hs]));
        assert.equal(res.statusCode, 500);
        const ok = other.testDb.db.kysely;
        for (const table of [
          'kills',
          'users',
          'frag_daily',
          'frag_totals',
          'player_counters',
          'xp_events',
          'user_achievements',
          'ingest_state',
        ] as const) {
          const n = (
            await ok
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n;
          assert.equal(n, 0, table);
        }
      } finally {
        await other.close();
      }
    });
  });
}
