import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import { sqliteReader, type SqliteReader } from './sqlite-reader.js';
import type { Database } from './types.js';
import { ImmediateSqliteDialect, SQLITE_BUSY_TIMEOUT_MS } from './write-transaction.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
  /**
   * SQLite only: the driver's handle, for bulk writes that reuse one prepared statement per shape
   * (db/prepared.ts): the seeder's loads, and ingest's kill rows inside the batch's write
   * transaction. Statements run on it bypass `reader.writerActive()`, so use it only inside a write
   * transaction whose Kysely statements call it (or when nothing is served).
   */
  sqlite?: SQLite.Database;
  /** SQLite file databases only: a second, read-only connection for the per-request hot path. */
  reader?: SqliteReader;
}

// int8 (counts, bigint ids, epoch millis) and numeric arrive as strings from pg; every value we
// store fits a double exactly, so parse them once, globally.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

/**
 * Kysely's SQLite driver prepares every statement on every execution, which costs several times
 * more than running it. Caching prepared statements by SQL text makes repeated queries (every API
 * read) cost what better-sqlite3 itself costs. The cache is bounded because multi-row inserts of
 * varying sizes produce many distinct statements.
 */
function withStatementCache(
  database: SQLite.Database,
  beforeStatement: () => void = () => undefined,
  max = 2000,
): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    // Kysely prepares on every execution, so this runs before every statement, commits included.
    prepare(sql: string) {
      beforeStatement();
      let statement = statements.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        if (statements.size >= max) {
          const oldest = statements.keys().next();
          if (!oldest.done) statements.delete(oldest.value);
        }
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

export interface ConnectOptions {
  /** PostgreSQL only: the schema to use (tests run each file in a fresh schema). */
  schema?: string;
  poolSize?: number;
  /** PostgreSQL only: a connection was lost (the pool replaces it; for the log) */
  onConnectionLost?: (err: Error) => void;
}

/** Opens `sqlite:<path>` or `postgres://…` and returns a typed Kysely instance. */
export function connect(url: string, options: ConnectOptions = {}): Db {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const database = new SQLite(file);
    const walMode = database.pragma('journal_mode = WAL', { simple: true }) === 'wal';
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    database.pragma('cache_size = -65536');
    if (file === ':memory:') {
      const kysely = new Kysely<Database>({
        dialect: new ImmediateSqliteDialect({ database: withStatementCache(database) }),
      });
      return { kysely, dialect: 'sqlite', close: () => kysely.destroy(), sqlite: database };
    }
    const reader = sqliteReader(file, walMode);
    const kysely = new Kysely<Database>({
      dialect: new ImmediateSqliteDialect({
        database: withStatementCache(database, () => reader.writerActive()),
      }),
    });
    const close = async () => {
      reader.close();
      await kysely.destroy();
    };
    return { kysely, dialect: 'sqlite', close, sqlite: database, reader };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // A connection the server or the network cuts emits 'error' on its client, idle (the pool
    // re-emits it) or checked out (nobody listens: pg-pool removes its listener on checkout).
    // Unheard, either is an uncaught exception that stops the whole process; the query that was
    // running fails to its caller anyway, and the pool replaces the connection.
    const lost = (err: Error) => options.onConnectionLost?.(err);
    pool.on('error', lost);
    pool.on('connect', (client) => client.on('error', lost));
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { kysely, dialect: 'postgres', close: () => kysely.destroy() };
  }
  throw new Error(`Unsupported DATABASE_URL: ${url.replace(/\/\/[^@]*@/, '//***@')}`);
}
