import { COUNTERS, newlyUnlocked, type Counter } from '../engines/achievements.js';
import { levelForXp } from '../engines/levels.js';
import type { EloResult } from './matches.js';
import { avatarPath } from '../modules/avatars/routes.js';
import type { SeedRepo } from './repo.js';
import { DAY, type World } from './world.js';

/** XP per unit of activity; achievement rewards come on top. */
const XP_PER = {
  kills: 10,
  headshots: 5,
  matches_played: 25,
  matches_won: 25,
  forum_posts: 20,
  tournaments_played: 150,
} as const satisfies Partial<Record<Counter, number>>;

/**
 * Derives every player's achievements from their activity counters with the real catalog rules,
 * then XP (activity + a little grinding + achievement rewards) and the level from the level formula.
 * Level achievements depend on the level, which depends on their rewards: repeat until stable.
 * Writes users, the catalog, the unlocks and the final ELO ratings.
 */
export async function insertProfiles(world: World, repo: SeedRepo, elo: EloResult[]): Promise<void> {
  const { rng, now, counters, names, steamIds, joinedAt } = world;
  const ids = await repo.achievementIds();
  const subscriptions = [
    'none',
    'none',
    'none',
    'none',
    'none',
    'none',
    'active',
    'active',
    'premium',
  ] as const;
  // the max kills in one round is not modelled by the kill stream: derive a plausible best round
  const maxRound = counters.max_kills_in_round;
  for (let i = 0; i < world.userCount; i++) {
    const kills = counters.kills[i] ?? 0;
    maxRound[i] =
      kills === 0 ? 0 : Math.min(5, 1 + Math.floor(rng.next() * Math.min(5, Math.log2(kills + 1))));
  }

  await repo.inTransaction(async (trx) => {
    const users = repo.writer(trx, 'users', [
      'id',
      'username',
      'avatar',
      'steam_id',
      'total_xp',
      'level',
      'achievements_count',
      'subscription',
      'is_partner',
      'joined_at',
    ]);
    const unlockRows: [number, number, number][] = [];
    for (let i = 0; i < world.userCount; i++) {
      const values: Partial<Record<Counter, number>> = {};
      for (const c of COUNTERS) values[c] = counters[c][i] ?? 0;
      let xp = rng.int(0, 600);
      for (const [c, per] of Object.entries(XP_PER) as [Counter, number][]) xp += (values[c] ?? 0) * per;
      const held = new Set<string>();
      for (;;) {
        values.level = levelForXp(xp);
        const fresh = newlyUnlocked(values, held);
        if (fresh.length === 0) break;
        for (const a of fresh) {
          held.add(a.code);
          xp += a.xp_reward;
          const id = ids.get(a.code);
          const joined = joinedAt[i] ?? now;
          const from = Math.max(joined, now - 90 * DAY);
          if (id !== undefined) unlockRows.push([i + 1, id, from + Math.floor(rng.next() * (now - from))]);
        }
      }
      counters.level[i] = values.level;
      await users.push([
        i + 1,
        names[i],
        avatarPath(i + 1),
        steamIds[i],
        xp,
        values.level,
        held.size,
        rng.pick(subscriptions),
        0,
        joinedAt[i],
      ]);
    }
    await users.flush();
    await repo
      .writer(trx, 'user_achievements', ['user_id', 'achievement_id', 'unlocked_at'])
      .pushAll(unlockRows);
    const ratings = repo.writer(trx, 'elo_ratings', [
      'user_id',
      'game',
      'rating',
      'games',
      'wins',
      'updated_at',
    ]);
    for (const { game, ratings: byPlayer } of elo) {
      for (const [p, [rating, games, wins, at]] of byPlayer)
        await ratings.push([p + 1, game, rating, games, wins, at]);
    }
    await ratings.flush();
  });
}
