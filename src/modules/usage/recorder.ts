import { WINDOW_MS, windowStartOf } from '../../http/quota.js';
import type { StatusClass, UsageRepo, UsageRow } from './repo.js';

export const RETENTION_MS = 35 * 24 * WINDOW_MS; // kept at least 30 days, as promised; 35 for slack
const RETENTION_EVERY_MS = WINDOW_MS;

export function statusClass(status: number): StatusClass {
  if (status === 429) return '429';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  return '2xx';
}

/** One key's counts since the last flush: a few rows (usually one), and when it was last used. */
interface KeyTally {
  rows: UsageRow[];
  lastUsed: number;
}

/** Adds `count` to the row for (hour, class), creating it on first use. */
function bump(tally: KeyTally, keyId: number, hour: number, cls: StatusClass, count: number): void {
  for (const row of tally.rows) {
    if (row.hour === hour && row.class === cls) {
      row.count += count;
      return;
    }
  }
  tally.rows.push({ key_id: keyId, hour, class: cls, count });
}

/**
 * Counts key-authenticated requests in memory (no write on the request path) and flushes them in
 * one transaction every few seconds and on shutdown. A failed flush puts its counts back.
 * Recording is on every API response's path, so it costs one lookup by key id and no allocation
 * once the key's row for this hour and class exists.
 */
export class UsageRecorder {
  private tallies = new Map<number, KeyTally>();
  private flushing: Promise<void> | undefined;
  private readonly reads = new Set<Promise<UsageRow[]>>();
  private lastRetentionAt = 0;

  constructor(
    private readonly repo: UsageRepo,
    private readonly now: () => number,
  ) {}

  record(keyId: number, at: number, status: number): void {
    this.add(keyId, windowStartOf(at), statusClass(status), 1, at);
  }

  private add(keyId: number, hour: number, cls: StatusClass, count: number, usedAt: number): void {
    let tally = this.tallies.get(keyId);
    if (!tally) {
      tally = { rows: [], lastUsed: usedAt };
      this.tallies.set(keyId, tally);
    }
    bump(tally, keyId, hour, cls, count);
    if (tally.lastUsed < usedAt) tally.lastUsed = usedAt;
  }

  /** Counts recorded here and not yet flushed. */
  private pending(keyIds: number[]): UsageRow[] {
    return keyIds.flatMap((id) => this.tallies.get(id)?.rows.map((r) => ({ ...r })) ?? []);
  }

  /**
   * The rows `stored` reads from the database plus the counts still buffered here, for views that
   * want to be exact on this instance. No flush runs in between: a flush under way is waited for,
   * and one that starts meanwhile waits, so every count is in exactly one of the two (a flush's rows
   * are in neither while it writes).
   */
  async withPending(keyIds: number[], stored: () => Promise<UsageRow[]>): Promise<UsageRow[]> {
    while (this.flushing) await this.flushing.catch(() => undefined);
    const read = stored().then((rows) => [...rows, ...this.pending(keyIds)]);
    this.reads.add(read);
    try {
      return await read;
    } finally {
      this.reads.delete(read);
    }
  }

  /** Writes the buffer (after the reads under way); concurrent callers share one flush. */
  flush(): Promise<void> {
    this.flushing ??= Promise.allSettled(this.reads)
      .then(() => this.write())
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }

  private async write(): Promise<void> {
    const at = this.now();
    const runRetention = at - this.lastRetentionAt >= RETENTION_EVERY_MS;
    if (this.tallies.size === 0 && !runRetention) return;
    const tallies = this.tallies;
    this.tallies = new Map();
    const rows = [...tallies.values()].flatMap((t) => t.rows);
    const lastUsed = new Map([...tallies].map(([keyId, t]) => [keyId, t.lastUsed]));
    try {
      await this.repo.flush(rows, lastUsed, runRetention ? windowStartOf(at - RETENTION_MS) : undefined);
      if (runRetention) this.lastRetentionAt = at;
    } catch (err) {
      for (const [keyId, tally] of tallies) {
        for (const row of tally.rows) this.add(keyId, row.hour, row.class, row.count, tally.lastUsed);
      }
      throw err;
    }
  }
}
