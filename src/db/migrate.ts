import { Migrator, type Migration, type MigrationResultSet } from 'kysely';
import type { Db } from './connect.js';
import * as core from './migrations/0001_core.js';
import * as portal from './migrations/0003_portal.js';

/**
 * Migrations are listed here in order; each module exports `up(dialect)` / `down(dialect)` so
 * one definition serves SQLite and PostgreSQL. Append new ones, never edit an applied one.
 */
const MIGRATIONS = [
  ['0001_core', core],
  ['0003_portal', portal],
] as const;

/**
 * `schema`: the PostgreSQL schema holding Kysely's migration tables. Pass it whenever the database
 * has several schemas: without it Kysely looks for its tables in every schema, so a fresh schema
 * next to a migrated one is taken as "already has migration tables" and migrating fails.
 */
export async function migrateToLatest(
  db: Db,
  options: { schema?: string } = {},
): Promise<MigrationResultSet> {
  const migrations: Record<string, Migration> = {};
  for (const [name, module] of MIGRATIONS) {
    migrations[name] = { up: module.up(db.dialect), down: module.down() };
  }
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    ...(options.schema ? { migrationTableSchema: options.schema } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error instanceof Error ? result.error : new Error('migration failed');
  return result;
}
