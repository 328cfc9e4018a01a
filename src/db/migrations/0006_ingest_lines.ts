import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';

/**
 * Fingerprints of applied log lines, per server, so a resent batch counts once (log lines carry no
 * id; see modules/ingest/line-dedupe.ts). Rows are dropped when their line's time leaves the ingest
 * window; a line that old is refused anyway.
 */
export function up(_dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createTable('ingest_lines')
      .addColumn('server_id', 'integer', (c) => c.notNull())
      .addColumn('fingerprint', 'char(22)', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('ingest_lines_pk', ['server_id', 'fingerprint'])
      .execute();
    await db.schema.createIndex('ingest_lines_at').on('ingest_lines').column('at').execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('ingest_lines').ifExists().execute();
  };
}
