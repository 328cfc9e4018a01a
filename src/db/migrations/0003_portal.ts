import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';

/**
 * Developer portal: hub accounts sign in (password hash on users), server-side sessions (only the
 * SHA-256 of the session id is stored) and hourly usage per key and status class.
 */
export function up(_dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('users').addColumn('password_hash', 'varchar(255)').execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id_hash', 'char(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('csrf_token', 'varchar(64)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
    await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();

    // One row per key, UTC hour and status class; the primary key serves the per-key chart query.
    await db.schema
      .createTable('key_usage')
      .addColumn('key_id', 'integer', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
      .addColumn('hour', 'bigint', (c) => c.notNull())
      .addColumn('class', 'varchar(8)', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('key_usage_pk', ['key_id', 'hour', 'class'])
      .execute();
    // Retention deletes by hour across all keys.
    await db.schema.createIndex('key_usage_hour').on('key_usage').column('hour').execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('key_usage').ifExists().execute();
    await db.schema.dropTable('sessions').ifExists().execute();
    await db.schema.alterTable('users').dropColumn('password_hash').execute();
  };
}
