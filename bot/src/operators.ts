import type { HubClient } from '@gaming-hub/client';
import type { BotLogger } from './log.js';

/** Hub user ids of a server's owner and operators. */
export type OperatorsLookup = (serverId: number) => readonly number[] | Promise<readonly number[]>;

/** The owner and operators of a server, as the hub lists them (`GET /v1/servers/{id}/operators`, `servers:command`). */
export const hubOperators =
  (hub: HubClient): OperatorsLookup =>
  async (serverId) => {
    const ids: number[] = [];
    for await (const entry of hub.paginate('/v1/servers/{id}/operators', {
      params: { path: { id: serverId }, query: { per_page: 100 } },
    }))
      ids.push(entry.user_id);
    return ids;
  };

export interface OperatorCacheOptions {
  /** how long a server's list is used before it is read again (default 60 s) */
  ttlMs?: number;
  /**
   * a player refused by a list at least this old makes the bot read it again first (default 5 s),
   * so an operator granted a moment ago is let in on their first try
   */
  recheckAfterMs?: number;
  now?: () => number;
}

interface Entry {
  ids: readonly number[];
  at: number;
}

/**
 * Each server's operators, read from the hub and kept for `ttlMs`. A grant or revocation shows at
 * once when the bot sees its `server.operators_changed` event (`changed`), else within the TTL; a new
 * grant also shows at once (a refusal rechecks a list older than `recheckAfterMs`). When the
 * hub cannot be read, the last list read is kept, and without one nobody is an operator: an
 * operator-only command is refused rather than let through on a guess.
 */
export class OperatorCache {
  private readonly entries = new Map<number, Entry>();
  private readonly reading = new Map<number, Promise<Entry | undefined>>();
  private readonly ttlMs: number;
  private readonly recheckAfterMs: number;
  private readonly now: () => number;

  constructor(
    private readonly lookup: OperatorsLookup,
    private readonly log: BotLogger,
    options: OperatorCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.recheckAfterMs = options.recheckAfterMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  /** The server's owner and operators (from the cache while it is fresh). */
  async of(serverId: number): Promise<readonly number[]> {
    const entry = this.entries.get(serverId);
    if (entry && this.now() - entry.at < this.ttlMs) return entry.ids;
    return (await this.read(serverId))?.ids ?? entry?.ids ?? [];
  }

  /** Whether the user operates the server; a refusal by a list that is not brand new is checked again. */
  async includes(serverId: number, userId: number): Promise<boolean> {
    if ((await this.of(serverId)).includes(userId)) return true;
    const entry = this.entries.get(serverId);
    if (entry && this.now() - entry.at < this.recheckAfterMs) return false;
    return (await this.read(serverId))?.ids.includes(userId) ?? false;
  }

  /**
   * The hub told that the server's operators changed (`server.operators_changed`): a list kept for
   * it is read again now, so the next command is judged by the new one rather than by a list up to
   * `ttlMs` old. The list is marked stale first: when the hub cannot be read now, the next question
   * tries again (and falls back on the old list, as on any failed read). A server never asked about
   * has nothing to refresh. The TTL stays the backstop for a missed event.
   */
  async changed(serverId: number): Promise<void> {
    const entry = this.entries.get(serverId);
    if (!entry) return;
    this.entries.set(serverId, { ids: entry.ids, at: Number.NEGATIVE_INFINITY });
    await this.read(serverId);
  }

  /** Forgets what was read (one server, or all): the next question reads the hub. */
  forget(serverId?: number): void {
    if (serverId === undefined) this.entries.clear();
    else this.entries.delete(serverId);
  }

  /** One read of the server's list at a time; concurrent questions share it. */
  private read(serverId: number): Promise<Entry | undefined> {
    let pending = this.reading.get(serverId);
    if (!pending) {
      pending = (async () => {
        try {
          const entry = { ids: await this.lookup(serverId), at: this.now() };
          this.entries.set(serverId, entry);
          return entry;
        } catch (error) {
          this.log.warn('could not read the operators of a server', { server_id: serverId, error });
          return undefined;
        } finally {
          this.reading.delete(serverId);
        }
      })();
      this.reading.set(serverId, pending);
    }
    return pending;
  }
}
