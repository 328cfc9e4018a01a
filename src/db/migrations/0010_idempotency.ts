import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';

/**
 * Idempotency keys of state-changing /v1 requests: one row per (credential owner, key), holding
 * the request's fingerprint and, once answered, the response to replay for 24 hours. In the
 * database, so every API instance sees the same claims.
 */
export function up(_dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('owner', 'varchar(64)', (c) => c.notNull())
      .addColumn('key', 'varchar(255)', (c) => c.notNull())
      .addColumn('fingerprint', 'char(64)', (c) => c.notNull())
      // 'in_flight' while the first request runs; 'done' once its response is stored
      .addColumn('state', 'varchar(16)', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('content_type', 'varchar(128)')
      .addColumn('body', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      // an in-flight claim whose lease ran out (its process died) may be taken over
      .addColumn('lease_until', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['owner', 'key'])
      .execute();
    await db.schema
      .createIndex('idempotency_keys_expires')
      .on('idempotency_keys')
      .column('expires_at')
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('idempotency_keys').ifExists().execute();
  };
}
