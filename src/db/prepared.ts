import type SQLite from 'better-sqlite3';

const statements = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>();

/**
 * A statement prepared once per SQLite handle and SQL text, for writers that run one shape many
 * times on the driver's handle (the seeder's bulk batches, ingest's kill rows): preparing costs as
 * much as running, and Kysely would build and prepare the statement on every execution.
 */
export function preparedOn(handle: SQLite.Database, text: string): SQLite.Statement {
  let cache = statements.get(handle);
  if (!cache) statements.set(handle, (cache = new Map<string, SQLite.Statement>()));
  let statement = cache.get(text);
  if (!statement) {
    statement = handle.prepare(text);
    if (cache.size > 64) cache.clear();
    cache.set(text, statement);
  }
  return statement;
}
