import type { EventsRepo } from './repo.js';

const HOUR_MS = 3_600_000;

/**
 * Drops events past the 30 days the pull route, the stream and replays promise, once at start and
 * then every `everyMs` (hourly by default), in the worker (inside `hub serve` on the embedded
 * setup). Several workers sweeping at once is harmless: the delete is idempotent.
 */
export function startEventSweep(
  repo: Pick<EventsRepo, 'sweep'>,
  options: { everyMs?: number; now?: () => number; onError: (err: unknown) => void },
): { stop(): Promise<void> } {
  const now = options.now ?? Date.now;
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    running = repo.sweep(now()).catch(options.onError);
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
