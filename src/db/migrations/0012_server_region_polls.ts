import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';

/**
 * The preview server record (issue 13): each server's region (set by the operator, `unassigned`
 * until then), the latency of its last status query, and a compact poll history: one row per server
 * and UTC hour counting the polls that hour and how many were answered, from which uptime over 24
 * hours and 30 days is computed. The poller sweeps rows older than the longest window it reports.
 */
export function up(_dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .alterTable('game_servers')
      .addColumn('region', 'varchar(32)', (c) => c.notNull().defaultTo('unassigned'))
      .execute();
    await db.schema.alterTable('game_servers').addColumn('last_latency_ms', 'integer').execute();
    await db.schema
      .createTable('server_polls')
      .addColumn('server_id', 'integer', (c) => c.notNull())
      // epoch ms of the start of the UTC hour
      .addColumn('hour', 'bigint', (c) => c.notNull())
      .addColumn('ok', 'integer', (c) => c.notNull())
      .addColumn('total', 'integer', (c) => c.notNull())
      // (server, hour): the uptime of a page of servers is a range read per server
      .addPrimaryKeyConstraint('server_polls_pk', ['server_id', 'hour'])
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('server_polls').ifExists().execute();
    for (const column of ['last_latency_ms', 'region']) {
      await db.schema.alterTable('game_servers').dropColumn(column).execute();
    }
  };
}
