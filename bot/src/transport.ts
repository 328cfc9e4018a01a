import type { HubEvent } from '@gaming-hub/client';

/** Where a bot's events come from: the hub's stream, or recorded events (the test kit). */
export interface EventSource {
  /**
   * Every event after `after` (undefined: from now) in order, of `types` (undefined: all),
   * until `signal` aborts. It may throw on a lost connection: the bot opens it again after the
   * last event it handled.
   */
  events(options: {
    after: string | undefined;
    types: readonly string[] | undefined;
    signal: AbortSignal;
  }): AsyncIterable<HubEvent>;
}

/** Runs console commands on game servers: the hub's command route, or a recorder (the test kit). */
export interface CommandChannel {
  /**
   * Runs `command` on the server; rejects when it could not. `key` is the same for a retry of the
   * same effect (after a crash too): the hub answers a repeat with the first answer instead of
   * running it again (`Idempotency-Key`).
   */
  run(serverId: number, command: string, key: string): Promise<void>;
}

/** A message for an output beyond the game (Discord, an HTTP endpoint). */
export interface Output<M> {
  readonly name: string;
  /** sends it; `key` is the same for a retry of the same effect, for receivers that deduplicate */
  send(message: M, key: string): Promise<void>;
}
