import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Where a bot keeps its place in the event stream, and the effects (replies, posts) of the event
 * it is handling, so that a bot restarted after a crash resumes after the last event it finished
 * and does not repeat an effect it had already made.
 *
 * The bot calls, for each event in order: `recordEffect(key)` after each effect succeeds, then
 * `commit(eventId)` once every handler of the event has finished. `load()` returns the last
 * committed event id and the effects recorded since (those of an event that was being handled
 * when the bot stopped).
 */
export interface CursorStore {
  load(): Promise<StoredPosition>;
  recordEffect(key: string): Promise<void>;
  commit(eventId: string): Promise<void>;
  close(): Promise<void>;
}

export interface StoredPosition {
  /** the last event whose handlers all finished; undefined before the first */
  cursor: string | undefined;
  /** effects made for events after the cursor */
  effects: Set<string>;
}

/** A store in memory: for tests and bots that may start over (nothing survives the process). */
export class MemoryStore implements CursorStore {
  cursor: string | undefined;
  effects = new Set<string>();

  constructor(cursor?: string) {
    this.cursor = cursor;
  }
  async load(): Promise<StoredPosition> {
    return { cursor: this.cursor, effects: new Set(this.effects) };
  }
  async recordEffect(key: string): Promise<void> {
    this.effects.add(key);
  }
  async commit(eventId: string): Promise<void> {
    this.cursor = eventId;
    this.effects.clear();
  }
  async close(): Promise<void> {}
}

export interface FileStoreOptions {
  /**
   * `process` (default): every record is written to the file (the operating system's cache) before
   * the bot goes on, so it survives the bot being killed (`kill -9`, a crash). `machine`: also
   * fsync'd, so it survives a power cut too, at the price of a disk flush per record.
   */
  durability?: 'process' | 'machine';
  /** the journal is rewritten to its last cursor when it grows past this (default 1 MiB) */
  compactBytes?: number;
}

/**
 * The default store: an append-only journal file, one record per line (`C <event id>` for a
 * commit, `E <key>` for an effect). Appending a line is one `write`, cheap enough to commit every
 * event; the journal is rewritten (to a temporary file, then renamed over it) when it grows.
 * A last line cut short by a crash is ignored: it was never acknowledged.
 */
export class FileStore implements CursorStore {
  private fd: number | undefined;
  private size = 0;
  private readonly durability: 'process' | 'machine';
  private readonly compactBytes: number;

  constructor(
    readonly path: string,
    options: FileStoreOptions = {},
  ) {
    this.durability = options.durability ?? 'process';
    this.compactBytes = options.compactBytes ?? 1_048_576;
  }

  async load(): Promise<StoredPosition> {
    let text = '';
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      mkdirSync(dirname(this.path), { recursive: true });
    }
    let cursor: string | undefined;
    const effects = new Set<string>();
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    for (const line of complete.split('\n')) {
      if (line.startsWith('C ')) {
        cursor = line.slice(2);
        effects.clear();
      } else if (line.startsWith('E ')) effects.add(line.slice(2));
    }
    // start from a clean journal: the cursor and the effects still owed, nothing cut short
    this.rewrite([...(cursor === undefined ? [] : [`C ${cursor}`]), ...[...effects].map((e) => `E ${e}`)]);
    return { cursor, effects };
  }

  async recordEffect(key: string): Promise<void> {
    if (/[\r\n]/.test(key)) throw new TypeError('an effect key is one line');
    this.append(`E ${key}\n`);
  }

  async commit(eventId: string): Promise<void> {
    this.append(`C ${eventId}\n`);
    if (this.size > this.compactBytes) this.rewrite([`C ${eventId}`]);
  }

  async close(): Promise<void> {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private append(line: string): void {
    if (this.fd === undefined) throw new Error('the store is not open: call load() first');
    this.size += writeSync(this.fd, line);
    if (this.durability === 'machine') fsyncSync(this.fd);
  }

  private rewrite(lines: string[]): void {
    if (this.fd !== undefined) closeSync(this.fd);
    const temp = `${this.path}.tmp`;
    const fd = openSync(temp, 'w');
    const text = lines.map((l) => `${l}\n`).join('');
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, this.path);
    this.fd = openSync(this.path, 'a');
    this.size = Buffer.byteLength(text);
  }
}
