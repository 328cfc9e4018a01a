import type { Kysely, SelectQueryBuilder } from 'kysely';
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
  const count = (query: SelectQueryBuilder<Database, 'elo_ratings', object>) =>
    query
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
      .then((row) => row.n);

  /**
   * How many players are ahead of this one in the ladder's order (rating desc, user id asc): two
   * ranges of `elo_ratings_rank` counted from the index alone, one entry per player ahead. The
   * values are the query's own parameters, not a correlated subquery: PostgreSQL plans a
   * correlated `rating > e.rating` generically and scans the whole table for it.
   */
  const playersAhead = async (game: string, rating: number, userId: number): Promise<number> => {
    const inGame = db.selectFrom('elo_ratings').where('game', '=', game);
    const [above, tied] = await Promise.all([
      count(inGame.where('rating', '>', rating)),
      count(inGame.where('rating', '=', rating).where('user_id', '<', userId)),
    ]);
    return above + tied;
  };

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

    /**
     * One user's rating in each game they have played (primary key `elo_ratings_pk`: user, game),
     * with their place on that game's ladder.
     */
    async ratingsOf(
      userId: number,
    ): Promise<{ game: string; rating: number; games: number; wins: number; rank: number }[]> {
      const rows = await db
        .selectFrom('elo_ratings')
        .select(['game', 'rating', 'games', 'wins'])
        .where('user_id', '=', userId)
        .orderBy('game')
        .execute();
      return Promise.all(
        rows.map(async (r) => ({ ...r, rank: 1 + (await playersAhead(r.game, r.rating, userId)) })),
      );
    },
  };
}

export type EloRepo = ReturnType<typeof eloRepo>;
