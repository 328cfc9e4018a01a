import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import { publicRead } from '../../http/public-route.js';
import { Envelope, GAMES, StringEnum } from '../../http/schemas.js';
import type { ServersRepo } from './repo.js';

export const GameServerSchema = Type.Object(
  {
    id: Type.Integer({ description: 'server ID', examples: [3] }),
    name: Type.String({ examples: ['Hub #1 | Competitive'] }),
    game: Type.String({ description: 'game code such as cs2, cs16, rust, minecraft', examples: ['cs2'] }),
    ip: Type.String({ description: 'server address', examples: ['203.0.113.10'] }),
    port: Type.Integer({ minimum: 1, maximum: 65535, examples: [27015] }),
    status: Type.String({ description: 'always `online` in this list', examples: ['online'] }),
    players: Type.Integer({ minimum: 0, description: 'current player count', examples: [14] }),
    max_players: Type.Integer({ minimum: 0, examples: [20] }),
    map: Type.String({ description: 'current map', examples: ['de_mirage'] }),
  },
  { $id: 'GameServer', title: 'GameServer' },
);

export const ServersQuery = Type.Object({
  game: Type.Optional(StringEnum(GAMES, { description: 'Only servers of this game.', examples: ['cs2'] })),
});

export const ServersResponse = Envelope('servers', Type.Array(Type.Ref('GameServer')), 'Online game servers');
export type ServersBody = { servers: Static<typeof GameServerSchema>[] };

export function serversRoutes(repo: ServersRepo) {
  return (app: App): void => {
    app.addSchema(GameServerSchema);

    app.get(
      '/servers',
      publicRead({
        operationId: 'servers_list',
        tag: 'Servers',
        summary: 'List online game servers',
        description:
          'Game servers that are currently online (offline servers are never listed), ordered by id. `game` filters by game code: one of cs2, cs16, rust, minecraft; any other value is rejected with 400.',
        querystring: ServersQuery,
        response: ServersResponse,
      }),
      async (request): Promise<ServersBody> => {
        const rows = await repo.listOnline(request.query.game);
        return {
          servers: rows.map((row) => ({
            id: row.id,
            name: row.name,
            game: row.game,
            ip: row.ip,
            port: row.port,
            status: row.status,
            players: row.players,
            max_players: row.max_players,
            map: row.map,
          })),
        };
      },
    );
  };
}
