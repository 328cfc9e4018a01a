import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Both copies of the WAL-index header: the first 96 bytes of `<db>-shm`, laid out in SQLite's
 * documented WAL format (https://www.sqlite.org/walformat.html, "The WAL-Index Header"). Every
 * commit rewrites them: the last valid frame number grows, or a restarted WAL gets new salts, and
 * a change counter is incremented. SQLite itself compares this header to decide whether a reader's
 * view is stale (it is what PRAGMA data_version reports).
 */
const HEADER_BYTES = 96;

/**
 * Tells, with one `pread` and no lock, whether anything was committed since the last call: a
 * number that moves whenever the header bytes differ from the previous read. A read that catches
 * a commit half-way only reports a change early; it never hides one, since SQLite publishes a
 * commit to new readers by completing this header.
 *
 * PRAGMA data_version answers the same question, but it opens and closes a read transaction (two
 * file-lock system calls and a trip through SQLite's VM), which on the per-request path costs
 * several times more.
 */
export class WalIndexWatch {
  private readonly current = Buffer.alloc(HEADER_BYTES);
  private readonly last = Buffer.alloc(HEADER_BYTES);
  private version = 0;

  private constructor(private readonly fd: number) {}

  /** Undefined when the database has no WAL index (not in WAL mode, or not opened yet). */
  static open(databaseFile: string): WalIndexWatch | undefined {
    try {
      return new WalIndexWatch(openSync(`${databaseFile}-shm`, 'r'));
    } catch {
      return undefined;
    }
  }

  read(): number {
    const n = readSync(this.fd, this.current, 0, HEADER_BYTES, 0);
    // A short read (an index not initialised yet) counts as a change every time: never stale.
    if (n < HEADER_BYTES || !this.current.equals(this.last)) {
      this.current.copy(this.last);
      this.version++;
    }
    return this.version;
  }

  close(): void {
    closeSync(this.fd);
  }
}
