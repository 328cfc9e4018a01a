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

/**
 * Counts key-authenticated requests in memory (no write on the request path) and flushes them in
 * one transaction every few seconds and on shutdown. A failed flush puts its counts back.
 */
export class UsageRecorder {
  private counts = new Map<string, UsageRow>();
  private lastUsed = new Map<number, number>();
  private flushing: Promise<void> | undefined;
  private lastRetentionAt = 0;

  constructor(
    private readonly repo: UsageRepo,
    private readonly now: () => number,
  ) {}

  record(keyId: number, at: number, status: number): void {
    const hour = windowStartOf(at);
    const cls = statusClass(status);
    const id = `${keyId}:${hour}:${cls}`;
    const row = this.counts.get(id);
    if (row) row.count++;
    else this.counts.set(id, { key_id: keyId, hour, class: cls, count: 1 });
    if ((this.lastUsed.get(keyId) ?? 0) < at) this.lastUsed.set(keyId, at);
  }

  /** Counts recorded here and not yet flushed, for views that want to be exact on this instance. */
  pending(keyIds: number[]): UsageRow[] {
    const wanted = new Set(keyIds);
    return [...this.counts.values()].filter((r) => wanted.has(r.key_id)).map((r) => ({ ...r }));
  }

  get pendingCount(): number {
    return this.counts.size;
  }

  /** Writes the buffer; concurrent callers share one flush. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async write(): Promise<void> {
    const at = this.now();
    const runRetention = at - this.lastRetentionAt >= RETENTION_EVERY_MS;
    if (this.counts.size === 0 && !runRetention) return;
    const rows = [...this.counts.values()];
    const lastUsed = this.lastUsed;
    this.counts = new Map();
    this.lastUsed = new Map();
    try {
      await this.repo.flush(rows, lastUsed, runRetention ? windowStartOf(at - RETENTION_MS) : undefined);
      if (runRetention) this.lastRetentionAt = at;
    } catch (err) {
      for (const row of rows) {
        for (let i = 0; i < row.count; i++) this.mergeBack(row);
      }
      for (const [keyId, when] of lastUsed) {
        if ((this.lastUsed.get(keyId) ?? 0) < when) this.lastUsed.set(keyId, when);
      }
      throw err;
    }
  }

  private mergeBack(row: UsageRow): void {
    const id = `${row.key_id}:${row.hour}:${row.class}`;
    const existing = this.counts.get(id);
    if (existing) existing.count++;
    else this.counts.set(id, { ...row, count: 1 });
  }
}
