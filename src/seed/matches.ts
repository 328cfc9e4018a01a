import { expectedScore, rateMatch, ELO_START, type EloPlayer } from '../engines/elo.js';
import { ELO_GAMES } from '../engines/elo.js';
import { GAMES } from './games.js';
import type { SeedRepo } from './repo.js';
import { activePlayer, DAY, type World } from './world.js';
import { KILL_DAYS } from './kills.js';

export interface EloResult {
  game: string;
  /** player index -> [rating, games, wins, last match time]; only players who played */
  ratings: Map<number, [number, number, number, number]>;
}

const MAX_ROUNDS: Record<string, { win: number; draw: number }> = {
  cs2: { win: 13, draw: 12 },
  cs16: { win: 16, draw: 15 },
};

/**
 * Simulates rated matches per ELO game with the real rating engine: each player has a hidden skill,
 * the stronger team wins more often, so ratings drift towards skill the way a live ladder does.
 * Writes `matches` and `elo_history` (one transaction per game); final ratings are returned for
 * insertion once the users exist. Also fills matches_played / matches_won.
 */
export async function seedMatches(
  world: World,
  repo: SeedRepo,
  firstMatchId: number,
  progress: (done: number, total: number) => void,
): Promise<{ results: EloResult[]; nextMatchId: number }> {
  const { rng, now, counters } = world;
  let matchId = firstMatchId;
  const results: EloResult[] = [];
  const plans = ELO_GAMES.map((code) => {
    const pool = world.pools.get(code) ?? new Int32Array(0);
    return { code, pool, count: pool.length < 2 ? 0 : Math.max(30, pool.length) };
  });
  const total = plans.reduce((s, p) => s + p.count, 0);
  let done = 0;
  for (const { code, pool, count } of plans) {
    const game = GAMES.find((g) => g.code === code);
    const servers = world.serversByGame.get(code) ?? [];
    const ratings = new Map<number, [number, number, number, number]>();
    results.push({ game: code, ratings });
    if (!game || count === 0) continue;
    const skill = new Float64Array(world.userCount);
    for (const p of pool) skill[p] = rng.normal(ELO_START, 220);
    const teamSize = Math.min(5, Math.floor(pool.length / 2));
    const times = new Float64Array(count);
    const from = now - KILL_DAYS * DAY;
    for (let i = 0; i < count; i++) times[i] = from + Math.floor(rng.next() * (now - from));
    times.sort();
    const rounds = MAX_ROUNDS[code] ?? { win: 13, draw: 12 };

    await repo.inTransaction(async (trx) => {
      const matches = repo.writer(trx, 'matches', [
        'id',
        'game',
        'server_id',
        'map',
        'team1_score',
        'team2_score',
        'winner',
        'ended_at',
      ]);
      const history = repo.writer(trx, 'elo_history', [
        'match_id',
        'user_id',
        'game',
        'rating_before',
        'rating_after',
        'occurred_at',
      ]);
      for (let m = 0; m < count; m++) {
        const picked = new Set<number>();
        while (picked.size < teamSize * 2) picked.add(activePlayer(rng, pool));
        const players = [...picked];
        const toElo = (p: number): EloPlayer => {
          const r = ratings.get(p);
          // a few players leave early; the engine scales their change by the rounds they played
          const participation = rng.chance(0.04) ? 0.3 + rng.next() * 0.6 : 1;
          return { userId: p, rating: r ? r[0] : ELO_START, games: r ? r[1] : 0, participation };
        };
        const teamA = players.slice(0, teamSize).map(toElo);
        const teamB = players.slice(teamSize).map(toElo);
        const mean = (t: EloPlayer[]) => t.reduce((s, p) => s + (skill[p.userId] ?? ELO_START), 0) / t.length;
        const draw = rng.chance(0.03);
        const aWins = rng.next() < expectedScore(mean(teamA), mean(teamB));
        const scoreA = draw ? 0.5 : aWins ? 1 : 0;
        const loser = rng.int(0, rounds.win - 2);
        const [s1, s2] = draw
          ? [rounds.draw, rounds.draw]
          : aWins
            ? [rounds.win, loser]
            : [loser, rounds.win];
        const endedAt = times[m] ?? now;
        const id = matchId++;
        await matches.push([
          id,
          code,
          servers[Math.floor(rng.next() * servers.length)] ?? null,
          rng.pick(game.maps),
          s1,
          s2,
          draw ? 0 : aWins ? 1 : 2,
          endedAt,
        ]);
        for (const change of rateMatch(teamA, teamB, scoreA)) {
          const p = change.userId;
          const prev = ratings.get(p);
          ratings.set(p, [
            change.after,
            (prev?.[1] ?? 0) + 1,
            (prev?.[2] ?? 0) + (change.won ? 1 : 0),
            endedAt,
          ]);
          counters.matches_played[p] = (counters.matches_played[p] ?? 0) + 1;
          if (change.won) counters.matches_won[p] = (counters.matches_won[p] ?? 0) + 1;
          await history.push([id, p + 1, code, change.before, change.after, endedAt]);
        }
        if (++done % 1000 === 0) progress(done, total);
      }
      await matches.flush();
      await history.flush();
    });
  }
  progress(total, total);
  return { results, nextMatchId: matchId };
}
