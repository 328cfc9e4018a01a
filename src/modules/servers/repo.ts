import type { Kysely } from 'kysely';
import type { CommandChannel, Database } from '../../db/types.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { eventOf } from '../events/define.js';
import { emit } from '../events/emit.js';
import { pollEvents, serverRef, SERVER_ADDED, SERVER_REGION_CHANGED, SERVER_REMOVED } from './events.js';
import type { Region } from './regions.js';
import { hourOf } from './uptime.js';

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
  /** false: the previous token, accepted during a rotation's overlap */
  current: boolean;
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
  region: string;
  owner_user_id: number | null;
  rcon_port: number | null;
  command_channel: CommandChannel;
}

/** A server as the preview surface shows it: the live state the poller keeps. */
export interface LiveServerRow {
  id: number;
  name: string;
  game: string;
  status: 'online' | 'offline';
  players: number;
  max_players: number;
  map: string;
  region: string;
  last_seen_at: number | null;
  last_latency_ms: number | null;
}

/** Polls of one server since some hour: how many, how many answered. */
export interface PollTally {
  ok: number;
  total: number;
}

const LIVE = [
  'id',
  'name',
  'game',
  'status',
  'players',
  'max_players',
  'map',
  'region',
  'last_seen_at',
  'last_latency_ms',
] as const;

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
  'region',
  'owner_user_id',
  'rcon_port',
  'command_channel',
] as const;

/** What a status query or a heartbeat reports of a server. */
type ServerStatusInfo = { players: number; max_players: number; map: string };

/**
 * Marks a (not removed) server online with what was reported, and tells what changed (status, map,
 * players) in the same transaction; `extra` is what the source adds (a poll's latency, a heartbeat's time).
 */
