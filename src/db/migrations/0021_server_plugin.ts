import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';
import { withId } from './helpers.js';

/**
 * Game servers reached through a plugin (issue 26): the channel commands take (`rcon`, or `plugin`:
 * a queue the server's plugin long-polls), the last heartbeat (a server behind NAT is online from
 * them), the previous ingest token still accepted during a rotation's overlap, and the command queue.
 */
export function up(dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .alterTable('game_servers')
      .addColumn('command_channel', 'varchar(8)', (c) => c.notNull().defaultTo('rcon'))
      .execute();
    await db.schema.alterTable('game_servers').addColumn('heartbeat_at', 'bigint').execute();
    await db.schema.alterTable('game_servers').addColumn('previous_token_hash', 'varchar(64)').execute();
    await db.schema.alterTable('game_servers').addColumn('previous_token_until', 'bigint').execute();
    // a token presented during a rotation's overlap is looked up by its hash like the current one
    await db.schema
      .createIndex('game_servers_previous_token')
      .on('game_servers')
      .column('previous_token_hash')
      .execute();

    await withId(db.schema.createTable('plugin_commands'), dialect, true)
      .addColumn('server_id', 'integer', (c) => c.notNull().references('game_servers.id'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('app_id', 'integer')
      .addColumn('command', 'varchar(512)', (c) => c.notNull())
      // pending | delivered | ok | error | expired
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      // the plugin's answer (up to 64 KiB); null until it answers
      .addColumn('output', 'text')
      .addColumn('duration_ms', 'integer')
      .addColumn('deliveries', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('issued_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      .addColumn('completed_at', 'bigint')
      .execute();
    // what a server's plugin takes next, oldest first
    await db.schema
      .createIndex('plugin_commands_server_status')
      .on('plugin_commands')
      .columns(['server_id', 'status', 'id'])
      .execute();
    // the expiry sweep: open commands past their time
    await db.schema
      .createIndex('plugin_commands_open_expiry')
      .on('plugin_commands')
      .columns(['status', 'expires_at'])
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('plugin_commands').ifExists().execute();
    await db.schema.dropIndex('game_servers_previous_token').ifExists().execute();
    for (const column of ['previous_token_until', 'previous_token_hash', 'heartbeat_at', 'command_channel']) {
      await db.schema.alterTable('game_servers').dropColumn(column).execute();
    }
  };
}
