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
  };
}

export type TournamentsRepo = ReturnType<typeof tournamentsRepo>;
