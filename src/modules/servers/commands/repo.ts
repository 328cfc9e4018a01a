import type { Insertable, Kysely, Selectable } from 'kysely';
import type { CommandChannel, Database, ServerCommandsTable } from '../../../db/types.js';
import { writeTransaction } from '../../../db/write-transaction.js';
import { emit } from '../../events/emit.js';
import { commandEvent, operatorsChangedEvents } from '../events.js';

/** What sending a command to a server needs to know about it. */
export interface CommandTarget {
  id: number;
  game: string;
  ip: string;
  port: number;
  owner_user_id: number | null;
  rcon_port: number | null;
  /** sealed; null: no RCON configured */
  rcon_password: string | null;
  /** `plugin`: commands go to the queue the server's plugin long-polls */
  command_channel: CommandChannel;
}

/** One audit entry as the routes list it (the server is the one asked for). */
export type AuditEntry = Omit<Selectable<ServerCommandsTable>, 'server_id'>;
export type NewAuditEntry = Insertable<ServerCommandsTable>;

const AUDIT = [
  'id',
  'user_id',
  'app_id',
  'command',
  'status',
  'output',
  'duration_ms',
  'created_at',
] as const;

/**
 * One entry of a server's command history and its `server.command_executed` event, in the caller's
 * transaction (the RCON path's own, or the plugin queue's that settles the command).
 */
export async function insertAudit(
  trx: Kysely<Database>,
  entry: NewAuditEntry,
  game: string,
): Promise<number> {
  const { id } = await trx
    .insertInto('server_commands')
    .values(entry)
    .returning('id')
    .executeTakeFirstOrThrow();
  await emit(trx, [commandEvent(entry, game, id)], entry.created_at);
  return id;
}

/**
 * `server.operators_changed` in the caller's transaction, after the grant or revocation: one event
 * for each who may read the server's operators now (its owner, its operators) and for the user
 * changed, so a revoked operator learns it too.
 */
async function tellOperatorsChanged(
  trx: Kysely<Database>,
  serverId: number,
  userId: number,
  change: 'granted' | 'revoked',
  now: number,
): Promise<void> {
  const server = await trx
    .selectFrom('game_servers')
    .select(['id', 'game'])
    .where('id', '=', serverId)
    .executeTakeFirstOrThrow();
  const readers = new Set([userId, ...(await serverCommandsRepo(trx).ownerAndOperators(serverId))]);
  const ordered = [...readers].sort((a, b) => a - b);
  await emit(trx, operatorsChangedEvents(server, userId, change, ordered), now);
}

