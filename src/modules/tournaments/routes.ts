import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import { publicRead } from '../../http/public-route.js';
import { Envelope, StringEnum, Timestamp, toIso } from '../../http/schemas.js';
import type { TournamentRow, TournamentsRepo, TournamentStatus } from './repo.js';

export const TOURNAMENT_STATUSES = [
  'upcoming',
  'active',
  'completed',
] as const satisfies readonly TournamentStatus[];
/** DESIGN: without `status` the list shows what a player can still join or watch. */
const DEFAULT_STATUSES: readonly TournamentStatus[] = ['upcoming', 'active'];

export const TournamentSchema = Type.Object(
  {
    id: Type.Integer({ description: 'tournament ID', examples: [7] }),
    name: Type.String({ examples: ['Winter Cup 2026'] }),
    game: Type.String({ description: 'game code such as cs2, cs16, rust, minecraft', examples: ['cs2'] }),
    status: StringEnum(TOURNAMENT_STATUSES, { examples: ['upcoming'] }),
    max_teams: Type.Integer({ minimum: 0, examples: [16] }),
    starts_at: Timestamp('when the tournament starts'),
  },
  { $id: 'Tournament', title: 'Tournament' },
);

export const TournamentsQuery = Type.Object({
  status: Type.Optional(
    StringEnum(TOURNAMENT_STATUSES, {
      description: 'Only tournaments in this status. Without it: upcoming and active.',
      examples: ['completed'],
    }),
  ),
});

export const TournamentsResponse = Envelope(
  'tournaments',
  Type.Array(Type.Ref('Tournament')),
  'Tournaments in the requested status',
);
export type TournamentsBody = { tournaments: Static<typeof TournamentSchema>[] };

/** A tournament as both APIs show it. */
export const tournamentRecord = (row: TournamentRow): Static<typeof TournamentSchema> => ({
  id: row.id,
  name: row.name,
  game: row.game,
  status: row.status,
  max_teams: row.max_teams,
  starts_at: toIso(row.starts_at),
});

export function tournamentsRoutes(repo: TournamentsRepo) {
  return (app: App): void => {
    app.addSchema(TournamentSchema);

    app.get(
      '/tournaments',
      publicRead({
        operationId: 'tournaments_list',
        tag: 'Tournaments',
        summary: 'List tournaments',
        description:
          'Without `status`, returns upcoming and active tournaments; `status` selects exactly one of upcoming, active, completed. Upcoming and active tournaments are ordered by `starts_at` ascending (soonest first), then id ascending; completed tournaments by `starts_at` descending (most recent first), then id descending.',
        querystring: TournamentsQuery,
        response: TournamentsResponse,
      }),
      async (request): Promise<TournamentsBody> => {
        const { status } = request.query;
        const rows = await repo.listByStatus(status ? [status] : DEFAULT_STATUSES);
        return { tournaments: rows.map(tournamentRecord) };
      },
    );
  };
}
