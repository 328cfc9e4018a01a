import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type Kysely,
  type SqliteDialectConfig,
  type Transaction,
} from 'kysely';
import type { Database } from './types.js';

/**
 * Every write transaction of the service goes through `writeTransaction`.
 *
 * SQLite: a plain `BEGIN` is DEFERRED. A transaction that reads first and writes later takes a
 * read snapshot, and when another process (`hub serve` beside `hub worker`) commits in between,
 * its first write fails at once with SQLITE_BUSY: the busy timeout is not even consulted, because
 * waiting could never help a stale snapshot. So on SQLite every transaction begins IMMEDIATE (the
 * write lock is taken up front, waiting up to the connection's busy timeout), and a `BEGIN` that
 * still finds the lock held is retried here, asynchronously, for up to `WAIT_MS`. Retrying is safe:
 * nothing of the transaction has run yet. Kysely issues plain `begin`, hence the dialect below.
 *
 * PostgreSQL: a plain transaction; writers lock the rows they change (see the repos).
 */
export const WRITE_LOCK_WAIT_MS = 60_000;

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** Kysely's SQLite dialect whose transactions (the migrator's included) begin IMMEDIATE. */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/** The write lock was still held by another process after `WRITE_LOCK_WAIT_MS`: try again later. */
export class DatabaseBusyError extends Error {
  /** Read by the HTTP error handler: 503 service_unavailable. */
  readonly statusCode = 503;
  constructor(cause: unknown) {
    super('the database stayed locked by another process', { cause });
    this.name = 'DatabaseBusyError';
  }
}

const isBusy = (err: unknown): boolean =>
  err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('SQLITE_BUSY');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn` in one write transaction: all of it commits or none of it does. On SQLite the write
 * lock is held from the first statement, so a read inside `fn` stays true until the commit.
 */
export async function writeTransaction<T>(
  db: Kysely<Database>,
  fn: (trx: Transaction<Database>) => Promise<T>,
  waitMs = WRITE_LOCK_WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    const run = { began: false };
    try {
      return await db.transaction().execute((trx) => {
        run.began = true;
        return fn(trx);
      });
    } catch (err) {
      if (run.began || !isBusy(err)) throw err;
      if (Date.now() >= deadline) throw new DatabaseBusyError(err);
      await sleep(Math.min(25 * attempt, 250));
    }
  }
}
