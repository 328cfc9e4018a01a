import type { KeyForAuth } from './repo.js';

/** At most this many keys are remembered; past it the oldest entry is dropped for each new one. */
const MAX_ENTRIES = 10_000;

/**
 * The key rows an instance on PostgreSQL read lately, each remembered for at most `ttlMs`
 * (KEY_CACHE_MS): the per-request lookup is a database round trip there, the largest cost of a
 * cached read on the shared path (see `npm run bench:shared`). That is the bound on what a cached
 * row may miss: a revocation or plan change made elsewhere (another instance, the CLI, SQL) applies
 * here within `ttlMs` of the read, and one made through this instance's repo at its next request
 * (`forgetAll`). Only active keys are remembered: a key created meanwhile, or a revoked one, is
 * always looked up. SQLite needs none of this: its lookup is synchronous, and its cache follows the
 * database's change counter (keys/repo.ts).
 */
export class RecentKeys {
  private readonly entries = new Map<string, { key: KeyForAuth; readAt: number }>();
  /** moved by forgetAll: a lookup sent before it does not store what it read */
  private generation = 0;

  constructor(
    private readonly read: (hash: string) => Promise<KeyForAuth | undefined>,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  get(hash: string): KeyForAuth | Promise<KeyForAuth | undefined> {
    const at = this.now();
    const known = this.entries.get(hash);
    if (known && at - known.readAt < this.ttlMs) return known.key;
    const generation = this.generation;
    return this.read(hash).then((key) => {
      if (key?.revoked_at === null && generation === this.generation) {
        if (!known && this.entries.size >= MAX_ENTRIES) {
          const oldest = this.entries.keys().next();
          if (!oldest.done) this.entries.delete(oldest.value);
        }
        // the bound counts from when the read was sent: the row is at least that fresh
        this.entries.set(hash, { key, readAt: at });
      } else {
        this.entries.delete(hash);
      }
      return key;
    });
  }

  /** A key changed through this instance: every remembered row is read again. */
  forgetAll(): void {
    this.generation++;
    this.entries.clear();
  }
}
