import type { Kysely } from 'kysely';
import { DEPLOYMENT_ID_KEY } from './migrations/0007_deployment_id.js';
import type { Database } from './types.js';

/** The random id migration 0007 gave this database (see there for why it exists). */
export async function readDeploymentId(db: Kysely<Database>): Promise<string> {
  const row = await db
    .selectFrom('meta')
    .select('value')
    .where('key', '=', DEPLOYMENT_ID_KEY)
    .executeTakeFirst();
  if (!row) throw new Error('the database has no deployment id: run `hub migrate`');
  return row.value;
}
