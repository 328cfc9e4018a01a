import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';

export const DEPLOYMENT_ID_KEY = 'deployment_id';

/**
 * A random id for this database, made once. Shared stores (Redis) prefix their keys with it, so two
 * deployments on one Redis never read each other's counters: key and account ids are per database.
 */
export function up() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await (db as Kysely<{ meta: { key: string; value: string } }>)
      .insertInto('meta')
      .values({ key: DEPLOYMENT_ID_KEY, value: randomBytes(8).toString('hex') })
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await (db as Kysely<{ meta: { key: string; value: string } }>)
      .deleteFrom('meta')
      .where('key', '=', DEPLOYMENT_ID_KEY)
      .execute();
  };
}
