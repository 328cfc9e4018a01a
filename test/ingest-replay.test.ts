import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rateMatch, type EloPlayer } from '../src/engines/elo.js';
import { progress, weaponClass, xpForActivity, LONG_RANGE_METRES } from '../src/engines/xp.js';
import type { Counter } from '../src/engines/achievements.js';
import type { IngestResultBody } from '../src/modules/ingest/routes.js';
import type { UserStatsBody } from '../src/modules/users/routes.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { postLogs, registerServer } from './helpers/ingest.js';
import { countLog, type Tally } from './helpers/log-counter.js';

/**
 * Whole matches replayed end to end through the HTTP log endpoint, in batches, and every
 * figure the API shows (kills, rounds, matches, ratings, XP, levels, achievements, profiles)
 * checked against the independent count of test/helpers/log-counter.ts. Our fixtures are in
 * test/fixtures/logs (README there); real server logs are read from ../shared/real-logs when that
 * folder exists (it is not part of the project).
 */
const FIXTURES = fileURLToPath(new URL('./fixtures/logs/', import.meta.url));
const REAL = fileURLToPath(new URL('../../shared/real-logs/', import.meta.url));
const STAMP = /^L (\d\d)\/(\d\d)\/(\d{4}) - (\d\d):(\d\d):(\d\d):/;
const timeOf = (line: string): number => {
  const [, mo, d, y, h, mi, sec] = (STAMP.exec(line) ?? []).map(Number);
  return y === undefined ? 0 : Date.UTC(y, (mo ?? 1) - 1, d, h, mi, sec);
};

/**
 * A log posted as a server streams it: in three parts, and a new part wherever the log skips more
 * than a day (a server that was off), each posted a minute after its last line (the service
 * clock), so every line is inside the ingest window when it arrives.
 */
function batches(lines: string[]): { lines: string[]; clock: number }[] {
  const cuts = new Set([0, Math.floor(lines.length / 3), Math.floor((2 * lines.length) / 3)]);
  let previous = 0;
  lines.forEach((line, i) => {
    const at = timeOf(line);
    if (previous > 0 && at - previous > 86_400_000) cuts.add(i);
    if (at > 0) previous = at;
  });
  const starts = [...cuts].sort((a, b) => a - b);
  return starts.map((start, i) => {
    const part = lines.slice(start, starts[i + 1] ?? lines.length);
    return { lines: part, clock: Math.max(...part.map(timeOf)) + 60_000 };
  });
}

interface Case {
  file: string;
  game: 'cs2' | 'cs16';
  /** figures a person counted by hand, so the counter itself is checked too */
  expect?: { lines: number; killLines: number; frags: number; rounds: number; matches: number };
}
const OURS: Case[] = [
  {
    file: `${FIXTURES}cs2-competitive-de_inferno.log`,
    game: 'cs2',
    expect: { lines: 195, killLines: 24, frags: 13, rounds: 4, matches: 1 },
  },
  {
    file: `${FIXTURES}csgo-competitive-two-maps.log`,
    game: 'cs2',
    expect: { lines: 100, killLines: 19, frags: 11, rounds: 7, matches: 2 },
  },
  {
    file: `${FIXTURES}cs16-public-de_dust2.log`,
    game: 'cs16',
    expect: { lines: 114, killLines: 20, frags: 11, rounds: 6, matches: 1 },
  },
];
const REAL_LOGS: Case[] = [
  'cs2-challengermode-de_inferno.log',
  'cs2-challengermode-de_mirage.log',
  'csgo-competitive-cs_agency.log',
  'csgo-bots-de_cache.log',
  'cs16-public-xmas_lodge.log',
  'cs16-podbot-de_dust2.log',
  'cs16-bots-2024.log',
].map((f) => ({ file: `${REAL}${f}`, game: f.startsWith('cs16') ? 'cs16' : 'cs2' }));

interface FeedKill {
  killer: { steam_id: string };
  victim: { steam_id: string };
  weapon: string;
  headshot: boolean;
  round_number: number;
}

