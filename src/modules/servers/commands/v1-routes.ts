import { Type, type Static } from 'typebox';
import type { App } from '../../../http/app-types.js';
import { V1_PREFIX } from '../../../http/paths.js';
import { IdParam, StringEnum, Timestamp, toIso } from '../../../http/schemas.js';
import {
  actingUserId,
  listBody,
  ListOf,
  One,
  PageQuery,
  pageWindow,
  v1Route,
} from '../../../http/v1-route.js';
import { CommandId } from './queue/ingest-routes.js';
import type { QueuedCommand } from './queue/repo.js';
import { DEFAULT_PLUGIN_WAIT_MS, type ServerCommandsService } from './service.js';

const TAG = 'Servers';
/** what a console line holds at most; the protocols allow more, operators never need it */
const MAX_COMMAND_CHARS = 512;
/** the longest a `/v1` caller waits for a plugin's result */
const MAX_WAIT_MS = 10_000;

const CommandBody = Type.Object(
  {
    command: Type.String({
      minLength: 1,
      maxLength: MAX_COMMAND_CHARS,
      description: `One console command, 1 to ${MAX_COMMAND_CHARS} characters, on one line (no line breaks or control characters, which would smuggle a second command).`,
      examples: ['changelevel de_inferno'],
    }),
    wait_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_WAIT_MS,
        description: `Plugin channel only: how long to wait for the plugin\u2019s result before answering \`202\`, 0 to ${MAX_WAIT_MS} ms (default ${DEFAULT_PLUGIN_WAIT_MS}). The remote console always answers, so it ignores it.`,
        examples: [DEFAULT_PLUGIN_WAIT_MS],
      }),
    ),
  },
  { additionalProperties: false, examples: [{ command: 'changelevel de_inferno' }] },
);

const QUEUE_STATUSES = ['pending', 'delivered', 'ok', 'error', 'expired'] as const;

const CommandResult = Type.Object(
  {
    command: Type.String({ description: 'the command as sent', examples: ['changelevel de_inferno'] }),
    output: Type.String({
      description: 'what the server answered, as text (empty for a command that prints nothing)',
      examples: ['Changing level to de_inferno'],
    }),
    truncated: Type.Boolean({
      description: 'the answer was longer than 64 KiB and `output` holds its first 64 KiB',
      examples: [false],
    }),
    duration_ms: Type.Integer({
      minimum: 0,
      description:
        'how long the exchange took: connect, log in, run, answer (plugin channel: as the plugin measured it; 0 while it has not answered)',
      examples: [42],
    }),
    executed_at: Timestamp('when the hub sent the command (plugin channel: when it queued it)'),
    id: Type.Optional(
      Type.String({ description: 'plugin channel: the queued command\u2019s id', examples: ['812'] }),
    ),
    status: Type.Optional(
      StringEnum(QUEUE_STATUSES, {
        description:
          'plugin channel: `ok` when the command ran, `error` when the game refused or failed it (its output says why); in a `202`, `pending` or `delivered` (or `expired`, when its time to live was shorter than the wait)',
        examples: ['ok'],
      }),
    ),
    expires_at: Type.Optional(
      Timestamp('plugin channel, in a `202`: a command without a result by then is `expired`'),
    ),
  },
  { $id: 'ServerCommandResult', title: 'ServerCommandResult' },
);

export const AUDIT_STATUSES = ['ok', 'timeout', 'unreachable', 'auth_failed', 'error', 'expired'] as const;

const AuditItem = Type.Object(
  {
    id: Type.Integer({ description: 'audit entry id; entries are listed newest first', examples: [812] }),
    user_id: Type.Integer({ description: 'the hub user who sent it', examples: [7] }),
    app_id: Type.Union([Type.Integer({ examples: [3] }), Type.Null()], {
      description: 'the OAuth app it was sent through',
    }),
    command: Type.String({ examples: ['changelevel de_inferno'] }),
    status: Type.Union(
      AUDIT_STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          '`ok`: the server answered; `timeout`: no answer in time (504); `unreachable`: no connection (502); `auth_failed`: the RCON password was refused (502); `error`: anything else (an answer out of protocol, a password the hub could not decrypt, a plugin that reported a failure); `expired`: plugin channel, not acknowledged within its time to live',
        examples: ['ok'],
      },
    ),
    output: Type.String({
      description: 'the first 2,000 characters of the answer, or what went wrong',
      examples: ['Changing level to de_inferno'],
    }),
    duration_ms: Type.Integer({ minimum: 0, examples: [42] }),
    created_at: Timestamp('when it was sent'),
  },
  { $id: 'ServerCommandAuditEntry', title: 'ServerCommandAuditEntry' },
);

