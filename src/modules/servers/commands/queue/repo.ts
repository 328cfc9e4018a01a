import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { Database, PluginCommandsTable, PluginCommandStatus } from '../../../../db/types.js';
import { writeTransaction } from '../../../../db/write-transaction.js';
import { emit } from '../../../events/emit.js';
import { commandCompletedEvent } from '../../events.js';
import { insertAudit } from '../repo.js';

export type QueuedCommand = Selectable<PluginCommandsTable>;

/** The statuses a command can still leave; the others are final. */
export const OPEN_STATUSES = ['pending', 'delivered'] as const satisfies readonly PluginCommandStatus[];
export const isFinal = (status: PluginCommandStatus): boolean =>
  status !== 'pending' && status !== 'delivered';

/** The audit keeps the start of each answer (as for RCON); the queue row keeps all of it. */
const AUDIT_OUTPUT_CHARS = 2000;

/** What the history says of an expired command, which has no output. */
export const EXPIRED_NOTE = 'the server\u2019s plugin did not acknowledge the command before it expired';

export interface PluginResult {
  status: 'ok' | 'error';
  output: string;
  duration_ms: number | undefined;
}

/**
 * The audit entry and the events of a command that reached its final status, in the transaction
 * that set it: whatever the status, the history and `server.command_completed` tell it once.
 */
async function settle(trx: Kysely<Database>, row: QueuedCommand, game: string, now: number): Promise<void> {
  const output = row.output ?? '';
  const durationMs = row.duration_ms ?? Math.max(0, now - row.issued_at);
  const audited = row.status === 'expired' ? EXPIRED_NOTE : output;
  await insertAudit(
    trx,
    {
      server_id: row.server_id,
      user_id: row.user_id,
      app_id: row.app_id,
      command: row.command,
      status: row.status === 'ok' ? 'ok' : row.status === 'expired' ? 'expired' : 'error',
      output: audited.slice(0, AUDIT_OUTPUT_CHARS),
      duration_ms: durationMs,
      created_at: row.issued_at,
    },
    game,
  );
  await emit(trx, [commandCompletedEvent(row, game, output.slice(0, AUDIT_OUTPUT_CHARS), durationMs)], now);
}

/** The command queue of plugin-channel servers (issue 26): issue, deliver, settle, expire. */
export function pluginQueueRepo(db: Kysely<Database>) {
  return {
    async enqueue(row: {
      server_id: number;
      user_id: number;
      app_id: number | null;
      command: string;
      issued_at: number;
      expires_at: number;
    }): Promise<QueuedCommand> {
      return db
        .insertInto('plugin_commands')
        .values({ ...row, status: 'pending' })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** One command of one server: another server's id is as unknown as a missing one. */
    find(serverId: number, id: number): Promise<QueuedCommand | undefined> {
      return db
        .selectFrom('plugin_commands')
        .selectAll()
        .where('id', '=', id)
        .where('server_id', '=', serverId)
        .executeTakeFirst();
    },

    /**
     * Hands the server's plugin what it should run now, oldest first: commands never delivered, and
     * delivered ones unacknowledged since `redeliverBefore` (at least once), none past its expiry.
     * One conditional update: two long-polls of the same server (on two instances) never take the
     * same command in one round; the loser's update finds it delivered and skips it.
     */
    async claim(
      serverId: number,
      now: number,
      redeliverBefore: number,
      limit: number,
    ): Promise<QueuedCommand[]> {
      const due = (eb: ExpressionBuilder<Database, 'plugin_commands'>) =>
        eb.and([
          eb('server_id', '=', serverId),
          eb('expires_at', '>', now),
          eb.or([
            eb('status', '=', 'pending'),
            eb.and([eb('status', '=', 'delivered'), eb('delivered_at', '<=', redeliverBefore)]),
          ]),
        ]);
      const ids = await db
        .selectFrom('plugin_commands')
        .select('id')
        .where(due)
        .orderBy('id')
        .limit(limit)
        .execute();
      if (ids.length === 0) return [];
      const rows = await db
        .updateTable('plugin_commands')
        .set((eb) => ({ status: 'delivered', delivered_at: now, deliveries: eb('deliveries', '+', 1) }))
        .where(
          'id',
          'in',
          ids.map((r) => r.id),
        )
        .where(due)
        .returningAll()
        .execute();
      return rows.sort((a, b) => a.id - b.id);
    },

    /**
     * Records the plugin's result if the command is still open and not past its expiry; then audits
     * it and tells `server.command_completed`, all in one transaction. Undefined when it was not
     * recorded (already final, expired, or not this server's): the caller reads why.
     */
    async complete(
      serverId: number,
      game: string,
      id: number,
      result: PluginResult,
      now: number,
    ): Promise<QueuedCommand | undefined> {
      return writeTransaction(db, async (trx) => {
        const row = await trx
          .updateTable('plugin_commands')
          .set({
            status: result.status,
            output: result.output,
            duration_ms: result.duration_ms ?? null,
            completed_at: now,
          })
          .where('id', '=', id)
          .where('server_id', '=', serverId)
          .where('status', 'in', OPEN_STATUSES)
          .where('expires_at', '>', now)
          .returningAll()
          .executeTakeFirst();
        if (row) await settle(trx, row, game, now);
        return row;
      });
    },

    /**
     * Open commands past their expiry become `expired`, each audited and told once (the update's
     * condition makes a concurrent sweep skip what this one took); only `serverId`'s when given.
     */
    async expireDue(now: number, serverId?: number): Promise<QueuedCommand[]> {
      return writeTransaction(db, async (trx) => {
        let q = trx
          .updateTable('plugin_commands')
          .set({ status: 'expired', completed_at: now })
          .where('status', 'in', OPEN_STATUSES)
          .where('expires_at', '<=', now);
        if (serverId !== undefined) q = q.where('server_id', '=', serverId);
        const rows = await q.returningAll().execute();
        if (rows.length === 0) return rows;
        const games = await trx
          .selectFrom('game_servers')
          .select(['id', 'game'])
          .where('id', 'in', [...new Set(rows.map((r) => r.server_id))])
          .execute();
        const gameOf = new Map(games.map((g) => [g.id, g.game]));
        for (const row of rows.sort((a, b) => a.id - b.id))
          await settle(trx, row, gameOf.get(row.server_id) ?? 'cs2', now);
        return rows;
      });
    },
  };
}

export type PluginQueueRepo = ReturnType<typeof pluginQueueRepo>;
