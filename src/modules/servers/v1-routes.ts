import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import { GAMES, IdParam, StringEnum, Timestamp, toIso } from '../../http/schemas.js';
import { listBody, ListOf, One, PageQuery, pageWindow, v1Route } from '../../http/v1-route.js';
import { REGIONS } from './regions.js';
import type { LiveServerRow, ServersRepo } from './repo.js';
import { UPTIME_HOURS, uptimePercent, windowStart } from './uptime.js';

/**
 * The complete set of preview statuses: `running` while the poller's latest verdict is that the
 * server answers (the published API calls it `online`), `offline` otherwise.
 */
export const V1_SERVER_STATUSES = ['running', 'offline'] as const;
type V1ServerStatus = (typeof V1_SERVER_STATUSES)[number];
const toV1Status = (status: LiveServerRow['status']): V1ServerStatus =>
  status === 'online' ? 'running' : 'offline';
const fromV1Status = (status: V1ServerStatus): LiveServerRow['status'] =>
  status === 'running' ? 'online' : 'offline';

const STATUS_DESCRIPTION =
  '`running`: the poller\u2019s latest verdict is that the server answers its status query (it answered the last poll, or missed fewer than `POLL_OFFLINE_AFTER` polls in a row, so one lost packet does not flap it), or its plugin sent a heartbeat within the last 60 s (`POST /api-platform/ingest/heartbeat`); `offline`: otherwise, including a server never polled yet. These two are the complete set.';

const Uptime = (window: string) =>
  Type.Union(
    [
      Type.Number({
        minimum: 0,
        maximum: 100,
        description: `Percent of the poller\u2019s status queries the server answered over ${window} (hourly buckets: the current UTC hour and the ones before it), one decimal.`,
        examples: [99.4],
      }),
      Type.Null({ description: 'The poller has no history of this server in the window.' }),
    ],
    { examples: [99.4] },
  );

export const V1ServerSchema = Type.Object(
  {
    id: Type.String({ description: 'server ID (a string on the preview surface)', examples: ['3'] }),
    name: Type.String({ examples: ['Hub #1 | Competitive'] }),
    game: StringEnum(GAMES, { description: 'game code', examples: ['cs2'] }),
    players: Type.Integer({ minimum: 0, description: 'current player count', examples: [14] }),
    max_players: Type.Integer({ minimum: 0, examples: [20] }),
    status: StringEnum(V1_SERVER_STATUSES, { description: STATUS_DESCRIPTION, examples: ['running'] }),
    uptime: Uptime('the last 30 days'),
    region: StringEnum(REGIONS, {
      description: 'Where the server runs, as its operator registered it; `unassigned` until one is set.',
      examples: ['eu-west'],
    }),
  },
  { description: 'A game server of the hub (the preview server record)' },
);

export const V1ServerStatusSchema = Type.Object(
  {
    id: Type.String({ description: 'server ID', examples: ['3'] }),
    status: StringEnum(V1_SERVER_STATUSES, { description: STATUS_DESCRIPTION, examples: ['running'] }),
    players: Type.Integer({ minimum: 0, description: 'current player count', examples: [14] }),
    max_players: Type.Integer({ minimum: 0, examples: [20] }),
    map: Type.String({ description: 'current map (empty for minecraft)', examples: ['de_mirage'] }),
    last_seen: Type.Union([Timestamp('when the server last answered a status query'), Type.Null()], {
      examples: ['2026-11-20T18:04:11.000Z'],
    }),
    latency_ms: Type.Union(
      [
        Type.Integer({
          minimum: 0,
          description: 'how long the last status query took to be answered, in milliseconds',
          examples: [23],
        }),
        Type.Null({ description: 'the last status query went unanswered, or there was none yet' }),
      ],
      { examples: [23] },
    ),
    uptime_24h: Uptime('the last 24 hours'),
    uptime_30d: Uptime('the last 30 days'),
  },
  { description: 'The live state of one game server' },
);

