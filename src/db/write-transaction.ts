import { sql, type Kysely } from 'kysely';
import type { Db } from './connect.js';
import type { Database } from './types.js';

/**
 * A transaction that takes the write lock when it begins. On SQLite a plain (deferred) BEGIN
 * reads first and upgrades to a writer later; two processes doing that at once can only end with
 * SQLITE_BUSY for one of them, which busy_timeout does not wait out. BEGIN IMMEDIATE waits for
 * the lock up front, so read-check-write sequences (a balance check before a debit) are serial
 * across processes too. On PostgreSQL an ordinary transaction: its code locks the rows it checks
 * (SELECT ... FOR UPDATE).
 */
export async function writeTransaction<T>(db: Db, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  if (db.dialect === 'postgres') return db.kysely.transaction().execute(work);
  return db.kysely.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const result = await work(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (err) {
      // also after a failed COMMIT, which leaves the transaction open
      if (db.sqlite?.inTransaction !== false) await sql`rollback`.execute(conn);
      throw err;
    }
  });
}
