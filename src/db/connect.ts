import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './types.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
  /** SQLite only: the driver's handle, for bulk loads that reuse one prepared statement per shape */
  sqlite?: SQLite.Database;
}

// int8 (counts, bigint ids, epoch millis) and numeric arrive as strings from pg; every value we
// store fits a double exactly, so parse them once, globally.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export interface ConnectOptions {
  /** PostgreSQL only: the schema to use (tests run each file in a fresh schema). */
  schema?: string;
  poolSize?: number;
}

/** Opens `sqlite:<path>` or `postgres://…` and returns a typed Kysely instance. */
export function connect(url: string, options: ConnectOptions = {}): Db {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const database = new SQLite(file);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    database.pragma('cache_size = -65536');
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    return { kysely, dialect: 'sqlite', close: () => kysely.destroy(), sqlite: database };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { kysely, dialect: 'postgres', close: () => kysely.destroy() };
  }
  throw new Error(`Unsupported DATABASE_URL: ${url.replace(/\/\/[^@]*@/, '//***@')}`);
}