export type ServerCommandResponse = Static<typeof CommandResult>;

const PENDING_EXAMPLE: ServerCommandResponse = {
  command: 'changelevel de_inferno',
  output: '',
  truncated: false,
  duration_ms: 0,
  executed_at: '2026-11-20T18:04:11.000Z',
  id: '812',
  status: 'pending',
  expires_at: '2026-11-20T18:05:11.000Z',
};

const CommandAnswer = Type.Object(
  { data: Type.Ref('ServerCommandResult') },
  {
    $id: 'ServerCommandAnswer',
    title: 'ServerCommandAnswer',
    description: 'a command\u2019s answer (`200`) or where it stands (`202`)',
  },
);

const STATUS_NOTE =
  '`pending`: queued, not yet taken by the plugin; `delivered`: taken, no result yet (redelivered after 30 s); `ok` / `error`: the plugin\u2019s result; `expired`: not acknowledged within its time to live (`PLUGIN_COMMAND_TTL`)';

const QueuedCommandRecord = Type.Object(
  {
    id: CommandId,
    command: Type.String({ examples: ['kick Bob'] }),
    status: StringEnum(QUEUE_STATUSES, { description: STATUS_NOTE, examples: ['ok'] }),
    output: Type.Union([Type.String(), Type.Null()], {
      description: 'what the plugin answered (up to 64 KiB); null until it answers',
      examples: ['Kicked Bob'],
    }),
    duration_ms: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'how long it ran, as the plugin measured it; null when it did not say',
      examples: [12],
    }),
    deliveries: Type.Integer({ minimum: 0, description: 'how many times the plugin took it', examples: [1] }),
    user_id: Type.Integer({ description: 'the hub user who sent it', examples: [7] }),
    issued_at: Timestamp('when it was queued'),
    expires_at: Timestamp('a command without a result by then is `expired`'),
    completed_at: Type.Union([Timestamp('when it reached its final status'), Type.Null()]),
  },
  { $id: 'ServerQueuedCommand', title: 'ServerQueuedCommand' },
);

export type ServerQueuedCommandResponse = Static<typeof QueuedCommandRecord>;

const record = (row: QueuedCommand): ServerQueuedCommandResponse => ({
  id: String(row.id),
  command: row.command,
  status: row.status,
  output: row.output,
  duration_ms: row.duration_ms,
  deliveries: row.deliveries,
  user_id: row.user_id,
  issued_at: toIso(row.issued_at),
  expires_at: toIso(row.expires_at),
  completed_at: row.completed_at === null ? null : toIso(row.completed_at),
});

const RATE_NOTE =
  'Each command spends one request of the hourly quota, like any call; the game server has its own limits: Source servers ban an address after repeated wrong passwords (`sv_rcon_maxfailures`), which is why a refused password (`rcon_auth_failed`) is never retried by the hub. Send commands one at a time per server.';

