import { Migrator, type Migration, type MigrationResultSet } from 'kysely';
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
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: () => Promise.resolve(migrations) },
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error instanceof Error ? result.error : new Error('migration failed');
  return result;
}