/** What the engines make of the counted figures (XP, level, achievements, Elo). */
function expectedProgress(tally: Tally, game: string) {
  const counters = new Map<string, Partial<Record<Counter, number>>>();
  const activity = new Map<
    string,
    { kill: number; headshot: number; match_played: number; match_won: number }
  >();
  const of = (s: string) => {
    if (!counters.has(s)) counters.set(s, {});
    if (!activity.has(s)) activity.set(s, { kill: 0, headshot: 0, match_played: 0, match_won: 0 });
    return {
      c: counters.get(s) ?? {},
      a: activity.get(s) ?? { kill: 0, headshot: 0, match_played: 0, match_won: 0 },
    };
  };
  const inc = (c: Partial<Record<Counter, number>>, k: Counter, n = 1) => (c[k] = (c[k] ?? 0) + n);
  for (const f of tally.frags) {
    const { c, a } = of(f.killer);
    of(f.victim);
    a.kill++;
    inc(c, 'kills');
    inc(c, `${game}_kills` as Counter);
    if (f.headshot) {
      a.headshot++;
      inc(c, 'headshots');
    }
    const cls = weaponClass(f.weapon);
    if (cls !== 'other') inc(c, `${cls}_kills`);
    if (f.metres >= LONG_RANGE_METRES) inc(c, 'long_range_kills');
  }
  const inRound = new Map<string, number>();
  for (const f of tally.frags) {
    const k = `${f.seq}|${f.killer}`;
    inRound.set(k, (inRound.get(k) ?? 0) + 1);
    const { c } = of(f.killer);
    c.max_kills_in_round = Math.max(c.max_kills_in_round ?? 0, inRound.get(k) ?? 0);
  }
  for (const m of tally.matches) {
    const winner = m.ct > m.t ? 1 : m.t > m.ct ? 2 : 0;
    for (const [team, players] of [
      [1, m.team1],
      [2, m.team2],
    ] as const) {
      for (const s of players.keys()) {
        const { c, a } = of(s);
        a.match_played++;
        inc(c, 'matches_played');
        if (winner === team) {
          a.match_won++;
          inc(c, 'matches_won');
        }
      }
    }
  }
  const out = new Map<string, { totalXp: number; level: number; achievements: number }>();
  for (const [s, c] of counters) {
    const earned = xpForActivity(activity.get(s) ?? {});
    const gained = Object.values(earned).reduce((sum, v) => sum + v, 0);
    const p = progress(0, gained, c, new Set());
    out.set(s, { totalXp: p.totalXp, level: p.level, achievements: p.unlocked.length });
  }
  return out;
}

function expectedElo(tally: Tally): Map<string, { rating: number; games: number; wins: number }> {
  const ratings = new Map<string, { rating: number; games: number; wins: number }>();
  const ids = new Map<string, number>();
  const idOf = (s: string) => {
    if (!ids.has(s)) ids.set(s, ids.size + 1);
    return ids.get(s) ?? 0;
  };
  for (const m of tally.matches) {
    const team = (players: Map<string, number>): EloPlayer[] =>
      [...players].map(([s, participation]) => ({
        userId: idOf(s),
        rating: ratings.get(s)?.rating ?? 1000,
        games: ratings.get(s)?.games ?? 0,
        participation,
      }));
    const score = m.ct > m.t ? 1 : m.t > m.ct ? 0 : 0.5;
    const [team1, team2] = [team(m.team1), team(m.team2)];
    const steamOf = new Map([...ids].map(([s, id]) => [id, s]));
    for (const change of rateMatch(team1, team2, score)) {
      const s = steamOf.get(change.userId) ?? '';
      const r = ratings.get(s) ?? { rating: 1000, games: 0, wins: 0 };
      ratings.set(s, { rating: change.after, games: r.games + 1, wins: r.wins + (change.won ? 1 : 0) });
    }
  }
  return ratings;
}

