import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { connect, type Db, type Dialect } from '../../src/db/connect.js';
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
  const admin = connect(url, { poolSize: 1 });
  await sql`create schema ${sql.id(schema)}`.execute(admin.kysely);
  await admin.close();
  const db = connect(url, { schema, poolSize: 5 });
  await migrateToLatest(db, { schema });
  return {
    db,
    url,
    schema,
    drop: async () => {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(db.kysely);
      await db.close();
    },
  };
}
