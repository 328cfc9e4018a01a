import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';

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

/** Registration and token lookup of game servers (the operator side of `game_servers`). */
export function serversRepo(db: Kysely<Database>) {
  return {
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
