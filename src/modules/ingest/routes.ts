import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import type { IngestRecorder } from '../../http/metrics.js';
import { errorResponses, ProblemError } from '../../http/problem.js';
import {
  EVENT_KINDS,
  EVENT_SCHEMAS,
  MAX_EVENTS,
  SHARED_SCHEMAS,
  validateEvents,
} from './parsers/json-events.js';
import type { IngestPipeline, IngestServerRef, Rejection } from './pipeline.js';
import type { ServersRepo } from '../servers/repo.js';
import { ingestAuth, ingestCaller } from '../servers/ingest-auth.js';

export const INGEST_PREFIX = '/api-platform/ingest';
/** Batches are large by design (a CS2 log flush, a plugin's queue); 16 MiB keeps one request bounded. */
const BODY_LIMIT = 16 * 1024 * 1024;
const MAX_REPORTED_ERRORS = 100;

export const IngestResultSchema = Type.Object(
  {
    accepted: Type.Integer({ description: 'log lines or events accepted and applied' }),
    duplicates: Type.Integer({
      description:
        'events whose client_id was already accepted, or log lines already applied by an earlier batch (skipped)',
    }),
    rejected: Type.Integer({
      description: 'malformed lines or invalid events, or ones dated out of the ingest window (skipped)',
    }),
    kills: Type.Integer({ description: 'kills stored' }),
    matches: Type.Integer({ description: 'match results stored (and rated, for cs2 and cs16)' }),
    achievements_unlocked: Type.Integer(),
    errors: Type.Array(
      Type.Object({
        line: Type.Optional(Type.Integer({ description: '1-based line number in the body' })),
        index: Type.Optional(Type.Integer({ description: '0-based index in `events`' })),
        reason: Type.String(),
      }),
      { description: `why items were rejected (the first ${MAX_REPORTED_ERRORS})` },
    ),
  },
  { $id: 'IngestResult', title: 'IngestResult' },
);
export type IngestResultBody = Static<typeof IngestResultSchema>;

const AUTH_DOC = `Authenticated by the server's ingest token (from \`hub servers add\`), as \`Authorization: Bearer <token>\`
or, for senders that cannot set headers, in the path. The event is attributed to that server and its game.
A missing, unknown or revoked token gets \`401\` and nothing is stored. A batch is applied in one transaction.`;

const LOGS_DOC = `Log lines in the HL log format, one per line: \`L MM/DD/YYYY - HH:MM:SS: <event>\` (also with milliseconds and
without \`L \`, as CS2's \`logaddress_add_http\` writes them). Kills, rounds, sides, restarts, warm-up, restored
rounds and match ends (\`Game Over\` in CS2/CS:GO, the end-of-map team scores in CS 1.6) are applied; other lines are
accepted and skipped. Lines that are not log lines are rejected alone. Timestamps are read as UTC. Distances: positions
are Source units (inches), 1 unit = 0.0254 m.

Lines are read by structure (the quoted participant \`"Name<userid><id><team>"\`, then a verb whose grammar the whole
rest of the line matches), so names and chat cannot forge events. A frag is a human killing a human of the other side
in a counted round; team kills, suicides, world deaths, bots and non-Steam ids (\`BOT\`, \`STEAM_ID_LAN\`,
\`STEAM_ID_PENDING\`, \`HLTV\`, \`STEAM_2:…\` emulators, an id shared by two connected players) count nowhere. A
round's kills count when the next round starts or the match ends, unless the server voids the round first (warm-up,
\`Match_Start\`, \`Restart_Round_(…)\`, \`Game_Commencing\`, \`Match_Reloaded\`).

A line dated more than 5 minutes ahead of the service clock or before the ingest window (\`INGEST_MAX_AGE_DAYS\`,
default 7 days), or holding a number beyond ±10,000,000, is rejected alone with its reason. A resent batch counts
once: each applied line is remembered per server by a fingerprint of its text (which holds its timestamp) and of how
many identical lines came before it in the batch; a line seen again is counted in \`duplicates\` and skipped.`;

