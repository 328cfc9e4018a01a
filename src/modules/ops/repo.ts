import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

/** The database round trip of the readiness probe: one trivial statement. */
export function pingDatabase(db: Kysely<Database>): Promise<void> {
  return sql`select 1`.execute(db).then(() => undefined);
}
