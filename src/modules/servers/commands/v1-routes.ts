import { Type, type Static } from 'typebox';
import type { App } from '../../../http/app-types.js';
import { IdParam, Timestamp, toIso } from '../../../http/schemas.js';
import {
  actingUserId,
  listBody,
  ListOf,
  One,
  PageQuery,
  pageWindow,
  v1Route,
} from '../../../http/v1-route.js';
import type { ServerCommandsService } from './service.js';

const TAG = 'Servers';
/** what a console line holds at most; the protocols allow more, operators never need it */
const MAX_COMMAND_CHARS = 512;

const CommandBody = Type.Object(
  {
    command: Type.String({
      minLength: 1,
      maxLength: MAX_COMMAND_CHARS,
      description: `One console command, 1 to ${MAX_COMMAND_CHARS} characters, on one line (no line breaks or control characters, which would smuggle a second command).`,
      examples: ['changelevel de_inferno'],
    }),
  },
  { additionalProperties: false, examples: [{ command: 'changelevel de_inferno' }] },
);

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
      description: 'how long the exchange took: connect, log in, run, answer',
      examples: [42],
    }),
    executed_at: Timestamp('when the hub sent the command'),
  },
  { $id: 'ServerCommandResult', title: 'ServerCommandResult' },
);

export const AUDIT_STATUSES = ['ok', 'timeout', 'unreachable', 'auth_failed', 'error'] as const;

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
          '`ok`: the server answered; `timeout`: no answer in time (504); `unreachable`: no connection (502); `auth_failed`: the RCON password was refused (502); `error`: anything else (an answer out of protocol, a password the hub could not decrypt)',
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

const RATE_NOTE =
  'Each command spends one request of the hourly quota, like any call; the game server has its own limits: Source servers ban an address after repeated wrong passwords (`sv_rcon_maxfailures`), which is why a refused password (`rcon_auth_failed`) is never retried by the hub. Send commands one at a time per server.';

export function serverCommandsV1Routes(commands: ServerCommandsService) {
  return (app: App): void => {
    app.addSchema(CommandResult);
    app.addSchema(AuditItem);

    app.post(
      '/servers/:id/command',
      v1Route({
        operationId: 'v1_servers_command_send',
        tag: TAG,
        summary: 'Send a remote-console command to a game server (preview)',
        description:
          'Sends one command to the game server over its own remote console \u2014 Source RCON over TCP (cs2, minecraft), GoldSrc rcon over UDP (cs16), WebRCON over WebSocket (rust) \u2014 and returns its answer. ' +
          'Only the server\u2019s owner and the operators it granted may send commands (others: 403 `server_operator_required`; an unknown server: 404). ' +
          'Requires an `Idempotency-Key`: a retry with the same key and body gets the first answer (`Idempotent-Replayed: true`) without running the command again; the key of a 5xx answer is released, so a retry after a timeout runs the command again. ' +
          'A server that does not answer in time is 504 `rcon_timeout`; one that cannot be reached, refuses the password or answers out of protocol is 502 with its own code. Every attempt is audited (`GET /v1/servers/{id}/commands`). ' +
          RATE_NOTE,
        scope: 'servers:command',
        userContext: true,
        idempotency: 'required',
        params: IdParam('Server'),
        body: CommandBody,
        response: One(Type.Ref('ServerCommandResult'), 'the server\u2019s answer'),
        errors: [
          'server_operator_required',
          'server_not_found',
          'rcon_not_configured',
          'rcon_unreachable',
          'rcon_auth_failed',
          'rcon_protocol_error',
          'rcon_timeout',
        ],
      }),
      async (request) => {
        const principal = request.principal;
        const outcome = await commands.send(
          request.params.id,
          { userId: actingUserId(request), appId: principal?.appId ?? null },
          request.body.command,
        );
        return { data: { ...outcome, executed_at: toIso(outcome.executed_at) } };
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