async function setOnline(
  trx: Kysely<Database>,
  id: number,
  info: ServerStatusInfo,
  now: number,
  extra: { last_latency_ms: number | null } | { heartbeat_at: number },
): Promise<void> {
  const before = await trx
    .selectFrom('game_servers')
    .select(['id', 'game', 'status', 'map', 'players', 'max_players'])
    .where('id', '=', id)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  if (!before) return;
  const after = { ...info, map: info.map.slice(0, 64), status: 'online' as const };
  await trx
    .updateTable('game_servers')
    .set({ ...after, poll_failures: 0, last_seen_at: now, ...extra })
    .where('id', '=', id)
    .execute();
  await emit(trx, pollEvents(before, after), now);
}

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
      region?: Region;
      owner_user_id?: number | null;
      rcon_port?: number | null;
      /** sealed (src/modules/servers/commands/rcon-password.ts) */
      rcon_password?: string | null;
      command_channel?: CommandChannel;
    }): Promise<ServerRecord> {
      return writeTransaction(db, async (trx) => {
        const record = await trx
          .insertInto('game_servers')
          .values({ ...input, status: 'offline' })
          .returning(RECORD)
          .executeTakeFirstOrThrow();
        const { name, region } = record;
        await emit(
          trx,
          [eventOf(SERVER_ADDED, { ...serverRef(record), name, region: region as Region })],
          input.created_at,
        );
        return record;
      });
    },

    list(includeRemoved = false): Promise<ServerRecord[]> {
      let q = db.selectFrom('game_servers').select(RECORD).orderBy('id');
      if (!includeRemoved) q = q.where('removed_at', 'is', null);
      return q.execute();
    },

    /** Removal revokes the token at once and hides the server from `/servers`; its kills stay. */
    async remove(id: number, now: number): Promise<boolean> {
      return writeTransaction(db, async (trx) => {
        const row = await trx
          .updateTable('game_servers')
          .set({ removed_at: now, status: 'offline', token_hash: null, previous_token_hash: null })
          .where('id', '=', id)
          .where('removed_at', 'is', null)
          .returning(['id', 'game'])
          .executeTakeFirst();
        if (row) await emit(trx, [eventOf(SERVER_REMOVED, serverRef(row))], now);
        return row !== undefined;
      });
    },

    listForPoll(): Promise<
      {
        id: number;
        game: string;
        ip: string;
        port: number;
        query_port: number | null;
        heartbeat_at: number | null;
      }[]
    > {
      return (
        db
          .selectFrom('game_servers')
          .select(['id', 'game', 'ip', 'port', 'query_port', 'heartbeat_at'])
          .where('removed_at', 'is', null)
          // only servers an operator registered (with a token); seeded demo rows keep their status
          .where('token_hash', 'is not', null)
          .orderBy('id')
          .execute()
      );
    },

    /**
     * A new ingest token for a registered server: the old one stops working at once. The demo
     * server (modules/demo-server) takes a fresh one at every start, since only hashes are kept.
     */
    async replaceToken(id: number, tokenHash: string): Promise<boolean> {
      return writeTransaction(db, async (trx) => {
        const row = await trx
          .updateTable('game_servers')
          .set({ token_hash: tokenHash, previous_token_hash: null, previous_token_until: null })
          .where('id', '=', id)
          .where('removed_at', 'is', null)
          .returning('id')
          .executeTakeFirst();
        return row !== undefined;
      });
    },

    /** The operator moves a registered server to another region. */
    async setRegion(id: number, region: Region, now = Date.now()): Promise<boolean> {
      return writeTransaction(db, async (trx) => {
        const row = await trx
          .updateTable('game_servers')
          .set({ region })
          .where('id', '=', id)
          .where('removed_at', 'is', null)
          .returning(['id', 'game'])
          .executeTakeFirst();
        if (row) await emit(trx, [eventOf(SERVER_REGION_CHANGED, { ...serverRef(row), region })], now);
        return row !== undefined;
      });
    },

    /**
     * One page of the registered servers (removed ones aside) by id, with the count of all that
     * match. A filter on status or game reads index `game_servers_status`.
     */
    async livePage(
      filter: {
        game?: string | undefined;
        status?: 'online' | 'offline' | undefined;
        region?: string | undefined;
      },
      window: { limit: number; offset: number },
    ): Promise<{ rows: LiveServerRow[]; total: number }> {
      let matching = db.selectFrom('game_servers').where('removed_at', 'is', null);
      if (filter.status !== undefined) matching = matching.where('status', '=', filter.status);
      if (filter.game !== undefined) matching = matching.where('game', '=', filter.game);
      if (filter.region !== undefined) matching = matching.where('region', '=', filter.region);
      const [rows, count] = await Promise.all([
        matching.select(LIVE).orderBy('id').limit(window.limit).offset(window.offset).execute(),
        matching.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },

    /** A registered server's live state; undefined when unknown or removed. */
    findLive(id: number): Promise<LiveServerRow | undefined> {
      return db
        .selectFrom('game_servers')
        .select(LIVE)
        .where('id', '=', id)
        .where('removed_at', 'is', null)
        .executeTakeFirst();
    },

    /** Polls of each server in `ids` from the hour `since` on (a primary-key range per server). */
    async pollTallies(ids: readonly number[], since: number): Promise<Map<number, PollTally>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom('server_polls')
        .select((eb) => [
          'server_id',
          eb.fn.sum<number>('ok').as('ok'),
          eb.fn.sum<number>('total').as('total'),
        ])
        .where('server_id', 'in', ids)
        .where('hour', '>=', since)
        .groupBy('server_id')
        .execute();
      return new Map(rows.map((r) => [r.server_id, { ok: r.ok, total: r.total }]));
    },

    /** Counts one poll of a server in its UTC hour's row. */
    async recordPoll(id: number, hour: number, answered: boolean): Promise<void> {
      const ok = answered ? 1 : 0;
      await db
        .insertInto('server_polls')
        .values({ server_id: id, hour, ok, total: 1 })
        .onConflict((oc) =>
          oc.columns(['server_id', 'hour']).doUpdateSet((eb) => ({
            ok: eb('server_polls.ok', '+', ok),
            total: eb('server_polls.total', '+', 1),
          })),
        )
        .execute();
    },

    /** Drops poll history older than `before` (epoch ms of an hour); returns how many rows went. */
    async sweepPolls(before: number): Promise<number> {
      const result = await db.deleteFrom('server_polls').where('hour', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /**
     * An answered poll, counted in the poll history; what it changed (status, map, players) is told
     * in the same transaction.
     */
    async markOnline(id: number, info: ServerStatusInfo, now: number, latencyMs: number | null = null) {
      await writeTransaction(db, async (trx) => {
        await serversRepo(trx).recordPoll(id, hourOf(now), true);
        await setOnline(trx, id, info, now, { last_latency_ms: latencyMs });
      });
    },

    /**
     * One more failed query, counted in the poll history; the server turns `offline` (0 players)
     * after `offlineAfter` in a row.
     */
    async markFailure(id: number, offlineAfter: number, now = Date.now()) {
      await writeTransaction(db, async (trx) => {
        await serversRepo(trx).recordPoll(id, hourOf(now), false);
        const before = await trx
          .selectFrom('game_servers')
          .select(['id', 'game', 'status', 'map', 'players', 'max_players'])
          .where('id', '=', id)
          .executeTakeFirst();
        const after = await trx
          .updateTable('game_servers')
          .set((eb) => ({
            poll_failures: eb('poll_failures', '+', 1),
            // the latency reported is the last poll's: none when it went unanswered
            last_latency_ms: null,
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
          .returning(['status', 'map', 'players', 'max_players'])
          .executeTakeFirst();
        if (before && after) await emit(trx, pollEvents(before, after), now);
      });
    },

    /**
     * The active server a token belongs to: its current token, or the one a rotation replaced while
     * the overlap lasts (`now` before `previous_token_until`). Indexed lookups on every call, so a
     * revocation or the end of an overlap applies at once.
     */
    async findByTokenHash(hash: string, now = Date.now()): Promise<IngestServer | undefined> {
      const current = await db
        .selectFrom('game_servers')
        .select(['id', 'game', 'ip', 'token_hash'])
        .where('token_hash', '=', hash)
        .where('removed_at', 'is', null)
        .executeTakeFirst();
      if (current?.token_hash) return { ...current, token_hash: current.token_hash, current: true };
      const previous = await db
        .selectFrom('game_servers')
        .select(['id', 'game', 'ip', 'previous_token_hash'])
        .where('previous_token_hash', '=', hash)
        .where('previous_token_until', '>', now)
        .where('removed_at', 'is', null)
        .where('token_hash', 'is not', null)
        .executeTakeFirst();
      return previous?.previous_token_hash
        ? {
            id: previous.id,
            game: previous.game,
            ip: previous.ip,
            token_hash: previous.previous_token_hash,
            current: false,
          }
        : undefined;
    },

    /**
     * A new ingest token with an overlap: the current one stays accepted until `until` (a rotation
     * made during an overlap ends the older token's at once: only one previous token is kept).
     * `expectedHash`: rotate only if this is still the current token (the plugin's own rotation);
     * false when the server is unknown, removed, or its token changed meanwhile.
     */
    async rotateToken(id: number, tokenHash: string, until: number, expectedHash?: string): Promise<boolean> {
      let q = db
        .updateTable('game_servers')
        .set((eb) => ({
          previous_token_hash: eb.ref('token_hash'),
          previous_token_until: until,
          token_hash: tokenHash,
        }))
        .where('id', '=', id)
        .where('removed_at', 'is', null)
        .where('token_hash', 'is not', null);
      if (expectedHash !== undefined) q = q.where('token_hash', '=', expectedHash);
      const result = await q.executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /**
     * A plugin's heartbeat: the server is online with what it reports, whether or not a status query
     * reaches it; what changed (status, map, players) is told in the same transaction.
     */
    async heartbeat(id: number, info: ServerStatusInfo, now: number) {
      await writeTransaction(db, (trx) => setOnline(trx, id, info, now, { heartbeat_at: now }));
    },

    /**
     * Servers fed by heartbeats that went silent: online, a heartbeat once, and no sign of life
     * (heartbeat or answered query) since `cutoff` turn offline with 0 players, each told once
     * (the update's condition makes a second worker's sweep a no-op). Returns how many.
     */
    async expireSilent(cutoff: number, now: number): Promise<number> {
      return writeTransaction(db, async (trx) => {
        const rows = await trx
          .updateTable('game_servers')
          .set({ status: 'offline', players: 0 })
          .where('status', '=', 'online')
          .where('heartbeat_at', 'is not', null)
          .where('last_seen_at', '<', cutoff)
          .where('removed_at', 'is', null)
          .returning(['id', 'game', 'map', 'max_players'])
          .execute();
        await emit(
          trx,
          rows.flatMap((r) =>
            pollEvents({ ...r, status: 'online', players: 0 }, { ...r, status: 'offline', players: 0 }),
          ),
          now,
        );
        return rows.length;
      });
    },
  };
}

export type ServersRepo = ReturnType<typeof serversRepo>;
