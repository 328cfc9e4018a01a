import { sql } from 'kysely';
import type { Db } from '../../src/db/connect.js';

/**
 * Makes every insert and update of `table` fail until `restore()` runs: a failure forced inside a
 * real transaction, to prove that what the transaction wrote before (its events too) rolls back.
 */
export async function failWritesTo(db: Db, table: string): Promise<{ restore(): Promise<void> }> {
  const name = sql.id(`fail_writes_${table}`);
  const target = sql.id(table);
  if (db.dialect === 'sqlite') {
    for (const op of ['insert', 'update'])
      await sql`create trigger ${sql.id(`fail_writes_${table}_${op}`)} before ${sql.raw(op)} on ${target}
        begin select raise(abort, 'forced failure'); end`.execute(db.kysely);
    return {
      restore: async () => {
        for (const op of ['insert', 'update'])
          await sql`drop trigger ${sql.id(`fail_writes_${table}_${op}`)}`.execute(db.kysely);
      },
    };
  }
  await sql`create or replace function fail_writes() returns trigger language plpgsql as
    $$ begin raise exception 'forced failure'; end $$`.execute(db.kysely);
  await sql`create trigger ${name} before insert or update on ${target}
    for each row execute function fail_writes()`.execute(db.kysely);
  return {
    restore: async () => {
      await sql`drop trigger ${name} on ${target}`.execute(db.kysely);
    },
  };
}