/** How ingested events become XP, levels, achievements and Elo (shown in the API reference). */
const ENGINES_DOC = `### What the service derives
- **Players**: Steam IDs (\`[U:1:N]\`, \`STEAM_X:Y:Z\`, SteamID64) are stored as SteamID64; a new Steam ID gets a hub profile.
- **XP**: kill 10, headshot +5, match played 20, match won +50, tournament match 100, forum post 5, plus each achievement's \`xp_reward\`.
- **Levels**: level L is reached at 50·L·(L−1) total XP (level 2 at 100, 3 at 300, 10 at 4,500); \`xp\` is the progress inside the level.
- **Achievements**: threshold rules on per-player counters (kills, headshots, weapon kills, long-range kills ≥ 50 m, kills in one round, matches played/won, level, tournaments), unlocked as events arrive, never twice.
- **ELO** (cs2, cs16): team rating = mean of its players; E = 1 / (1 + 10^((R_opp − R_team)/400)); S = 1, 0.5 or 0; change = round(K·(S − E)·participation), K = 100 for a player's first 10 rated matches, then 50; participation = share of rounds played (a leaver on the losing side takes the full loss). Every change is kept with its match id, before and after.
- **Top-frag**: kills update per-day rollups in the same transaction.`;

/**
 * The body's items are validated one by one after the batch is accepted (an invalid event is
 * rejected alone, in the 200 answer), so the body schema names each kind's schema beside a
 * catch-all object; this text says the same in words.
 */
const EVENTS_DOC = EVENT_KINDS.map((k) => `- \`${k.type}\` (\`${k.id}\`): ${k.description}`).join('\n');

const PLAYERS_DOC = `A player is an \`IngestPlayer\`: \`name\` and exactly one of \`steam_id\` (SteamID64, \`STEAM_X:Y:Z\` or \`[U:1:N]\`), \`minecraft_uuid\` (dashes optional) or \`eos_id\` (32 hex digits). A Steam id gets a hub profile the first time it is seen. A Minecraft or EOS id counts only for the hub user it is linked to (\`POST /api-platform/ingest/links\`): its kills, matches and XP land on that profile. An unlinked one credits nobody: its event is accepted (and counted once by \`client_id\`) but nothing is attached to anybody. A kill naming a Minecraft or EOS player is not listed in the kill feed (whose participants are named by SteamID); it counts on the linked players\u2019 profiles (kill counters, XP, achievements, combat totals). A match\u2019s unlinked players are left out of its teams.`;

/** Every kind by name, then any other object: what the service takes into the batch. */
const EventItem = Type.Union(
  [
    ...EVENT_KINDS.map((k) => Type.Ref(k.id)),
    Type.Object(
      {},
      {
        title: 'IngestOtherEvent',
        description:
          'Any other object (an unknown kind, an invalid event): accepted into the batch and rejected alone, with its index and reason in `errors`.',
      },
    ),
  ],
  { description: 'An event of one of the kinds above' },
);

function result(
  r: { kills: number; matches: number; unlocked: number },
  accepted: number,
  duplicates: number,
  rejected: Rejection[],
): IngestResultBody {
  return {
    accepted,
    duplicates,
    rejected: rejected.length,
    kills: r.kills,
    matches: r.matches,
    achievements_unlocked: r.unlocked,
    errors: rejected.slice(0, MAX_REPORTED_ERRORS),
  };
}

