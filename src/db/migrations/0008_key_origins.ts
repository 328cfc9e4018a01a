import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';

/**
 * The browser origins an API key may be used from (space-separated, as browsers send `Origin`);
 * null: any origin. Set by the key's owner in the portal.
 */
export function up(_dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('api_keys').addColumn('allowed_origins', 'text').execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('api_keys').dropColumn('allowed_origins').execute();
  };
}
