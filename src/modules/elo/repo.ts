import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

export interface EloLadderRow {
  user_id: number;
  rating: number;
  games: number;
  wins: number;
  username: string;
  steam_id: string | null;
}

export function eloRepo(db: Kysely<Database>) {
  return {
    /** Rating desc, user id asc: the order of `elo_ratings_rank`, so one LIMIT-bounded range scan. */
    ladder(game: string, limit: number): Promise<EloLadderRow[]> {
      return db
        .selectFrom('elo_ratings as e')
        .innerJoin('users as u', 'u.id', 'e.user_id')
        .select(['e.user_id', 'e.rating', 'e.games', 'e.wins', 'u.username', 'u.steam_id'])
        .where('e.game', '=', game)
        .orderBy('e.rating', 'desc')
        .orderBy('e.user_id', 'asc')
        .limit(limit)
        .execute();
    },

    /** One user's rating in each game they have played (primary key `elo_ratings_pk`: user, game). */
    ratingsOf(userId: number): Promise<{ game: string; rating: number; games: number; wins: number }[]> {
      return db
        .selectFrom('elo_ratings')
        .select(['game', 'rating', 'games', 'wins'])
        .where('user_id', '=', userId)
        .orderBy('game')
        .execute();
    },
  };
}

export type EloRepo = ReturnType<typeof eloRepo>;
