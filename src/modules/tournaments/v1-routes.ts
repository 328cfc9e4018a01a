import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import { GAMES, StringEnum } from '../../http/schemas.js';
import { listBody, ListOf, PageQuery, pageWindow, v1Route } from '../../http/v1-route.js';
import type { TournamentsRepo } from './repo.js';
import { tournamentRecord, TournamentSchema, TOURNAMENT_STATUSES } from './routes.js';

/** The preview record is the published one, inline (the /v1 surface registers no shared schemas). */
export const V1TournamentSchema = Type.Object(TournamentSchema.properties, {
  description: 'A tournament of the hub',
});

export const V1TournamentsQuery = Type.Object({
  status: Type.Optional(
    StringEnum(TOURNAMENT_STATUSES, {
      description: 'Only tournaments in this status; omit it for every status.',
      examples: ['completed'],
    }),
  ),
  game: Type.Optional(
    StringEnum(GAMES, {
      description: 'Only tournaments of this game; omit it for every game.',
      examples: ['cs2'],
    }),
  ),
  ...PageQuery,
});

export const V1TournamentsResponse = ListOf(V1TournamentSchema, 'One page of tournaments');
export type V1TournamentsBody = Static<typeof V1TournamentsResponse>;

export function tournamentsV1Routes(repo: TournamentsRepo) {
  return (app: App): void => {
    app.get(
      '/tournaments',
      v1Route({
        operationId: 'v1_tournaments_list',
        tag: 'Tournaments',
        summary: 'List tournaments (preview)',
        description:
          'Tournaments in every status (upcoming, active, completed) unless `status` picks one, optionally of one `game`, newest first (`starts_at` descending, then id descending), paged with `page` and `per_page`. An API key (`Authorization: Bearer ghk_…`) may call it as well as an OAuth token with `tournaments:read`. Responses may be served from a cache for up to `CACHE_TTL_MS` (default 0.5 s) and carry an `ETag`.',
        scope: 'tournaments:read',
        // public data, the same for every caller: the page and its count are read once per URL and TTL,
        // as the published GET /tournaments is, instead of two queries on every request
        cache: true,
        querystring: V1TournamentsQuery,
        response: V1TournamentsResponse,
      }),
      async (request): Promise<V1TournamentsBody> => {
        const { status, game } = request.query;
        const { rows, total } = await repo.page({ status, game }, pageWindow(request.query));
        return listBody(rows.map(tournamentRecord), total, request.query);
      },
    );
  };
}