/** Game servers push here: CS2/CS 1.6 log lines and typed JSON events (Rust and plugins). */
export function ingestRoutes(deps: {
  servers: ServersRepo;
  pipeline: IngestPipeline;
  metrics?: IngestRecorder;
  now: () => number;
  /** other features' plugin routes, behind the same token check (identity links) */
  more?: ((app: App, serverOf: (request: FastifyRequest) => IngestServerRef) => void)[];
}) {
  return async (app: App): Promise<void> => {
    app.addSchema(IngestResultSchema);
    for (const schema of [...SHARED_SCHEMAS, ...EVENT_SCHEMAS]) app.addSchema(schema);
    // CS2 posts text/plain; relays may send anything else. Parsed only after authentication.
    app.addContentTypeParser(
      ['text/plain', '*'],
      { parseAs: 'string', bodyLimit: BODY_LIMIT },
      (_req, body, done) => done(null, body),
    );

    app.addHook('onRequest', ingestAuth(deps.servers, deps.now));

    const serverOf = (request: FastifyRequest): IngestServerRef => {
      const { id, game } = ingestCaller(request);
      return { id, game };
    };
    const errors = errorResponses(
      'invalid_body',
      'invalid_server_token',
      'payload_too_large',
      'unsupported_media_type',
      'internal_error',
    );
    const documented = { tags: ['Ingest'], security: [{ ingestToken: [] }] };
    const logsSchema = {
      ...documented,
      summary: 'Ingest log lines (CS2 HTTP log stream, CS 1.6)',
      description: `\`POST ${INGEST_PREFIX}/logs\` (Bearer) or \`POST ${INGEST_PREFIX}/logs/{token}\`.\n\n${AUTH_DOC}\n\n${LOGS_DOC}\n\n${ENGINES_DOC}`,
      consumes: ['text/plain'],
      response: { 200: Type.Ref('IngestResult'), ...errors },
    };
    const ingestLogs = async (request: FastifyRequest): Promise<IngestResultBody> => {
      const server = serverOf(request);
      if (typeof request.body !== 'string') {
        throw new ProblemError('unsupported_media_type', 'Send log lines as text/plain, one per line.');
      }
      const r = await deps.pipeline.ingestLogText(server, request.body);
      deps.metrics?.received('http_logs', r.accepted, r.rejected.length);
      deps.metrics?.kills('http_logs', r.kills);
      return result(r, r.accepted, r.duplicates, r.rejected);
    };
    app.post(
      '/logs',
      { bodyLimit: BODY_LIMIT, schema: { ...logsSchema, operationId: 'ingest_logs_create' } },
      ingestLogs,
    );
    app.post(
      '/logs/:token',
      {
        bodyLimit: BODY_LIMIT,
        schema: {
          ...logsSchema,
          operationId: 'ingest_logs_create_by_token',
          params: Type.Object({ token: Type.String({ description: 'the server ingest token' }) }),
        },
      },
      ingestLogs,
    );

    app.post(
      '/events',
      {
        bodyLimit: BODY_LIMIT,
        schema: {
          operationId: 'ingest_events_create',
          ...documented,
          summary: 'Ingest typed JSON events (game-server plugins)',
          description: `\`POST ${INGEST_PREFIX}/events\` (Bearer).\n\n${AUTH_DOC}\n\nA batch of up to ${MAX_EVENTS} events, each an object of one of these kinds (the named schema of each is in the document):\n\n${EVENTS_DOC}\n\n${PLAYERS_DOC}\n\nEach event is validated alone; an invalid one is rejected with its index and reason, the others are applied. \`client_id\` makes a resent event a duplicate, counted once.\n\n${ENGINES_DOC}`,
          body: Type.Object(
            {
              events: Type.Array(EventItem, {
                minItems: 1,
                maxItems: MAX_EVENTS,
                description: 'events of the kinds above, validated one by one',
              }),
            },
            { additionalProperties: false },
          ),
          response: { 200: Type.Ref('IngestResult'), ...errors },
        },
      },
      async (request): Promise<IngestResultBody> => {
        const server = serverOf(request);
        const { valid, rejected } = validateEvents(request.body.events, deps.pipeline.timeRejection);
        const r = await deps.pipeline.ingestItems(server, valid);
        deps.metrics?.received('http_events', valid.length, rejected.length);
        deps.metrics?.kills('http_events', r.kills);
        return result(r, r.accepted, r.duplicates, rejected);
      },
    );
    for (const add of deps.more ?? []) add(app, serverOf);
  };
}
