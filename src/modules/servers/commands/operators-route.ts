import { Type, type Static } from 'typebox';
import type { App } from '../../../http/app-types.js';
import { IdParam, StringEnum, Timestamp, toIso } from '../../../http/schemas.js';
import { actingUserId, listBody, ListOf, PageQuery, pageWindow, v1Route } from '../../../http/v1-route.js';
import type { ServerCommandsService } from './service.js';

const ROLES = ['owner', 'operator'] as const;

const OperatorRecord = Type.Object(
  {
    user_id: Type.Integer({ description: 'the hub user id', examples: [42] }),
    username: Type.String({ description: 'their hub username', examples: ['NovaStrike'] }),
    role: StringEnum(ROLES, {
      description:
        '`owner`: the user the hub operator registered as the server\u2019s owner; `operator`: a user granted the right to operate it (`hub servers grant`)',
      examples: ['operator'],
    }),
    granted_at: Type.Union([Timestamp('when the operator was granted'), Type.Null()], {
      description: 'when the operator was granted; null for the owner',
      examples: ['2026-11-20T18:04:11.000Z'],
    }),
  },
  { $id: 'ServerOperator', title: 'ServerOperator' },
);

export type ServerOperatorRecord = Static<typeof OperatorRecord>;

/**
 * `GET /v1/servers/:id/operators`: who may operate a server. The same people read its chat and send
 * it commands, so a bot acting for one of them learns who may use its operator-only commands.
 */
export function serverOperatorsV1Route(commands: ServerCommandsService) {
  return (app: App): void => {
    app.addSchema(OperatorRecord);
    app.get(
      '/servers/:id/operators',
      v1Route({
        operationId: 'v1_servers_operators_list',
        tag: 'Servers',
        summary: 'The owner and operators of a game server (preview)',
        description:
          'Who may operate the server: its owner first (when it has one), then the operators granted on it, by user id. These are the users who may send it commands and who receive its `chat.message` events. ' +
          'Private like the server\u2019s chat: only its owner and operators may read it, through an app they authorized with `servers:command` (others: 403 `server_operator_required`; an unknown or removed server: 404 `server_not_found`); never an API key. ' +
          'A bot acting for one of them reads it to decide who may run its operator-only commands; grants and revocations show on the next read (nothing is cached), and each is told to the owner, the operators and the user changed as `server.operators_changed`, so a bot may read the list again when it comes.',
        scope: 'servers:command',
        userContext: true,
        params: IdParam('Server'),
        querystring: Type.Object(PageQuery),
        response: ListOf(Type.Ref('ServerOperator'), 'a page of the server\u2019s owner and operators'),
        errors: ['server_operator_required', 'server_not_found'],
      }),
      async (request) => {
        const { rows, total } = await commands.operators(
          request.params.id,
          actingUserId(request),
          pageWindow(request.query),
        );
        const data = rows.map((r) => ({
          ...r,
          granted_at: r.granted_at === null ? null : toIso(r.granted_at),
        }));
        return listBody(data, total, request.query);
      },
    );
  };
}
