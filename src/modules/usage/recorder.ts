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
    this.add(keyId, windowStartOf(at), statusClass(status), 1);
    if ((this.lastUsed.get(keyId) ?? 0) < at) this.lastUsed.set(keyId, at);
  }

  private add(keyId: number, hour: number, cls: StatusClass, count: number): void {
    const id = `${keyId}:${hour}:${cls}`;
    const row = this.counts.get(id);
    if (row) row.count += count;
    else this.counts.set(id, { key_id: keyId, hour, class: cls, count });
  }

  /** Counts recorded here and not yet flushed, for views that want to be exact on this instance. */
  pending(keyIds: number[]): UsageRow[] {
    const wanted = new Set(keyIds);
    return [...this.counts.values()].filter((r) => wanted.has(r.key_id)).map((r) => ({ ...r }));
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
      for (const row of rows) this.add(row.key_id, row.hour, row.class, row.count);
      for (const [keyId, when] of lastUsed) {
        if ((this.lastUsed.get(keyId) ?? 0) < when) this.lastUsed.set(keyId, when);
      }
      throw err;
    }
  }
}
