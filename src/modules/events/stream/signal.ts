import { Redis } from 'ioredis';

/**
 * Wake-ups for the event streams: a change that emitted events calls `notify()` after its
 * transaction commits, and every stream of every API instance reads the outbox at once instead of
 * at its next poll. A lost wake-up only delays: the streams also poll (EventHub).
 */
export interface EventSignal {
  /** after a transaction that emitted events has committed (never before: readers would miss them) */
  notify(): void;
  /** calls `listener` on every wake-up, from this process or another; returns the unsubscribe */
  onWake(listener: () => void): () => void;
  close(): Promise<void>;
}

class Listeners {
  private readonly set = new Set<() => void>();
  add(listener: () => void): () => void {
    this.set.add(listener);
    return () => this.set.delete(listener);
  }
  fire(): void {
    for (const listener of this.set) listener();
  }
}

/** In-process only: the embedded setup, where the API and the worker share one process. */
export function localEventSignal(): EventSignal {
  const listeners = new Listeners();
  return {
    notify: () => listeners.fire(),
    onWake: (listener) => listeners.add(listener),
    close: () => Promise.resolve(),
  };
}

/** How long start-up waits for the subscription before going on (polling covers the meantime). */
const SUBSCRIBE_WAIT_MS = 5000;

export interface RedisSignalOptions {
  url: string;
  /** the deployment's Redis prefix: instances of one deployment share the channel, others do not */
  prefix: string;
  onError?: (err: Error) => void;
}

/**
 * Across instances through Redis pub/sub on `<prefix>events`: one connection publishes, one
 * subscribes (a subscribed connection can do nothing else). A publish while Redis is away is
 * dropped, not queued, so `notify()` never waits; ioredis resubscribes after a reconnection, and
 * every reconnection is a wake-up too, since messages sent meanwhile were lost.
 */
export async function redisEventSignal(options: RedisSignalOptions): Promise<EventSignal> {
  const channel = `${options.prefix}events`;
  const listeners = new Listeners();
  // one report per outage, not one per reconnection attempt
  let reported = false;
  const onError = (err: Error) => {
    if (reported) return;
    reported = true;
    options.onError?.(err);
  };
  const publisher = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  const subscriber = new Redis(options.url, {
    maxRetriesPerRequest: null,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  publisher.on('error', onError);
  subscriber.on('error', onError);
  subscriber.on('message', (from: string) => {
    if (from === channel) listeners.fire();
  });
  subscriber.on('ready', () => {
    reported = false;
    listeners.fire();
  });
  // Start-up does not hang on a Redis that is away: the subscription is made when it comes back.
  const subscribed = subscriber.subscribe(channel).then(
    () => true,
    (err: unknown) => {
      onError(err instanceof Error ? err : new Error(String(err)));
      return false;
    },
  );
  await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
  return {
    notify: () => {
      listeners.fire();
      if (publisher.status === 'ready') publisher.publish(channel, '1').catch(onError);
    },
    onWake: (listener) => listeners.add(listener),
    close: async () => {
      publisher.disconnect();
      subscriber.disconnect();
      await Promise.resolve();
    },
  };
}
