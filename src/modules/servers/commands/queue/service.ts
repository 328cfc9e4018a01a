import { ProblemError } from '../../../../http/problem.js';
import { toIso } from '../../../../http/schemas.js';
import type { CommandCaller } from '../service.js';
import { isFinal, type PluginQueueRepo, type PluginResult, type QueuedCommand } from './repo.js';
import type { QueueSignals } from './signals.js';

/** A delivered command unacknowledged this long is delivered again (at least once). */
export const REDELIVER_AFTER_MS = 30_000;
/** How often a waiter re-reads the database besides the signals (which are best effort). */
const RESULT_BACKSTOP_MS = 1000;
const QUEUE_BACKSTOP_MS = 2000;
/** Commands handed to a plugin in one answer. */
const BATCH = 50;

export interface PluginQueueDeps {
  repo: PluginQueueRepo;
  signals: QueueSignals;
  /** the app's clock: issue, delivery and expiry times (waiting itself runs on real timers) */
  now: () => number;
  /** PLUGIN_COMMAND_TTL in ms: an unacknowledged command expires this long after it was issued */
  ttlMs: number;
}

/**
 * The command queue of plugin-channel servers: `/v1` issues and waits for the result; the plugin
 * long-polls, runs and acknowledges. Delivery is at least once (redelivered after 30 s), the result
 * is recorded exactly once, and a command unacknowledged within its time to live expires.
 */
export function pluginQueue(deps: PluginQueueDeps) {
  const { repo, signals, now } = deps;

  /** Expires the server's overdue commands (audited and told), and wakes whoever waits for them. */
  async function expireOverdue(serverId?: number): Promise<number> {
    const expired = await repo.expireDue(now(), serverId);
    for (const row of expired) signals.commandSettled(row.id);
    return expired.length;
  }

  /** The command as it stands, expired first if it is overdue (so a read never shows a stale `pending`). */
  async function current(serverId: number, id: number): Promise<QueuedCommand | undefined> {
    const row = await repo.find(serverId, id);
    if (row && !isFinal(row.status) && row.expires_at <= now()) {
      await expireOverdue(serverId);
      return repo.find(serverId, id);
    }
    return row;
  }

  return {
    async issue(
      serverId: number,
      caller: CommandCaller,
      command: string,
      waitMs: number,
    ): Promise<QueuedCommand> {
      const issuedAt = now();
      const row = await repo.enqueue({
        server_id: serverId,
        user_id: caller.userId,
        app_id: caller.appId,
        command,
        issued_at: issuedAt,
        expires_at: issuedAt + deps.ttlMs,
      });
      signals.commandQueued(serverId);
      const deadline = performance.now() + waitMs;
      for (;;) {
        const left = deadline - performance.now();
        const wait = signals.untilSettled(row.id, Math.min(left, RESULT_BACKSTOP_MS));
        const seen = await current(serverId, row.id);
        if (!seen || isFinal(seen.status) || left <= 0 || signals.isClosed) {
          wait.cancel();
          return seen ?? row;
        }
        await wait.done;
      }
    },

    find: current,

    /**
     * The plugin's long-poll: what it should run now, waiting up to `waitMs` for a command to
     * arrive (an empty list after the wait). `hungUp` aborts when the plugin hangs up: the wait ends
     * at once and nothing more is claimed for it (what was claimed is redelivered after 30 s).
     */
    async take(serverId: number, waitMs: number, hungUp: AbortSignal): Promise<QueuedCommand[]> {
      const deadline = performance.now() + waitMs;
      for (;;) {
        const left = deadline - performance.now();
        const wait = signals.untilQueued(serverId, Math.min(left, QUEUE_BACKSTOP_MS));
        if (hungUp.aborted) {
          wait.cancel();
          return [];
        }
        hungUp.addEventListener('abort', wait.cancel, { once: true });
        const at = now();
        const due = await repo.claim(serverId, at, at - REDELIVER_AFTER_MS, BATCH);
        if (due.length > 0 || left <= 0 || signals.isClosed) {
          hungUp.removeEventListener('abort', wait.cancel);
          wait.cancel();
          return due;
        }
        await wait.done;
        hungUp.removeEventListener('abort', wait.cancel);
      }
    },

    /**
     * The plugin's result: `true` when recorded now, `false` when the same command was already
     * settled by an earlier result (a retry: exactly once); 404 for another server's or an unknown
     * id, 409 when it expired first.
     */
    async complete(serverId: number, game: string, id: number, result: PluginResult): Promise<boolean> {
      const recorded = await repo.complete(serverId, game, id, result, now());
      if (recorded) {
        signals.commandSettled(id);
        return true;
      }
      const row = await current(serverId, id);
      if (!row)
        throw new ProblemError('command_not_found', `Server ${serverId} has no command with id ${id}.`);
      if (row.status === 'expired')
        throw new ProblemError(
          'command_expired',
          `Command ${id} expired at ${toIso(row.expires_at)}, before its result arrived.`,
        );
      return false;
    },

    expireOverdue,
  };
}

export type PluginQueue = ReturnType<typeof pluginQueue>;
