import { DEFAULT_MIGRATION_TABLE, Migrator, sql, type Migration, type MigrationResultSet } from 'kysely';
import type { Db } from './connect.js';
import * as core from './migrations/0001_core.js';
import * as killboardIndexes from './migrations/0002_killboard_indexes.js';
import * as portal from './migrations/0003_portal.js';
import * as ingest from './migrations/0004_ingest.js';
import * as deploymentId from './migrations/0007_deployment_id.js';
import * as portalFlashes from './migrations/0009_portal_flashes.js';
import * as idempotency from './migrations/0010_idempotency.js';
import * as ingestLines from './migrations/0006_ingest_lines.js';
import * as oauth from './migrations/0011_oauth.js';
import * as clans from './migrations/0013_clans.js';
import * as economy from './migrations/0014_economy.js';
import * as events from './migrations/0015_events.js';
import * as webhooks from './migrations/0017_webhooks.js';
import * as keyOrigins from './migrations/0008_key_origins.js';
import * as serverRegionPolls from './migrations/0012_server_region_polls.js';
import * as serverCommands from './migrations/0016_server_commands.js';
import * as deathTotals from './migrations/0018_death_totals.js';
import * as webhookDeliveryAge from './migrations/0019_webhook_delivery_age.js';
import * as economyEntryMovement from './migrations/0020_economy_entry_movement.js';
import * as serverPlugin from './migrations/0021_server_plugin.js';
import * as identityLinks from './migrations/0022_identity_links.js';

/**
 * Migrations are listed here in order; each module exports `up(dialect)` / `down(dialect)` so
 * one definition serves SQLite and PostgreSQL. Append new ones, never edit an applied one.
 */
const MIGRATIONS = [
  ['0001_core', core],
  ['0002_killboard_indexes', killboardIndexes],
  ['0003_portal', portal],
  ['0004_ingest', ingest],
  ['0007_deployment_id', deploymentId],
  ['0009_portal_flashes', portalFlashes],
  ['0010_idempotency', idempotency],
  ['0006_ingest_lines', ingestLines],
  ['0011_oauth', oauth],
  ['0013_clans', clans],
  ['0014_economy', economy],
  ['0015_events', events],
  ['0008_key_origins', keyOrigins],
  ['0012_server_region_polls', serverRegionPolls],
  ['0016_server_commands', serverCommands],
  ['0017_webhooks', webhooks],
  ['0018_death_totals', deathTotals],
  ['0019_webhook_delivery_age', webhookDeliveryAge],
  ['0020_economy_entry_movement', economyEntryMovement],
  ['0021_server_plugin', serverPlugin],
  ['0022_identity_links', identityLinks],
] as const;

/**
 * `schema`: the PostgreSQL schema holding Kysely's migration tables; by default the connection's
 * current schema. Kysely looks for its bookkeeping tables in every schema unless told which one;
 * with another schema in the same database already migrated (parallel test schemas, a staging copy)
 * it would skip creating them here and fail.
 */
export async function migrateToLatest(
  db: Db,
  options: { schema?: string } = {},
): Promise<MigrationResultSet> {
  const schema = db.dialect === 'postgres' ? (options.schema ?? (await currentSchema(db))) : undefined;
  if (await upToDate(db, schema)) return { results: [] };
  const migrations: Record<string, Migration> = {};
  for (const [name, module] of MIGRATIONS) {
    migrations[name] = { up: module.up(db.dialect), down: module.down() };
  }
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    // Features land in parallel with numbers reserved up front, so a database migrated before a
    // lower-numbered migration landed must still take it (each migration touches its own tables).
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error instanceof Error ? result.error : new Error('migration failed');
  return result;
}

/**
 * Whether every migration is already recorded, read from this schema's migration table alone.
 * Every command of the CLI migrates on start, and Kysely's migrator begins by introspecting the
 * columns of every table in every schema of the database, looking schemas up by name; a schema
 * another process drops during that scan fails it with "schema … does not exist" (seen as
 * `hub economy grant` exiting 1 while parallel test files dropped their schemas). An up-to-date
 * database, the usual case, now never runs that scan, and costs two small queries.
 */
async function upToDate(db: Db, schema: string | undefined): Promise<boolean> {
  const table = schema ? `${schema}.${DEFAULT_MIGRATION_TABLE}` : DEFAULT_MIGRATION_TABLE;
  const present =
    db.dialect === 'postgres'
      ? sql<{
          found: string | null;
        }>`select to_regclass(quote_ident(${schema}) || '.' || quote_ident(${DEFAULT_MIGRATION_TABLE}))::text as found`
      : sql<{
          found: string | null;
        }>`select name as found from sqlite_master where type = 'table' and name = ${DEFAULT_MIGRATION_TABLE}`;
  const { rows } = await present.execute(db.kysely);
  if (!rows[0]?.found) return false;
  const applied = await sql<{ name: string }>`select name from ${sql.table(table)}`.execute(db.kysely);
  const names = new Set(applied.rows.map((r) => r.name));
  return MIGRATIONS.every(([name]) => names.has(name));
}

async function currentSchema(db: Db): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema: check search_path');
  return schema;
}