export function serverCommandsV1Routes(commands: ServerCommandsService) {
  return (app: App): void => {
    app.addSchema(CommandResult);
    app.addSchema(CommandAnswer);
    app.addSchema(AuditItem);
    app.addSchema(QueuedCommandRecord);

    const sendRoute = v1Route({
      operationId: 'v1_servers_command_send',
      tag: TAG,
      summary: 'Send a console command to a game server (preview)',
      description:
        'Sends one command to the game server through its command channel and returns its answer. ' +
        '**Remote console** (the default channel): over the server\u2019s own protocol \u2014 Source RCON over TCP (cs2, minecraft), GoldSrc rcon over UDP (cs16), WebRCON over WebSocket (rust). A server that does not answer in time is 504 `rcon_timeout`; one that cannot be reached, refuses the password or answers out of protocol is 502 with its own code. ' +
        '**Plugin** (a server registered with `--channel plugin`): the command is queued for the server\u2019s plugin, which long-polls `GET /api-platform/ingest/commands`; the call waits up to `wait_ms` (default 5 s) for its result: `200` with the output (and `id`, `status`: `ok` or `error`) when the plugin answers in time, else `202` with the command\u2019s `id` and a `Location` to read it later (`GET /v1/servers/{id}/commands/{commandId}`). A command the plugin does not acknowledge within `PLUGIN_COMMAND_TTL` (60 s by default) is `expired`; each final status is audited and told as `server.command_completed`. ' +
        'Only the server\u2019s owner and the operators it granted may send commands (others: 403 `server_operator_required`; an unknown server: 404). ' +
        'Requires an `Idempotency-Key`: a retry with the same key and body gets the first answer (`Idempotent-Replayed: true`; a replayed `202` carries the same command id, without `Location`) without running or queuing the command again; the key of a 5xx answer is released, so a retry after a timeout runs the command again. Every attempt is audited (`GET /v1/servers/{id}/commands`). ' +
        RATE_NOTE,
      scope: 'servers:command',
      userContext: true,
      idempotency: 'required',
      params: IdParam('Server'),
      body: CommandBody,
      response: Type.Ref('ServerCommandAnswer', { description: 'the server\u2019s answer' }),
      errors: [
        'server_operator_required',
        'server_not_found',
        'rcon_not_configured',
        'rcon_unreachable',
        'rcon_auth_failed',
        'rcon_protocol_error',
        'rcon_timeout',
      ],
    });
    app.post(
      '/servers/:id/command',
      {
        ...sendRoute,
        schema: {
          ...sendRoute.schema,
          response: {
            ...sendRoute.schema.response,
            // the same named body as the 200, so every generator sees one answer type
            202: Type.Ref('ServerCommandAnswer', {
              description:
                'plugin channel: no result within `wait_ms` (`status` says where it stands, `output` is empty); the `Location` header points to `GET /v1/servers/{id}/commands/{commandId}`',
              // the document's own example of a 202, not the 200's that the shared schema's fields give
              examples: [{ data: PENDING_EXAMPLE }],
              headers: {
                Location: Type.String({
                  description:
                    'where the command stands: `GET /v1/servers/{id}/commands/{commandId}` (absent in a replay)',
                  examples: [`${V1_PREFIX}/servers/3/commands/812`],
                }),
              },
            }),
          },
        },
      },
      async (request, reply) => {
        const principal = request.principal;
        const serverId = request.params.id;
        const sent = await commands.send(
          serverId,
          { userId: actingUserId(request), appId: principal?.appId ?? null },
          request.body.command,
          request.body.wait_ms,
        );
        if ('answered' in sent)
          return { data: { ...sent.answered, executed_at: toIso(sent.answered.executed_at) } };
        const { id, status, issued_at, expires_at } = sent.queued;
        reply.code(202).header('location', `${V1_PREFIX}/servers/${serverId}/commands/${id}`);
        return {
          data: {
            command: request.body.command,
            output: '',
            truncated: false,
            duration_ms: 0,
            executed_at: toIso(issued_at),
            id: String(id),
            status,
            expires_at: toIso(expires_at),
          },
        };
      },
    );

    app.get(
      '/servers/:id/commands/:commandId',
      v1Route({
        operationId: 'v1_servers_commands_get',
        tag: TAG,
        summary: 'One queued command of a plugin-channel server (preview)',
        description:
          'A command queued for the server\u2019s plugin, as it stands: `pending`, `delivered`, or final with the plugin\u2019s output (`ok`, `error`) or `expired`. This is where a `202` from `POST /v1/servers/{id}/command` points. The owner reads every command of the server, an operator only their own; another server\u2019s command, or an id that does not exist, is 404 `command_not_found`.',
        scope: 'servers:command',
        userContext: true,
        params: Type.Object({
          id: IdParam('Server').properties.id,
          commandId: CommandId,
        }),
        response: One(Type.Ref('ServerQueuedCommand'), 'the command'),
        errors: ['server_operator_required', 'server_not_found', 'command_not_found'],
      }),
      async (request) => {
        const row = await commands.queued(
          request.params.id,
          actingUserId(request),
          Number(request.params.commandId),
        );
        return { data: record(row) };
      },
    );

    app.get(
      '/servers/:id/commands',
      v1Route({
        operationId: 'v1_servers_commands_list',
        tag: TAG,
        summary: 'The command audit of a game server (preview)',
        description:
          'Every command sent to the server through the hub, newest first, with who sent it, through which app, its result and how long it took \u2014 failures included. The owner sees every entry; an operator sees only their own. Others get 403 `server_operator_required`.',
        scope: 'servers:command',
        userContext: true,
        params: IdParam('Server'),
        querystring: Type.Object(PageQuery),
        response: ListOf(Type.Ref('ServerCommandAuditEntry'), 'a page of the audit, newest first'),
        errors: ['server_operator_required', 'server_not_found'],
      }),
      async (request) => {
        const { rows, total } = await commands.history(
          request.params.id,
          actingUserId(request),
          pageWindow(request.query),
        );
        const data = rows.map((r) => ({ ...r, created_at: toIso(r.created_at) }));
        return listBody(data, total, request.query);
      },
    );
  };
}
