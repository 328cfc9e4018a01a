import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

export interface ServerRow {
  id: number;
  name: string;
  game: string;
  ip: string;
  port: number;
  status: string;
  players: number;
  max_players: number;
  map: string;
}

export function serversRepo(db: Kysely<Database>) {
  return {
    /** Online servers by id, optionally of one game (index `game_servers_status`: status, game, id). */
    listOnline(game?: string): Promise<ServerRow[]> {
      let query = db
        .selectFrom('game_servers')
        .select(['id', 'name', 'game', 'ip', 'port', 'status', 'players', 'max_players', 'map'])
        .where('status', '=', 'online');
      if (game !== undefined) query = query.where('game', '=', game);
      return query.orderBy('id').execute();
    },
  };
}

export type ServersRepo = ReturnType<typeof serversRepo>;
