import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import { errorResponses, ProblemError } from '../../http/problem.js';
import { Timestamp, toIso } from '../../http/schemas.js';
import { DEFAULT_TOKEN_OVERLAP_MS, HEARTBEAT_INTERVAL_S, HEARTBEAT_OFFLINE_AFTER_S } from './heartbeat.js';
import { ingestCaller } from './ingest-auth.js';
import type { ServersRepo } from './repo.js';
import { generateToken, hashToken } from './tokens.js';

const HeartbeatBody = Type.Object(
  {
    players: Type.Integer({
      minimum: 0,
      maximum: 100_000,
      description: 'players connected now',
      examples: [12],
    }),
    max_players: Type.Integer({ minimum: 0, maximum: 100_000, description: 'slots', examples: [20] }),
    map: Type.String({
      maxLength: 64,
      description: 'current map or world; empty when the game has none',
      examples: ['de_dust2'],
    }),
    version: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'the game server\u2019s version',
      examples: ['1.40.2.1'],
    }),
    plugin: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'the SDK (or plugin) name and version',
      examples: ['hub-plugin-sdk-ts/0.1.0'],
    }),
  },
  {
    $id: 'PluginHeartbeat',
    title: 'PluginHeartbeat',
    additionalProperties: false,
    examples: [
      {
        players: 12,
        max_players: 20,
        map: 'de_dust2',
        version: '1.40.2.1',
        plugin: 'hub-plugin-sdk-ts/0.1.0',
      },
    ],
  },
);

const HeartbeatAnswer = Type.Object(
  {
    server_id: Type.Integer({ minimum: 1, description: 'the server the token belongs to', examples: [3] }),
    status: Type.Literal('online', { description: 'the server is online from this heartbeat on' }),
    heartbeat_interval_s: Type.Integer({
      description: 'send the next heartbeat within this many seconds',
      examples: [HEARTBEAT_INTERVAL_S],
    }),
    offline_after_s: Type.Integer({
      description: 'silence after which the server is shown offline',
      examples: [HEARTBEAT_OFFLINE_AFTER_S],
    }),
  },
  { $id: 'PluginHeartbeatResult', title: 'PluginHeartbeatResult' },
);

const Rotation = Type.Object(
  {
    token: Type.String({
      pattern: '^[1-9]\\d{31}$',
      description: 'the new ingest token: use it from now on; it is shown once',
      examples: ['48213907561230984712036598127634'],
    }),
    previous_valid_until: Timestamp('until when the token this request carried is still accepted'),
  },
  { $id: 'IngestTokenRotation', title: 'IngestTokenRotation' },
);

export type HeartbeatResult = Static<typeof HeartbeatAnswer>;
export type TokenRotationResult = Static<typeof Rotation>;

const documented = { tags: ['Ingest'], security: [{ ingestToken: [] }] };

/**
 * The plugin's status heartbeat and its token rotation, on the ingest surface (authenticated by the
 * ingest hook of its scope: src/modules/servers/ingest-auth.ts).
 */
export function pluginServerRoutes(deps: { servers: ServersRepo; now: () => number }) {
  return (app: App): void => {
    app.addSchema(HeartbeatBody);
    app.addSchema(HeartbeatAnswer);
    app.addSchema(Rotation);

    app.post(
      '/heartbeat',
      {
        schema: {
          ...documented,
          operationId: 'ingest_heartbeat_create',
          summary: 'Report a game server\u2019s status from its plugin',
          description:
            `A plugin reports its server\u2019s players, slots, map and version every ${HEARTBEAT_INTERVAL_S} s. ` +
            `The server is \`online\` in \`/servers\` and \`/v1/servers\` with what it reports, whether or not the hub can query it (a server behind NAT, a game without A2S or Server List Ping); ` +
            `after ${HEARTBEAT_OFFLINE_AFTER_S} s without a heartbeat (and without an answered status query) it is \`offline\` with 0 players, within one poll interval (\`POLL_INTERVAL_MS\`). ` +
            'Each change is told as `server.status_changed`, `server.map_changed` and `server.players_changed`. ' +
            'A missing, unknown, revoked or expired token is `401 invalid_server_token` and nothing is stored.',
          body: Type.Ref('PluginHeartbeat'),
          response: {
            200: Type.Ref('PluginHeartbeatResult'),
            ...errorResponses(
              'invalid_body',
              'invalid_server_token',
              'unsupported_media_type',
              'internal_error',
            ),
          },
        },
      },
      async (request): Promise<HeartbeatResult> => {
        const server = ingestCaller(request);
        const body = request.body as Static<typeof HeartbeatBody>;
        await deps.servers.heartbeat(
          server.id,
          { players: body.players, max_players: body.max_players, map: body.map },
          deps.now(),
        );
        return {
          server_id: server.id,
          status: 'online',
          heartbeat_interval_s: HEARTBEAT_INTERVAL_S,
          offline_after_s: HEARTBEAT_OFFLINE_AFTER_S,
        };
      },
    );

    app.post(
      '/token/rotate',
      {
        schema: {
          ...documented,
          operationId: 'ingest_token_rotate',
          summary: 'Replace the server\u2019s ingest token, without downtime',
          description:
            'Issues a new ingest token for the server the current token belongs to (no body). The token this request carried stays accepted for 24 hours (`previous_valid_until`), so a plugin and a log sender using it can move over without a gap; after that it is refused with `401 invalid_server_token`. ' +
            'Only the current token may rotate: the previous one, still accepted during an overlap, is `409 token_superseded`. A rotation during an overlap ends the older token at once (one previous token is kept). ' +
            'The operator does the same with `hub servers rotate-token ID [--overlap 24h]`; `hub servers remove` revokes every token of the server at once.',
          response: {
            200: Type.Ref('IngestTokenRotation'),
            ...errorResponses('invalid_server_token', 'token_superseded', 'internal_error'),
          },
        },
      },
      async (request): Promise<TokenRotationResult> => {
        const server = ingestCaller(request);
        const superseded = () =>
          new ProblemError(
            'token_superseded',
            'This token was already replaced by a rotation; rotate with the current token.',
          );
        if (!server.currentToken) throw superseded();
        const token = generateToken();
        const until = deps.now() + DEFAULT_TOKEN_OVERLAP_MS;
        // only if it is still the current token: two rotations at once make one winner
        if (!(await deps.servers.rotateToken(server.id, hashToken(token), until, server.tokenHash)))
          throw superseded();
        return { token, previous_valid_until: toIso(until) };
      },
    );
  };
}
