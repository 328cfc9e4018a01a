import { Migrator, sql, type Migration, type MigrationResultSet } from 'kysely';
import type { Db } from './connect.js';
import * as core from './migrations/0001_core.js';
import * as ingest from './migrations/0002_ingest.js';

/**
 * Migrations are listed here in order; each module exports `up(dialect)` / `down(dialect)` so
 * one definition serves SQLite and PostgreSQL. Append new ones, never edit an applied one.
 */
const MIGRATIONS = [
  ['0001_core', core],
  ['0002_ingest', ingest],
] as const;

export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  const migrations: Record<string, Migration> = {};
  for (const [name, module] of MIGRATIONS) {
    migrations[name] = { up: module.up(db.dialect), down: module.down() };
  }
  // Kysely looks for its bookkeeping tables in every schema unless told which one; on a shared
  // PostgreSQL (tests run each file in its own schema) it would find another schema's and skip
  // creating its own. Pin it to the connection's current schema.
  const schema =
    db.dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db.kysely)).rows[0]?.s
      : undefined;
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error instanceof Error ? result.error : new Error('migration failed');
  return result;
}
