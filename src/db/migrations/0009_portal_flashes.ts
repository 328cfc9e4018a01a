import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';

/**
 * Portal forms answer with a redirect (post/redirect/get); what the next page must show once (a new
 * key's secret, an error) waits here, encrypted, for a few minutes at most.
 */
export function up(_dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createTable('portal_flashes')
      .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
      .addColumn('owner_hash', 'char(64)', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    // Expired rows are swept by time across all owners.
    await db.schema.createIndex('portal_flashes_expires').on('portal_flashes').column('expires_at').execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('portal_flashes').ifExists().execute();
  };
}
