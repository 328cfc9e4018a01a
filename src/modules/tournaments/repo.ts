import type { Kysely } from 'kysely';
import type { Database, TournamentsTable } from '../../db/types.js';

export type TournamentStatus = TournamentsTable['status'];

export interface TournamentRow {
  id: number;
  name: string;
  game: string;
  status: TournamentStatus;
  max_teams: number;
  starts_at: number;
}

export function tournamentsRepo(db: Kysely<Database>) {
  return {
    /**
     * Tournaments in the given statuses (index `tournaments_status`). Upcoming and active read
     * soonest first; a completed-only list reads most recent first, as a results page would.
     */
    listByStatus(statuses: readonly TournamentStatus[]): Promise<TournamentRow[]> {
      const newestFirst = statuses.length === 1 && statuses[0] === 'completed';
      const direction = newestFirst ? 'desc' : 'asc';
      return db
        .selectFrom('tournaments')
        .select(['id', 'name', 'game', 'status', 'max_teams', 'starts_at'])
        .where('status', 'in', statuses)
        .orderBy('starts_at', direction)
        .orderBy('id', direction)
        .execute();
    },

    /**
     * One page of every tournament, optionally of one status and one game, newest start first
     * (`starts_at` desc, then id desc: a stable order for paging), with the count of all matches.
     */
    async page(
      filter: { status?: TournamentStatus | undefined; game?: string | undefined },
      window: { limit: number; offset: number },
    ): Promise<{ rows: TournamentRow[]; total: number }> {
      let matching = db.selectFrom('tournaments');
      if (filter.status !== undefined) matching = matching.where('status', '=', filter.status);
      if (filter.game !== undefined) matching = matching.where('game', '=', filter.game);
      const [rows, count] = await Promise.all([
        matching
          .select(['id', 'name', 'game', 'status', 'max_teams', 'starts_at'])
          .orderBy('starts_at', 'desc')
          .orderBy('id', 'desc')
          .limit(window.limit)
          .offset(window.offset)
          .execute(),
        matching.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },
  };
}

export type TournamentsRepo = ReturnType<typeof tournamentsRepo>;
