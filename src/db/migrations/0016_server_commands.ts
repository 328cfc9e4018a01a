import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';
import { withId } from './helpers.js';

/**
 * Remote server commands (issue 14): a server's owner (a hub user), its RCON port (null: the game
 * port) and RCON password, sealed with AES-256-GCM under HUB_SECRET_KEY (src/engines/secret-box.ts;
 * the column never holds the plaintext); the users the owner granted the right to send commands;
 * and the audit of every command sent, whatever its result.
 */
export function up(dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .alterTable('game_servers')
      .addColumn('owner_user_id', 'integer', (c) => c.references('users.id'))
      .execute();
    await db.schema.alterTable('game_servers').addColumn('rcon_port', 'integer').execute();
    await db.schema.alterTable('game_servers').addColumn('rcon_password', 'text').execute();

    await db.schema
      .createTable('server_operators')
      .addColumn('server_id', 'integer', (c) => c.notNull().references('game_servers.id'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('granted_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('server_operators_pk', ['server_id', 'user_id'])
      .execute();

    await withId(db.schema.createTable('server_commands'), dialect, true)
      .addColumn('server_id', 'integer', (c) => c.notNull().references('game_servers.id'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
      // the OAuth app the user sent it through
      .addColumn('app_id', 'integer')
      .addColumn('command', 'varchar(512)', (c) => c.notNull())
      // ok | timeout | unreachable | auth_failed | error
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      // the first bytes of the output, or what went wrong
      .addColumn('output', 'text', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    // a server's audit, newest first; an operator's own entries of it
    await db.schema
      .createIndex('server_commands_server')
      .on('server_commands')
      .columns(['server_id', 'id desc'])
      .execute();
    await db.schema
      .createIndex('server_commands_server_user')
      .on('server_commands')
      .columns(['server_id', 'user_id', 'id desc'])
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('server_commands').ifExists().execute();
    await db.schema.dropTable('server_operators').ifExists().execute();
    for (const column of ['rcon_password', 'rcon_port', 'owner_user_id']) {
      await db.schema.alterTable('game_servers').dropColumn(column).execute();
    }
  };
}
