import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

export interface LeaderboardRow {
  id: number;
  username: string;
  level: number;
  total_xp: number;
}

export function leaderboardsRepo(db: Kysely<Database>) {
  return {
    /** Top users by total XP; ties go to the lower user id. Walks index `users_total_xp` in order. */
    topByXp(limit: number): Promise<LeaderboardRow[]> {
      return db
        .selectFrom('users')
        .select(['id', 'username', 'level', 'total_xp'])
        .orderBy('total_xp', 'desc')
        .orderBy('id', 'asc')
        .limit(limit)
        .execute();
    },
  };
}

export type LeaderboardsRepo = ReturnType<typeof leaderboardsRepo>;
