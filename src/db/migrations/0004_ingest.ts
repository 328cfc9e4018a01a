import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';
import { withId } from './helpers.js';

/**
 * The data path: ingest tokens on game servers, client-id dedupe, per-player counters for
 * achievements, XP and level-up audit rows, per-server log-stream state, poller bookkeeping.
 */
export function up(dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    // SQLite cannot add a UNIQUE column, so uniqueness of the token hash is a separate index.
    await db.schema.alterTable('game_servers').addColumn('token_hash', 'varchar(64)').execute();
    await db.schema.alterTable('game_servers').addColumn('removed_at', 'bigint').execute();
    await db.schema
      .alterTable('game_servers')
      .addColumn('poll_failures', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('game_servers').addColumn('last_seen_at', 'bigint').execute();
    await db.schema
      .createIndex('game_servers_token')
      .on('game_servers')
      .column('token_hash')
      .unique()
      .execute();

    await db.schema
      .createTable('ingest_events')
      .addColumn('server_id', 'integer', (c) => c.notNull())
      .addColumn('client_id', 'varchar(128)', (c) => c.notNull())
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('ingest_events_pk', ['server_id', 'client_id'])
      .execute();

    await db.schema
      .createTable('ingest_state')
      .addColumn('server_id', 'integer', (c) => c.primaryKey())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('player_counters')
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('counter', 'varchar(32)', (c) => c.notNull())
      .addColumn('value', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('player_counters_pk', ['user_id', 'counter'])
      .execute();

    await withId(db.schema.createTable('xp_events'), dialect, true)
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('reason', 'varchar(32)', (c) => c.notNull())
      .addColumn('amount', 'integer', (c) => c.notNull())
      .addColumn('occurred_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('xp_events_user')
      .on('xp_events')
      .columns(['user_id', 'occurred_at'])
      .execute();

    await withId(db.schema.createTable('level_ups'), dialect, true)
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('from_level', 'integer', (c) => c.notNull())
      .addColumn('to_level', 'integer', (c) => c.notNull())
      .addColumn('occurred_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('level_ups_user')
      .on('level_ups')
      .columns(['user_id', 'occurred_at'])
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    for (const table of ['level_ups', 'xp_events', 'player_counters', 'ingest_state', 'ingest_events']) {
      await db.schema.dropTable(table).ifExists().execute();
    }
    await db.schema.dropIndex('game_servers_token').ifExists().execute();
    for (const column of ['last_seen_at', 'poll_failures', 'removed_at', 'token_hash']) {
      await db.schema.alterTable('game_servers').dropColumn(column).execute();
    }
  };
}