export const V1ServersQuery = Type.Object({
  game: Type.Optional(
    StringEnum(GAMES, {
      description: 'Only servers of this game; omit it for every game.',
      examples: ['cs2'],
    }),
  ),
  status: Type.Optional(
    StringEnum(V1_SERVER_STATUSES, {
      description: 'Only servers in this status; omit it for both.',
      examples: ['running'],
    }),
  ),
  region: Type.Optional(
    StringEnum(REGIONS, {
      description: 'Only servers in this region; omit it for every region.',
      examples: ['eu-west'],
    }),
  ),
  ...PageQuery,
});

export const V1ServersResponse = ListOf(V1ServerSchema, 'One page of game servers');
export const V1ServerStatusResponse = One(V1ServerStatusSchema, 'The live state of a game server');
export type V1ServersBody = Static<typeof V1ServersResponse>;
export type V1ServerStatusBody = Static<typeof V1ServerStatusResponse>;

export function serversV1Routes(repo: ServersRepo, now: () => number) {
  return (app: App): void => {
    app.get(
      '/servers',
      v1Route({
        operationId: 'v1_servers_list',
        tag: 'Servers',
        summary: 'List game servers (preview)',
        description:
          'Every registered game server, running or not, by id, paged with `page` and `per_page`; `game`, `status` and `region` filter. `uptime` is the percent of the poller\u2019s status queries answered over the last 30 days (null before the first poll). Public data: an API key (`Authorization: Bearer ghk_…`) may call it as well as an OAuth token with `servers:read`. Responses may be served from a cache for up to `CACHE_TTL_MS` (default 0.5 s) and carry an `ETag`.',
        scope: 'servers:read',
        cache: true,
        querystring: V1ServersQuery,
        response: V1ServersResponse,
      }),
      async (request): Promise<V1ServersBody> => {
        const { game, status, region } = request.query;
        const { rows, total } = await repo.livePage(
          { game, region, status: status && fromV1Status(status) },
          pageWindow(request.query),
        );
        const tallies = await repo.pollTallies(
          rows.map((r) => r.id),
          windowStart(now(), UPTIME_HOURS.month),
        );
        const data = rows.map((row) => ({
          id: String(row.id),
          name: row.name,
          game: row.game as (typeof GAMES)[number],
          players: row.players,
          max_players: row.max_players,
          status: toV1Status(row.status),
          uptime: uptimePercent(tallies.get(row.id)),
          region: row.region as (typeof REGIONS)[number],
        }));
        return listBody(data, total, request.query);
      },
    );

    app.get(
      '/servers/:id/status',
      v1Route({
        operationId: 'v1_servers_status_get',
        tag: 'Servers',
        summary: 'Live status of a game server (preview)',
        description:
          'The live state of one registered server, as the poller last saw it: status, players, map, when it last answered, the latency of the last poll, and uptime over 24 hours and 30 days. An unknown or removed server is 404 `server_not_found`.',
        scope: 'servers:read',
        cache: true,
        params: IdParam('Server'),
        response: V1ServerStatusResponse,
        errors: ['server_not_found'],
      }),
      async (request): Promise<V1ServerStatusBody> => {
        const { id } = request.params;
        const row = await repo.findLive(id);
        if (!row) throw new ProblemError('server_not_found', `There is no game server with id ${id}.`);
        const at = now();
        const [day, month] = await Promise.all([
          repo.pollTallies([id], windowStart(at, UPTIME_HOURS.day)),
          repo.pollTallies([id], windowStart(at, UPTIME_HOURS.month)),
        ]);
        return {
          data: {
            id: String(row.id),
            status: toV1Status(row.status),
            players: row.players,
            max_players: row.max_players,
            map: row.map,
            last_seen: row.last_seen_at === null ? null : toIso(row.last_seen_at),
            latency_ms: row.last_latency_ms,
            uptime_24h: uptimePercent(day.get(id)),
            uptime_30d: uptimePercent(month.get(id)),
          },
        };
      },
    );
  };
}