function replaySuite(c: Case, dialect: 'sqlite' | 'postgres') {
  const name = c.file.split('/').pop() ?? c.file;
  describe(`replay ${name} (${dialect})`, () => {
    let ctx: TestContext;
    let tally: Tally;
    let results: IngestResultBody[] = [];
    const userIds = new Map<string, number>();
    before(async () => {
      const text = readFileSync(c.file, 'utf8');
      tally = countLog(text, c.game);
      let clock = 0;
      ctx = await createTestContext(dialect, { now: () => clock });
      const server = await registerServer(ctx.testDb.db, c.game);
      results = [];
      for (const batch of batches(text.split('\n').filter((l) => l.length > 0))) {
        clock = batch.clock;
        const res = await postLogs(ctx, server.token, batch.lines);
        assert.equal(res.statusCode, 200, res.body);
        results.push(json<IngestResultBody>(res));
      }
      const users = await ctx.testDb.db.kysely.selectFrom('users').select(['id', 'steam_id']).execute();
      for (const u of users) if (u.steam_id) userIds.set(u.steam_id, u.id);
    });
    after(() => ctx.close());

    if (c.expect) {
      it('the independent counter agrees with the figures counted by hand', () => {
        assert.deepEqual(
          {
            lines: tally.lines,
            killLines: tally.killLines,
            frags: tally.frags.length,
            rounds: tally.rounds,
            matches: tally.matches.length,
          },
          c.expect,
        );
      });
    }

    it('accepts every line and stores exactly the counted frags and matches', () => {
      assert.equal(
        results.reduce((n, r) => n + r.accepted + r.duplicates + r.rejected, 0),
        tally.lines,
      );
      assert.deepEqual(
        [results.reduce((n, r) => n + r.kills, 0), results.reduce((n, r) => n + r.matches, 0)],
        [tally.frags.length, tally.matches.length],
      );
    });

    it('gives hub profiles to the counted players only (no bots, LAN, emulator or shared ids)', () => {
      assert.deepEqual([...userIds.keys()].sort(), [...tally.players.keys()].sort());
    });

    it('lists every frag in the kill feed with its killer, victim, weapon, headshot and round', async () => {
      const res = await ctx.get(`/killboard/feed?game=${c.game}&limit=100`);
      assert.equal(res.statusCode, 200, res.body);
      const feed = json<{ kills: FeedKill[] }>(res).kills;
      const row = (k: [string, string, string, boolean, number]) => k.join('|');
      const got = feed.map((k) =>
        row([k.killer.steam_id, k.victim.steam_id, k.weapon, k.headshot, k.round_number]),
      );
      const want = tally.frags.map((f) => row([f.killer, f.victim, f.weapon, f.headshot, f.round]));
      assert.deepEqual(got.sort(), want.slice(-100).sort());
    });

    it('ranks the same kills and headshots per player in top-frag', async () => {
      const rows = await ctx.testDb.db.kysely
        .selectFrom('frag_totals')
        .select(['user_id', 'kills', 'headshots'])
        .where('period', '=', 'all')
        .where('game', '=', c.game)
        .execute();
      const want = new Map<number, [number, number]>();
      for (const f of tally.frags) {
        const id = userIds.get(f.killer) ?? -1;
        const [k, h] = want.get(id) ?? [0, 0];
        want.set(id, [k + 1, h + (f.headshot ? 1 : 0)]);
      }
      assert.deepEqual(
        rows.map((r) => [r.user_id, r.kills, r.headshots]).sort((a, b) => Number(a[0]) - Number(b[0])),
        [...want].map(([id, [k, h]]) => [id, k, h]).sort((a, b) => Number(a[0]) - Number(b[0])),
      );
    });

    it('stores each rated match with its map, score and winner, and the Elo every player gets', async () => {
      const matches = await ctx.testDb.db.kysely
        .selectFrom('matches')
        .select(['map', 'team1_score', 'team2_score', 'winner'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        matches.map((m) => [m.map, m.team1_score, m.team2_score, m.winner]),
        tally.matches.map((m) => [m.map, m.ct, m.t, m.ct > m.t ? 1 : m.t > m.ct ? 2 : 0]),
      );
      const ratings = await ctx.testDb.db.kysely
        .selectFrom('elo_ratings')
        .select(['user_id', 'rating', 'games', 'wins'])
        .execute();
      const want = expectedElo(tally);
      assert.deepEqual(
        ratings
          .map((r) => [r.user_id, r.rating, r.games, r.wins])
          .sort((a, b) => Number(a[0]) - Number(b[0])),
        [...want]
          .map(([s, r]) => [userIds.get(s), r.rating, r.games, r.wins])
          .sort((a, b) => Number(a[0]) - Number(b[0])),
      );
    });

    it('awards the XP, level and achievements the counted frags and matches earn', async () => {
      const want = expectedProgress(tally, c.game);
      for (const [steam, id] of userIds) {
        const res = await ctx.get(`/users/${id}/stats`);
        assert.equal(res.statusCode, 200, res.body);
        const stats = json<UserStatsBody>(res).stats;
        const w = want.get(steam) ?? { totalXp: 0, level: 1, achievements: 0 };
        assert.deepEqual(
          [stats.total_xp, stats.level, stats.achievements],
          [w.totalXp, w.level, w.achievements],
          steam,
        );
      }
    });
  });
}

const [first] = testDialects();
for (const dialect of testDialects()) for (const c of OURS) replaySuite(c, dialect);
if (existsSync(REAL) && first) {
  // Real logs are large; one dialect is enough for them (the fixtures run on every dialect).
  for (const c of REAL_LOGS) replaySuite(c, first);
} else {
  describe('replay of real server logs', () => {
    it('skips: ../shared/real-logs is not here', { skip: 'no ../shared/real-logs' }, () => undefined);
  });
}
