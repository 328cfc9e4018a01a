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
 * waiting could never help a stale snapshot. So on SQLite every transaction begins IMMEDIATE: the
 * write lock is taken up front, and nothing of the transaction runs before it is held.
 *
 * Waiting for that lock must not stop the process. better-sqlite3 is synchronous: its busy
 * timeout sleeps inside the call, so a `BEGIN` behind another process's long batch would freeze
 * the event loop (no HTTP answers, no UDP datagrams read: the kernel drops them) for as long as the
 * timeout. The `BEGIN IMMEDIATE` therefore runs with the busy timeout off and fails at once when
 * the lock is held; `writeTransaction` then retries it on a timer with a growing, jittered delay,
 * for up to `WRITE_LOCK_WAIT_MS`. Retrying is safe: nothing of the transaction has run yet.
 * Kysely issues plain `begin`, hence the dialect below.
 *
 * PostgreSQL: a plain transaction; writers lock the rows they change (see the repos).
 */
export const WRITE_LOCK_WAIT_MS = 10_000;
/** The busy timeout of SQLite connections for every statement but the `BEGIN IMMEDIATE`. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

const NO_BUSY_WAIT = CompiledQuery.raw('pragma busy_timeout = 0');
const BUSY_WAIT = CompiledQuery.raw(`pragma busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(NO_BUSY_WAIT);
    try {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    } finally {
      await connection.executeQuery(BUSY_WAIT);
    }
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

/**
 * 1, 2, 4 … ms, then every 25-50 ms: a short hold (one HTTP batch) is caught within a few
 * milliseconds, a long one (a big flush) costs a poll every few dozen. The jitter keeps two
 * waiting processes from retrying in step.
 */
const retryDelay = (attempt: number) =>
  attempt <= 5 ? 2 ** (attempt - 1) : 25 + Math.floor(Math.random() * 25);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Told the database (the Kysely instance `writeTransaction` was given) once a write has committed. */
export type CommitHook = (db: Kysely<Database>) => void;

/** The hooks of each write transaction under way, run once it has committed. */
const commitHooks = new WeakMap<Kysely<Database>, Set<CommitHook>>();

/**
 * Runs `hook` once what `db` wrote is committed, never before and never if it rolls back: inside a
 * `writeTransaction`, right after its commit (the same hook once per transaction, however often it
 * is asked for); outside any transaction (the statement committed by itself), now. In a transaction
 * that `writeTransaction` did not begin, the commit cannot be seen and the hook is skipped: every
 * write transaction of the service goes through `writeTransaction`. A hook must not throw.
 */
export function afterCommit(db: Kysely<Database>, hook: CommitHook): void {
  const hooks = commitHooks.get(db);
  if (hooks) hooks.add(hook);
  else if (!db.isTransaction) hook(db);
}

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
    const hooks = new Set<CommitHook>();
    try {
      const result = await db.transaction().execute((trx) => {
        run.began = true;
        commitHooks.set(trx, hooks);
        return fn(trx);
      });
      for (const hook of hooks) hook(db);
      return result;
    } catch (err) {
      if (run.began || !isBusy(err)) throw err;
      const left = deadline - Date.now();
      if (left <= 0) throw new DatabaseBusyError(err);
      await sleep(Math.min(retryDelay(attempt), left));
    }
  }
}
