import type { Kysely } from 'kysely';
import type { Database } from '../../../../db/types.js';
import type { Broadcast } from '../../../../http/broadcast.js';
import { pluginQueueRepo } from './repo.js';
import { pluginQueue } from './service.js';
import { QueueSignals } from './signals.js';

/** How often the worker expires overdue commands (a read of one expires it at once anyway). */
export const EXPIRY_SWEEP_MS = 5000;

/**
 * Commands nobody reads again must still end: every few seconds the worker (or `hub serve` on the
 * embedded setup) expires the overdue ones, so each is audited and told (`server.command_completed`)
 * within seconds of its expiry, and wakes a `/v1` caller still waiting for it on any instance.
 */
export function startCommandExpiry(
  db: Kysely<Database>,
  broadcast: Broadcast,
  options: { onError: (err: unknown) => void; now?: () => number; intervalMs?: number },
): { stop(): Promise<void> } {
  const signals = new QueueSignals(broadcast);
  const queue = pluginQueue({ repo: pluginQueueRepo(db), signals, now: options.now ?? Date.now, ttlMs: 0 });
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = queue.expireOverdue().catch(options.onError);
  }, options.intervalMs ?? EXPIRY_SWEEP_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
      signals.close();
    },
  };
}
