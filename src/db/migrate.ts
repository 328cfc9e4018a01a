import { Migrator, sql, type Migration, type MigrationResultSet } from 'kysely';
import type { Db } from './connect.js';
import * as core from './migrations/0001_core.js';

/**
 * Migrations are listed here in order; each module exports `up(dialect)` / `down(dialect)` so
 * one definition serves SQLite and PostgreSQL. Append new ones, never edit an applied one.
 */
const MIGRATIONS = [['0001_core', core]] as const;

export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  const migrations: Record<string, Migration> = {};
  for (const [name, module] of MIGRATIONS) {
    migrations[name] = { up: module.up(db.dialect), down: module.down() };
  }
  // Kysely looks for its migration tables in every schema unless told which one: with another
  // schema holding them (parallel test schemas, another app) it would skip creating ours.
  const schema =
    db.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely)).rows[0]?.schema
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
