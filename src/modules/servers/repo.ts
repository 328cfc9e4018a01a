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

export interface IngestServer {
  id: number;
  game: string;
  ip: string;
  token_hash: string;
}

export interface ServerRecord {
  id: number;
  name: string;
  game: string;
  ip: string;
  port: number;
  query_port: number | null;
  status: 'online' | 'offline';
  players: number;
  max_players: number;
  map: string;
  created_at: number;
  removed_at: number | null;
}

const RECORD = [
  'id',
  'name',
  'game',
  'ip',
  'port',
  'query_port',
  'status',
  'players',
  'max_players',
  'map',
  'created_at',
  'removed_at',
] as const;

/** Game servers: the public list, registration, token lookup and the poller's status updates. */
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

    async add(input: {
      name: string;
      game: string;
      ip: string;
      port: number;
      query_port: number | null;
      token_hash: string;
      created_at: number;
    }): Promise<ServerRecord> {
      return db
        .insertInto('game_servers')
        .values({ ...input, status: 'offline' })
        .returning(RECORD)
        .executeTakeFirstOrThrow();
    },

    list(includeRemoved = false): Promise<ServerRecord[]> {
      let q = db.selectFrom('game_servers').select(RECORD).orderBy('id');
      if (!includeRemoved) q = q.where('removed_at', 'is', null);
      return q.execute();
    },

    /** Removal revokes the token at once and hides the server from `/servers`; its kills stay. */
    async remove(id: number, now: number): Promise<boolean> {
      const result = await db
        .updateTable('game_servers')
        .set({ removed_at: now, status: 'offline', token_hash: null })
        .where('id', '=', id)
        .where('removed_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    listForPoll(): Promise<
      { id: number; game: string; ip: string; port: number; query_port: number | null }[]
    > {
      return (
        db
          .selectFrom('game_servers')
          .select(['id', 'game', 'ip', 'port', 'query_port'])
          .where('removed_at', 'is', null)
          // only servers an operator registered (with a token); seeded demo rows keep their status
          .where('token_hash', 'is not', null)
          .orderBy('id')
          .execute()
      );
    },

    async markOnline(id: number, info: { players: number; max_players: number; map: string }, now: number) {
      await db
        .updateTable('game_servers')
        .set({ ...info, map: info.map.slice(0, 64), status: 'online', poll_failures: 0, last_seen_at: now })
        .where('id', '=', id)
        .where('removed_at', 'is', null)
        .execute();
    },

    /** One more failed query; the server turns `offline` (0 players) after `offlineAfter` in a row. */
    async markFailure(id: number, offlineAfter: number) {
      await db
        .updateTable('game_servers')
        .set((eb) => ({
          poll_failures: eb('poll_failures', '+', 1),
          status: eb
            .case()
            .when('poll_failures', '>=', offlineAfter - 1)
            .then('offline' as const)
            .else(eb.ref('status'))
            .end(),
          players: eb
            .case()
            .when('poll_failures', '>=', offlineAfter - 1)
            .then(0)
            .else(eb.ref('players'))
            .end(),
        }))
        .where('id', '=', id)
        .execute();
    },

    /** The active server a token belongs to; one indexed lookup, so revocation applies at once. */
    async findByTokenHash(hash: string): Promise<IngestServer | undefined> {
      const row = await db
        .selectFrom('game_servers')
        .select(['id', 'game', 'ip', 'token_hash'])
        .where('token_hash', '=', hash)
        .where('removed_at', 'is', null)
        .executeTakeFirst();
      return row?.token_hash ? { ...row, token_hash: row.token_hash } : undefined;
    },
  };
}

export type ServersRepo = ReturnType<typeof serversRepo>;
