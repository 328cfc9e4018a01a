import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely, type MigrationResultSet } from 'kysely';
import { connect, type Db, type Dialect } from '../../src/db/connect.js';
import type { Database } from '../../src/db/types.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL is set. */
export function testDialects(): Dialect[] {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

export interface TestDb {
  db: Db;
  url: string;
  /** PostgreSQL schema the database lives in (search_path), if any */
  schema?: string;
  drop(): Promise<void>;
}

/** DATABASE_URL of a test database for a spawned CLI, its PostgreSQL schema carried in the connection options. */
export const databaseUrlOf = (testDb: Pick<TestDb, 'url' | 'schema'>): string =>
  testDb.schema
    ? `${testDb.url}${testDb.url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${testDb.schema}`)}`
    : testDb.url;

/** A fresh database migrated from zero: a temp SQLite file, or a fresh PostgreSQL schema. */
export async function openTestDb(dialect: Dialect): Promise<TestDb> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'hub-test-'));
    const url = `sqlite:${join(dir, 'hub.sqlite')}`;
    const db = connect(url);
    await migrateToLatest(db);
    return {
      db,
      url,
      drop: async () => {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const db = connect(url, { schema, poolSize: 5 });
  await withSchemaDdlLock(url, async (admin) => {
    await sql`create schema ${sql.id(schema)}`.execute(admin);
    await migrateToLatest(db, { schema });
  });
  return {
    db,
    url,
    schema,
    drop: async () => {
      await db.close();
      await withSchemaDdlLock(url, async (admin) => {
        await sql`drop schema ${sql.id(schema)} cascade`.execute(admin);
      });
    },
  };
}

/**
 * Test files run in parallel, each in its own schema. Kysely's migrator introspects the tables of
 * every schema, and a schema dropped by another file in the middle of that scan fails it with
 * "schema … does not exist"; so creating+migrating and dropping test schemas take turns.
 */
async function withSchemaDdlLock(
  url: string,
  work: (admin: Kysely<Database>) => Promise<void>,
): Promise<void> {
  const admin = connect(url, { poolSize: 1 });
  try {
    await admin.kysely.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(${SCHEMA_DDL_LOCK})`.execute(conn);
      try {
        await work(conn);
      } finally {
        await sql`select pg_advisory_unlock(${SCHEMA_DDL_LOCK})`.execute(conn);
      }
    });
  } finally {
    await admin.close();
  }
}

const SCHEMA_DDL_LOCK = 72_400_001;

/** Runs the migrations again on a test database (taking the DDL lock on PostgreSQL). */
export async function migrateAgain(testDb: TestDb): Promise<MigrationResultSet> {
  const { db, url, schema } = testDb;
  if (db.dialect === 'sqlite' || !schema) return migrateToLatest(db);
  let result: MigrationResultSet | undefined;
  await withSchemaDdlLock(url, async () => {
    result = await migrateToLatest(db, { schema });
  });
  if (!result) throw new Error('the migrations did not run');
  return result;
}

/**
 * Drops one table of a test database, to make the code under test fail inside the database. On
 * PostgreSQL it takes the schema DDL lock: another file's migrator scanning every schema would
 * otherwise fail on the table vanishing mid-scan.
 */
export async function dropTable(testDb: TestDb, table: string): Promise<void> {
  const { db, url, schema } = testDb;
  if (db.dialect === 'sqlite' || !schema) {
    await sql`drop table ${sql.id(table)}`.execute(db.kysely);
    return;
  }
  await withSchemaDdlLock(url, async (admin) => {
    await sql`drop table ${sql.id(schema, table)} cascade`.execute(admin);
  });
}
