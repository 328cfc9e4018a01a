import { Type, type Static } from 'typebox';
import type { App } from '../../../../http/app-types.js';
import { errorResponses } from '../../../../http/problem.js';
import { Timestamp, toIso } from '../../../../http/schemas.js';
import { ingestCaller } from '../../ingest-auth.js';
import { REDELIVER_AFTER_MS, type PluginQueue } from './service.js';

/** The longest a plugin's long-poll is held (under every proxy's usual 60 s idle timeout). */
export const MAX_WAIT_S = 30;
/** What a plugin may answer for one command (the RCON path caps output the same). */
export const MAX_OUTPUT_CHARS = 65_536;

/** Command ids are strings on the wire (digits today; clients must not count on it). */
export const CommandId = Type.String({
  pattern: '^[1-9][0-9]{0,15}$',
  description: 'the command\u2019s id, as the queue gave it',
  examples: ['812'],
});

const Delivered = Type.Object(
  {
    id: CommandId,
    command: Type.String({ description: 'the console command to run', examples: ['kick Bob'] }),
    issued_at: Timestamp('when the hub queued it'),
    expires_at: Timestamp('after this a result is refused (`409 command_expired`)'),
  },
  { $id: 'PluginCommand', title: 'PluginCommand' },
);

const DeliveredList = Type.Object(
  { data: Type.Array(Type.Ref('PluginCommand')) },
  { $id: 'PluginCommandList', title: 'PluginCommandList' },
);

const ResultBody = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('error')], {
      description:
        '`ok`: the command ran; `error`: the game refused or failed it (the caller gets `status: "error"`)',
      examples: ['ok'],
    }),
    output: Type.String({
      maxLength: MAX_OUTPUT_CHARS,
      description: `what the command printed, up to ${MAX_OUTPUT_CHARS} characters (empty when it printed nothing)`,
      examples: ['Kicked Bob'],
    }),
    duration_ms: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 3_600_000,
        description: 'how long it ran on the game server',
        examples: [12],
      }),
    ),
  },
  {
    $id: 'PluginCommandResult',
    title: 'PluginCommandResult',
    additionalProperties: false,
    examples: [{ status: 'ok', output: 'Kicked Bob', duration_ms: 12 }],
  },
);

const Recorded = Type.Object(
  {
    recorded: Type.Boolean({
      description:
        '`true`: this result is the command\u2019s; `false`: an earlier result already was (a retry), this one is ignored',
      examples: [true],
    }),
  },
  { $id: 'PluginCommandRecorded', title: 'PluginCommandRecorded' },
);

export type PluginCommandList = { data: Static<typeof Delivered>[] };
export type PluginCommandRecorded = Static<typeof Recorded>;

const documented = { tags: ['Ingest'], security: [{ ingestToken: [] }] };
const REDELIVER_S = REDELIVER_AFTER_MS / 1000;

/** The plugin's side of the command queue, on the ingest surface (token checked by its scope's hook). */
export function pluginCommandRoutes(queue: PluginQueue) {
  return (app: App): void => {
    app.addSchema(Delivered);
    app.addSchema(DeliveredList);
    app.addSchema(ResultBody);
    app.addSchema(Recorded);

    app.get(
      '/commands',
      {
        schema: {
          ...documented,
          operationId: 'ingest_commands_list',
          summary: 'Long-poll the commands the server\u2019s plugin should run',
          description:
            `The commands queued for the server of the token (\`POST /v1/servers/{id}/command\` on a server registered with \`--channel plugin\`), oldest first, at most 50. ` +
            `With \`wait\` the request is held until a command arrives or \`wait\` seconds pass (then \`{"data":[]}\`); a plugin calls it again at once. ` +
            `Delivery is at least once: a command not acknowledged (\`POST /api-platform/ingest/commands/{id}/result\`) within ${REDELIVER_S} s of its delivery is delivered again, so a plugin that crashed after taking it still runs it; run each id once. ` +
            'A command not acknowledged before `expires_at` is never delivered again.',
          querystring: Type.Object({
            wait: Type.Integer({
              minimum: 0,
              maximum: MAX_WAIT_S,
              default: 0,
              description: `seconds to hold the request while nothing is due, 0 to ${MAX_WAIT_S} (default 0: answer at once)`,
              examples: [25],
            }),
          }),
          response: {
            200: Type.Ref('PluginCommandList'),
            ...errorResponses('invalid_parameter', 'invalid_server_token', 'internal_error'),
          },
        },
      },
      async (request, reply): Promise<PluginCommandList> => {
        const server = ingestCaller(request);
        const { wait } = request.query;
        const hungUp = new AbortController();
        reply.raw.once('close', () => hungUp.abort());
        const rows = await queue.take(server.id, wait * 1000, hungUp.signal);
        return {
          data: rows.map((r) => ({
            id: String(r.id),
            command: r.command,
            issued_at: toIso(r.issued_at),
            expires_at: toIso(r.expires_at),
          })),
        };
      },
    );

    app.post(
      '/commands/:id/result',
      {
        schema: {
          ...documented,
          operationId: 'ingest_commands_result_create',
          summary: 'Acknowledge a command with its result',
          description:
            'Records what the command printed and whether it ran. The result is recorded exactly once: the same command acknowledged again (a retry after a lost answer) is `200 {"recorded": false}` and changes nothing. ' +
            'The recorded result goes to the caller still waiting on `POST /v1/servers/{id}/command`, or to `GET /v1/servers/{id}/commands/{commandId}` later; it is audited and told as `server.command_completed`. ' +
            'Another server\u2019s command or an unknown id is `404 command_not_found`; a command past its `expires_at` is `409 command_expired` (it is final as `expired`).',
          params: Type.Object({ id: CommandId }),
          body: Type.Ref('PluginCommandResult'),
          response: {
            200: Type.Ref('PluginCommandRecorded'),
            ...errorResponses(
              'invalid_parameter',
              'invalid_body',
              'invalid_server_token',
              'command_not_found',
              'command_expired',
              'unsupported_media_type',
              'internal_error',
            ),
          },
        },
      },
      async (request): Promise<PluginCommandRecorded> => {
        const server = ingestCaller(request);
        const { id } = request.params;
        const body = request.body as Static<typeof ResultBody>;
        const recorded = await queue.complete(server.id, server.game, Number(id), {
          status: body.status,
          output: body.output,
          duration_ms: body.duration_ms,
        });
        return { recorded };
      },
    );
  };
}
