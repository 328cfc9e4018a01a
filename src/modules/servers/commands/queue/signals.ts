import type { Broadcast } from '../../../../http/broadcast.js';

/** Topics under the deployment's prefix: a server has a new command; a command reached its final status. */
const QUEUED = 'plugin.commands.queued';
const SETTLED = 'plugin.commands.settled';

export interface Wait {
  /** resolves on the signal, the timeout, or `close()`; never rejects */
  done: Promise<void>;
  cancel: () => void;
}

/**
 * Wake-ups between the instances of a deployment for the command queue: the instance that issues a
 * command wakes the plugin's long-poll wherever it is waiting, and the instance that records the
 * result (or the worker that expires it) wakes the `/v1` caller wherever it waits. Carried by the
 * broadcast (Redis pub/sub, or this process), so best effort: waiters re-read the database on a
 * short backstop interval as well, and a lost message only delays an answer to that interval.
 */
export class QueueSignals {
  private readonly queued = new Map<string, Set<() => void>>();
  private readonly settled = new Map<string, Set<() => void>>();
  private readonly unsubscribe: (() => void)[];
  private closed = false;

  constructor(private readonly broadcast: Broadcast) {
    this.unsubscribe = [
      broadcast.subscribe(QUEUED, (serverId) => wake(this.queued, serverId)),
      broadcast.subscribe(SETTLED, (commandId) => wake(this.settled, commandId)),
    ];
  }

  commandQueued(serverId: number): void {
    this.broadcast.publish(QUEUED, String(serverId));
  }

  commandSettled(commandId: number): void {
    this.broadcast.publish(SETTLED, String(commandId));
  }

  /** Until the server gets a command (or `ms` pass); register before reading, so no signal is missed. */
  untilQueued(serverId: number, ms: number): Wait {
    return this.wait(this.queued, String(serverId), ms);
  }

  untilSettled(commandId: number, ms: number): Wait {
    return this.wait(this.settled, String(commandId), ms);
  }

  /** Ends every wait at once (the app is closing: long-polls answer instead of holding shutdown). */
  close(): void {
    this.closed = true;
    for (const off of this.unsubscribe) off();
    for (const waiters of [this.queued, this.settled]) {
      for (const set of waiters.values()) for (const resolve of set) resolve();
      waiters.clear();
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private wait(waiters: Map<string, Set<() => void>>, key: string, ms: number): Wait {
    if (this.closed || ms <= 0) return { done: Promise.resolve(), cancel: () => undefined };
    let set = waiters.get(key);
    if (!set) waiters.set(key, (set = new Set()));
    const own = set;
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    const timer = setTimeout(() => finish(), ms);
    function finish(): void {
      clearTimeout(timer);
      own.delete(finish);
      if (own.size === 0 && waiters.get(key) === own) waiters.delete(key);
      resolve();
    }
    own.add(finish);
    return { done, cancel: finish };
  }
}

function wake(waiters: Map<string, Set<() => void>>, key: string): void {
  for (const finish of [...(waiters.get(key) ?? [])]) finish();
}
