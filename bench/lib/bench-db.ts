import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { connect, type Db } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export interface FreshBenchDb {
  db: Db;
  /** `SQLite` or `PostgreSQL`, for the bench's output */
  label: string;
  /** closes the database and deletes it (the temp file, or the schema) */
  drop: () => Promise<void>;
}

/**
 * An empty database migrated from zero for one bench run: a temp SQLite file when `url` is unset,
 * else a schema of its own (`<prefix>_<pid>`) on that PostgreSQL server, dropped afterwards.
 */
export async function freshBenchDb(url: string | undefined, prefix = 'bench'): Promise<FreshBenchDb> {
  if (!url) {
    const dir = mkdtempSync(join(tmpdir(), 'hub-bench-'));
    const db = connect(`sqlite:${join(dir, 'bench.sqlite')}`);
    await migrateToLatest(db);
    return {
      db,
      label: 'SQLite',
      drop: async () => (await db.close(), rmSync(dir, { recursive: true, force: true })),
    };
  }
  const schema = `${prefix}_${process.pid}`;
  const admin = connect(url, { poolSize: 1 });
  await sql`create schema ${sql.id(schema)}`.execute(admin.kysely);
  await admin.close();
  const db = connect(url, { schema, poolSize: 10 });
  await migrateToLatest(db);
  return {
    db,
    label: 'PostgreSQL',
    drop: async () => {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(db.kysely);
      await db.close();
    },
  };
}
