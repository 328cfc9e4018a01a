const HOUR_MS = 3_600_000;

/** A store that drops what it keeps no longer (events, webhook deliveries): `sweep(now)`. */
export interface Sweepable {
  sweep(now: number): Promise<number>;
}

/**
 * Drops what is past the 30 days it is kept: events (the pull route, the stream and replays promise
 * 30 days) and webhook deliveries with their attempts (the delivery log). Once at start and then
 * every `everyMs` (hourly by default), in the worker (inside `hub serve` on the embedded setup).
 * Several workers sweeping at once is harmless: the deletes are idempotent. One store failing does
 * not keep the others from being swept.
 */
export function startEventSweep(
  stores: readonly Sweepable[],
  options: { everyMs?: number; now?: () => number; onError: (err: unknown) => void },
): { stop(): Promise<void> } {
  const now = options.now ?? Date.now;
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    const at = now();
    running = Promise.all(stores.map((store) => store.sweep(at).catch(options.onError)));
  };
  sweep();
  const timer = setInterval(sweep, options.everyMs ?? HOUR_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