/** Server owners, operators, RCON settings and the command audit. */
export function serverCommandsRepo(db: Kysely<Database>) {
  return {
    /** A registered server (removed ones aside) with its RCON settings. */
    findTarget(id: number): Promise<CommandTarget | undefined> {
      return db
        .selectFrom('game_servers')
        .select([
          'id',
          'game',
          'ip',
          'port',
          'owner_user_id',
          'rcon_port',
          'rcon_password',
          'command_channel',
        ])
        .where('id', '=', id)
        .where('removed_at', 'is', null)
        .executeTakeFirst();
    },

    async isOperator(serverId: number, userId: number): Promise<boolean> {
      const row = await db
        .selectFrom('server_operators')
        .select('user_id')
        .where('server_id', '=', serverId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The server's owner and the operators it granted (who may read its chat), ids ascending. */
    async ownerAndOperators(serverId: number): Promise<number[]> {
      const [owner, operators] = await Promise.all([
        db
          .selectFrom('game_servers')
          .select('owner_user_id')
          .where('id', '=', serverId)
          .where('removed_at', 'is', null)
          .executeTakeFirst(),
        db.selectFrom('server_operators').select('user_id').where('server_id', '=', serverId).execute(),
      ]);
      const ids = new Set(operators.map((o) => o.user_id));
      if (owner?.owner_user_id != null) ids.add(owner.owner_user_id);
      return [...ids].sort((a, b) => a - b);
    },

    /** Sets the owner and RCON settings of a registered server; false when there is none. */
    async setRcon(
      id: number,
      settings: { owner_user_id?: number; rcon_port?: number | null; rcon_password: string },
    ): Promise<boolean> {
      const result = await db
        .updateTable('game_servers')
        .set(settings)
        .where('id', '=', id)
        .where('removed_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** How commands reach the server from now on (and its owner, when given); false when there is no such registered server. */
    async setChannel(id: number, channel: CommandChannel, owner?: number): Promise<boolean> {
      const result = await db
        .updateTable('game_servers')
        .set({ command_channel: channel, ...(owner === undefined ? {} : { owner_user_id: owner }) })
        .where('id', '=', id)
        .where('removed_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /**
     * Grants a user the right to send commands, telling `server.operators_changed` in the same
     * transaction; false (and nothing told) when it was already granted.
     */
    grant(serverId: number, userId: number, now: number): Promise<boolean> {
      return writeTransaction(db, async (trx) => {
        const result = await trx
          .insertInto('server_operators')
          .values({ server_id: serverId, user_id: userId, granted_at: now })
          .onConflict((oc) => oc.columns(['server_id', 'user_id']).doNothing())
          .executeTakeFirst();
        const granted = (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
        if (granted) await tellOperatorsChanged(trx, serverId, userId, 'granted', now);
        return granted;
      });
    },

    /** Takes the right back, telling `server.operators_changed`; false (nothing told) when the user had none. */
    revoke(serverId: number, userId: number, now: number): Promise<boolean> {
      return writeTransaction(db, async (trx) => {
        const result = await trx
          .deleteFrom('server_operators')
          .where('server_id', '=', serverId)
          .where('user_id', '=', userId)
          .executeTakeFirst();
        const revoked = result.numDeletedRows > 0n;
        if (revoked) await tellOperatorsChanged(trx, serverId, userId, 'revoked', now);
        return revoked;
      });
    },

    operators(serverId: number): Promise<{ user_id: number; granted_at: number }[]> {
      return db
        .selectFrom('server_operators')
        .select(['user_id', 'granted_at'])
        .where('server_id', '=', serverId)
        .orderBy('user_id')
        .execute();
    },

    /** A server's owner (its `owner_user_id`, already read with the server) with their username. */
    ownerOf(ownerId: number): Promise<{ user_id: number; username: string } | undefined> {
      return db
        .selectFrom('users')
        .select(['id as user_id', 'username'])
        .where('id', '=', ownerId)
        .executeTakeFirst();
    },

    /**
     * A page of the operators granted on a server, by user id, with their usernames; the owner is
     * left out (a grant to the owner adds nothing, and the owner is listed on its own).
     */
    async operatorPage(
      serverId: number,
      ownerId: number | null,
      window: { limit: number; offset: number },
    ): Promise<{ rows: { user_id: number; username: string; granted_at: number }[]; total: number }> {
      let matching = db
        .selectFrom('server_operators as o')
        .innerJoin('users as u', 'u.id', 'o.user_id')
        .where('o.server_id', '=', serverId);
      if (ownerId !== null) matching = matching.where('o.user_id', '<>', ownerId);
      const [rows, count] = await Promise.all([
        window.limit === 0
          ? []
          : matching
              .select(['o.user_id', 'u.username', 'o.granted_at'])
              .orderBy('o.user_id')
              .limit(window.limit)
              .offset(window.offset)
              .execute(),
        matching.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },

    /** The key ids of every sealed RCON password, to check HUB_SECRET_KEY at start-up. */
    async sealedPasswords(): Promise<{ id: number; rcon_password: string }[]> {
      const rows = await db
        .selectFrom('game_servers')
        .select(['id', 'rcon_password'])
        .where('rcon_password', 'is not', null)
        .where('removed_at', 'is', null)
        .orderBy('id')
        .execute();
      return rows.flatMap((r) =>
        r.rcon_password === null ? [] : [{ id: r.id, rcon_password: r.rcon_password }],
      );
    },

    /** Writes one attempt to the history and tells its sender (server.command_executed), in one transaction. */
    async audit(entry: NewAuditEntry, game: string): Promise<number> {
      return writeTransaction(db, (trx) => insertAudit(trx, entry, game));
    },

    /**
     * One page of a server's audit, newest first, with the count of all; only `userId`'s own
     * entries when given (index `server_commands_server_user`), else every entry.
     */
    async auditPage(
      serverId: number,
      userId: number | undefined,
      window: { limit: number; offset: number },
    ): Promise<{ rows: AuditEntry[]; total: number }> {
      let matching = db.selectFrom('server_commands').where('server_id', '=', serverId);
      if (userId !== undefined) matching = matching.where('user_id', '=', userId);
      const [rows, count] = await Promise.all([
        matching.select(AUDIT).orderBy('id', 'desc').limit(window.limit).offset(window.offset).execute(),
        matching.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },
  };
}

export type ServerCommandsRepo = ReturnType<typeof serverCommandsRepo>;
