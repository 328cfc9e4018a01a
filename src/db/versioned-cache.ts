/**
 * Remembers values read from the database for as long as the database has not changed. `version`
 * reports a number that moves on every commit (see SqliteReader.changeCounter), so a
 * hit is exact: anything committed before the lookup began, by any connection or process, is seen.
 * Only found values are kept, and at most `maxEntries` of them.
 */
export class VersionedCache<K, V> {
  private readonly entries = new Map<K, V>();
  private version: number | undefined;

  constructor(
    private readonly currentVersion: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: K, load: (key: K) => V | undefined): V | undefined {
    const version = this.currentVersion();
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    } else {
      const hit = this.entries.get(key);
      if (hit !== undefined) return hit;
    }
    // A commit between the version read above and this load only makes the entry newer than its
    // version: the next lookup sees the version move and drops it.
    const value = load(key);
    if (value !== undefined) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }
}
