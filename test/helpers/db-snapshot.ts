import { sql } from 'kysely';
import type { TestDb } from './db.js';

/**
 * Every row of every table, as text: what a refused request must leave exactly as it was. Key usage
 * is left out: it counts every request by design (per key and hour), refused ones included.
 */
export async function snapshotTables(testDb: TestDb): Promise<Map<string, string>> {
  const kysely = testDb.db.kysely;
  // On PostgreSQL, the tables of this test's schema only, read from its catalog: Kysely's
  // introspection scans every schema and fails when another test file drops its own mid-scan.
  const schema = testDb.schema;
  const { rows: named } = await (
    schema === undefined
      ? sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`
      : sql<{ name: string }>`select table_name as name from information_schema.tables
            where table_schema = ${schema} and table_type = 'BASE TABLE'`
  ).execute(kysely);
  const tables = named.map((t) => t.name).sort();
  const out = new Map<string, string>();
  for (const table of tables.filter((t) => t !== 'key_usage' && !t.startsWith('kysely_'))) {
    const { rows } = await sql`select * from ${sql.table(table)}`.execute(kysely);
    out.set(table, JSON.stringify(rows));
  }
  return out;
}

/** The tables whose rows differ between two snapshots. */
export const changedTables = (before: Map<string, string>, after: Map<string, string>): string[] =>
  [...after].filter(([table, rows]) => before.get(table) !== rows).map(([table]) => table);
