import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import { emitEvents, type NewEvent } from './outbox.js';

/**
 * `emitEvents` for callers that hold only a transaction, not the connection's dialect (most
 * repositories): PostgreSQL numbers parameters (`$1`), SQLite does not, which the query compiler
 * tells without a round trip.
 */
export const dialectOf = (db: Kysely<Database>) =>
  db.selectFrom('events').select('id').where('id', '=', 0).compile().sql.includes('$1')
    ? 'postgres'
    : 'sqlite';

/** Writes the events (built with `eventOf`) in the caller's transaction; emit last in it. */
export function emit(trx: Kysely<Database>, events: readonly NewEvent[], now: number): Promise<number[]> {
  return emitEvents(trx, dialectOf(trx), events, now);
}
