import { ensureAchievementCatalog } from '../modules/ingest/repo.js';
import type SQLite from 'better-sqlite3';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Db, Dialect } from '../db/connect.js';
import { preparedOn } from '../db/prepared.js';
import type { Database } from '../db/types.js';
import { writeTransaction } from '../db/write-transaction.js';

/**
 * Every statement the seeder runs. Bulk rows go through one multi-row INSERT per batch, built as
 * text once per (table, row count) and bound with a flat parameter array: at millions of rows the
 * query builder's per-value nodes would cost more than the database does.
 */

/** Both SQLite (32766) and PostgreSQL (65535) accept this many bind parameters per statement. */
const MAX_PARAMS = 30_000;

/** The tables a demo load fills, children first so deletes never trip a foreign key. */
const DEMO_TABLES = [
  'elo_history',
  'elo_ratings',
  'matches',
  'frag_totals',
  'frag_daily',
  'death_totals',
  'kills',
  'forum_posts',
  'forum_threads',
  'forum_categories',
  'tournament_participants',
  'tournaments',
  'user_achievements',
  'server_polls',
  'game_servers',
  'clan_invites',
  'clan_members',
  'clans',
  'users',
] as const satisfies readonly (keyof Database)[];

/** Tables whose ids the seeder assigns itself; PostgreSQL sequences must then catch up. */
const EXPLICIT_ID_TABLES = [
  'users',
  'clans',
  'game_servers',
  'forum_categories',
  'forum_threads',
  'tournaments',
  'matches',
];

type Executor = Kysely<Database>;

/** Buffers rows of one table and writes them in batches through `executor`. */
export class BulkWriter<T extends keyof Database> {
  /** The current batch's values, row after row; append a row's values, then call endRow(). */
  values: unknown[] = [];
  private rows = 0;
  readonly batchRows: number;

  constructor(
    private readonly executor: Executor,
    private readonly dialect: Dialect,
    /** SQLite: run on the driver's handle with a cached statement (inside the same transaction) */
    private readonly sqlite: SQLite.Database | undefined,
    private readonly table: T,
    private readonly columns: readonly (keyof Database[T] & string)[],
  ) {
    this.batchRows = Math.floor(MAX_PARAMS / columns.length);
  }

  /** Marks the end of a row (values in the order of `columns`); true when the batch is full. */
  endRow(): boolean {
    return ++this.rows >= this.batchRows;
  }

  /** Appends one row from an array (convenient for small tables). */
  async push(row: readonly unknown[]): Promise<void> {
    for (const v of row) this.values.push(v);
    if (this.endRow()) await this.flush();
  }

  /** Writes every row, then what is still buffered. */
  async pushAll(rows: Iterable<readonly unknown[]>): Promise<void> {
    for (const row of rows) await this.push(row);
    await this.flush();
  }

  async flush(): Promise<void> {
    if (this.rows === 0) return;
    const text = insertText(this.dialect, this.table, this.columns, this.rows);
    if (this.sqlite) preparedOn(this.sqlite, text).run(this.values);
    else await this.executor.executeQuery(CompiledQuery.raw(text, this.values));
    this.values = [];
    this.rows = 0;
  }
}

const textCache = new Map<string, string>();
function insertText(dialect: Dialect, table: string, columns: readonly string[], rows: number): string {
  const cacheKey = `${dialect}|${table}|${columns.join(',')}|${rows}`;
  const cached = textCache.get(cacheKey);
  if (cached) return cached;
  const tuples: string[] = [];
  let n = 0;
  for (let r = 0; r < rows; r++) {
    const marks = columns.map(() => (dialect === 'postgres' ? `$${++n}` : '?'));
    tuples.push(`(${marks.join(',')})`);
  }
  const text = `insert into ${table} (${columns.join(', ')}) values ${tuples.join(',')}`;
  if (textCache.size > 64) textCache.clear();
  textCache.set(cacheKey, text);
  return text;
}

export function seedRepo(db: Db) {
  const k = db.kysely;
  return {
    writer<T extends keyof Database>(
      executor: Executor,
      table: T,
      columns: readonly (keyof Database[T] & string)[],
    ): BulkWriter<T> {
      return new BulkWriter(executor, db.dialect, db.sqlite, table, columns);
    },

    /** Runs `fn` in one transaction and flushes whatever its writers still buffer. */
    inTransaction<R>(fn: (trx: Executor) => Promise<R>): Promise<R> {
      return writeTransaction(k, fn);
    },

    /** The first demo table that already holds rows, if any. */
    /** Demo mode seeds only a database without users. */
    async hasUsers(): Promise<boolean> {
      return (await k.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
    },

    async firstNonEmptyTable(): Promise<string | undefined> {
      for (const table of [...DEMO_TABLES].reverse()) {
        const row = await sql<{ one: number }>`select 1 as one from ${sql.table(table)} limit 1`.execute(k);
        if (row.rows.length > 0) return table;
      }
      return undefined;
    },

    /** Deletes every demo row (keys owned by demo users go with them; operator keys stay). */
    async wipe(): Promise<void> {
      await writeTransaction(k, async (trx) => {
        await trx.deleteFrom('api_keys').where('user_id', 'is not', null).execute();
        for (const table of DEMO_TABLES) await trx.deleteFrom(table).execute();
        await trx.deleteFrom('meta').where('key', '=', 'frag_window_day').execute();
      });
    },

    /** Inserts the catalog (keeping rows someone already inserted) and returns code → id. */
    achievementIds(): Promise<Map<string, number>> {
      return ensureAchievementCatalog(k);
    },

    /**
     * Drops the secondary indexes of `table`, runs `fn`, and recreates them from their stored
     * definitions: one sort per index after a bulk load is far cheaper than millions of random
     * B-tree inserts. The definitions are read from the catalog, so they never drift from migrations.
     */
    async withoutIndexes<R>(table: keyof Database, fn: () => Promise<R>): Promise<R> {
      const indexes =
        db.dialect === 'sqlite'
          ? (
              await sql<{ name: string; def: string }>`select name, sql as def from sqlite_master
                where type = 'index' and tbl_name = ${table} and sql is not null`.execute(k)
            ).rows
          : (
              await sql<{ name: string; def: string }>`select i.indexname as name, i.indexdef as def
                from pg_indexes i
                where i.tablename = ${table} and i.schemaname = current_schema()
                  and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`.execute(k)
            ).rows;
      for (const index of indexes) await sql`drop index ${sql.id(index.name)}`.execute(k);
      try {
        return await fn();
      } finally {
        for (const index of indexes) await sql.raw(index.def).execute(k);
      }
    },

    /**
     * SQLite: skips fsyncs while `fn` loads (a crashed seed is simply re-run with --reset), then
     * restores the connection's setting. (A larger page cache and sorter threads were measured too:
     * no gain at 5M kills.)
     */
    async fastLoad<R>(fn: () => Promise<R>): Promise<R> {
      const handle = db.sqlite;
      if (!handle) return fn();
      const synchronous = Number(handle.pragma('synchronous', { simple: true }));
      handle.pragma('synchronous = off');
      try {
        return await fn();
      } finally {
        handle.pragma(`synchronous = ${synchronous}`);
      }
    },

    /** PostgreSQL serials do not advance on explicit ids; move them past the seeded rows. */
    async syncSequences(): Promise<void> {
      if (db.dialect !== 'postgres') return;
      for (const table of EXPLICIT_ID_TABLES) {
        await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${sql.table(table)}))`.execute(
          k,
        );
      }
    },
  };
}

export type SeedRepo = ReturnType<typeof seedRepo>;
