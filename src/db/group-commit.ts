/**
 * Group commit: writes that arrive while one transaction is being written wait for it, then are
 * written together in the next one; under load, each transaction carries what queued up meanwhile,
 * so BEGIN and COMMIT (the WAL write on SQLite, the flush on PostgreSQL) are paid once per batch
 * instead of once per write. A write that finds nothing under way waits only for the end of the
 * event loop's turn (`setImmediate`, no timer): better-sqlite3 runs a whole transaction without
 * yielding to I/O, so the requests read in the same turn as this one are what a batch can hold.
 *
 * `write(take)` runs one transaction: once it holds the database (its transaction has begun), it
 * calls `take()` for the items to write, and returns one result per item, in order. Taking them
 * only then matters on SQLite, whose one connection makes every other query of the process (the
 * reads that lead requests to this write) wait while a transaction runs: what queued meanwhile is
 * what the next transaction takes. When `write` throws, the items it took are written again one
 * at a time, so a write that fails takes only its own caller down, never its neighbours: nothing
 * of the failed batch was committed. When it throws before taking anything (its transaction never
 * began), what it would have taken fails with it.
 */
export interface GroupCommitOptions<I, O> {
  write(take: () => I[]): Promise<O[]>;
  /** the most items one transaction carries */
  maxBatch: number;
}

interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(reason: unknown): void;
}

export function groupCommit<I, O>(options: GroupCommitOptions<I, O>): (item: I) => Promise<O> {
  const queue: Waiting<I, O>[] = [];
  let draining = false;

  /** One transaction over `take()`'s items; each is answered, or failed alone. */
  async function settle(take: () => Waiting<I, O>[]): Promise<void> {
    let taken: Waiting<I, O>[] | undefined;
    let results: O[];
    try {
      results = await options.write(() => {
        taken ??= take();
        return taken.map((w) => w.item);
      });
    } catch (err) {
      // It never began (the database stayed locked): what it would have taken fails with it, at
      // once; one by one, each would wait for the lock again.
      if (!taken) for (const w of take()) w.reject(err);
      else if (taken.length === 1) taken[0]?.reject(err);
      else for (const w of taken) await settle(() => [w]);
      return;
    }
    // Committed: a writer that answered wrongly fails its items; written again, they would repeat.
    const answered = taken ?? take();
    if (!taken || results.length !== answered.length) {
      const wrong = new Error(`a group commit must ${taken ? 'answer every item' : 'take its items'}`);
      for (const w of answered) w.reject(wrong);
    } else answered.forEach((w, i) => w.resolve(results[i] as O));
  }

  async function drain(): Promise<void> {
    try {
      while (queue.length > 0) await settle(() => queue.splice(0, options.maxBatch));
    } finally {
      draining = false;
    }
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (draining) return;
      draining = true;
      setImmediate(() => void drain());
    });
}
