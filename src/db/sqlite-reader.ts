import SQLite from 'better-sqlite3';
import { TurnMemo } from './turn-memo.js';
import { WalIndexWatch } from './wal-index.js';

/**
 * A read-only SQLite connection beside the writer. Reads on it are synchronous (no promise), never
 * wait behind the writer's transactions and only see committed data (WAL readers never block).
 */
export interface SqliteReader {
  /**
   * Prepares a one-row read (SQL compiled by Kysely in a repo) and returns a synchronous runner. The
   * statement is prepared on first use, after migrations.
   */
  prepare<T>(sql: string): (parameters: readonly unknown[]) => T | undefined;
  /**
   * A number that moves whenever anything is committed to the database, by any connection or
   * process (`hub keys revoke` included), so a value read from the database can be cached until
   * it moves.
   */
  changeCounter(): number;
  /**
   * `changeCounter()` read at most once per event-loop turn: the value at the start of the batch
   * of requests being handled. A commit by this process's own writer is seen at once (the
   * writer calls `writerActive()` before each statement); one by another process is seen from the
   * next turn, which is where any request sent after that commit completed is handled.
   */
  changeCounterThisTurn(): number;
  /** Called by this process's writer connection before it runs a statement. */
  writerActive(): void;
  close(): void;
}

/** Opens lazily, on first use: by then the writer has migrated and put the file in WAL mode. */
export function sqliteReader(file: string, walMode: boolean): SqliteReader {
  let handle: SQLite.Database | undefined;
  let watch: WalIndexWatch | undefined;
  let watchTried = false;
  let dataVersion: SQLite.Statement<[], number> | undefined;
  const thisTurn = new TurnMemo(() => reader.changeCounter());
  const open = (): SQLite.Database => {
    if (!handle) {
      handle = new SQLite(file, { readonly: true });
      handle.pragma('busy_timeout = 5000');
    }
    return handle;
  };
  const reader: SqliteReader = {
    prepare<T>(sql: string) {
      let statement: SQLite.Statement<unknown[], T> | undefined;
      return (parameters: readonly unknown[]): T | undefined => {
        statement ??= open().prepare<unknown[], T>(sql);
        return statement.get(...parameters);
      };
    },
    changeCounter() {
      if (watch) return watch.read();
      dataVersion ??= open().prepare<[], number>('PRAGMA data_version').pluck();
      // Reading once maps this connection to the WAL index, which then exists for the watch.
      const version = dataVersion.get() ?? 0;
      if (watchTried || !walMode) return version;
      watchTried = true;
      watch = WalIndexWatch.open(file);
      return watch ? watch.read() : version;
    },
    changeCounterThisTurn: () => thisTurn.get(),
    writerActive: () => thisTurn.forget(),
    close() {
      watch?.close();
      handle?.close();
    },
  };
  return reader;
}
