import type { Redis } from 'ioredis';
import { firstAnswer, type LinkLogger, type RedisLink } from './redis-link.js';

export type BroadcastHandler = (message: string) => void;

/**
 * Short messages to every instance of the deployment, this one included: a revoked token, a new
 * event to stream. Best effort: a message published while Redis is away is lost, so every user of
 * it keeps a backstop (a cache lifetime, a polling interval) and uses this only to be faster.
 */
export interface Broadcast {
  publish(topic: string, message: string): void;
  /** Returns the unsubscribe function. */
  subscribe(topic: string, handler: BroadcastHandler): () => void;
  close(): Promise<void>;
}

class Topics {
  private readonly handlers = new Map<string, Set<BroadcastHandler>>();

  add(topic: string, handler: BroadcastHandler): { first: boolean; remove: () => boolean } {
    let set = this.handlers.get(topic);
    const first = set === undefined;
    if (!set) this.handlers.set(topic, (set = new Set()));
    set.add(handler);
    return {
      first,
      remove: () => {
        set.delete(handler);
        if (set.size > 0) return false;
        this.handlers.delete(topic);
        return true;
      },
    };
  }

  deliver(topic: string, message: string, log?: LinkLogger): void {
    for (const handler of this.handlers.get(topic) ?? []) {
      try {
        handler(message);
      } catch (err) {
        log?.warn({ err, topic }, 'a broadcast handler failed');
      }
    }
  }
}

/** One process: messages reach this instance's subscribers only (the embedded setup). */
export class LocalBroadcast implements Broadcast {
  private readonly topics = new Topics();

  publish(topic: string, message: string): void {
    queueMicrotask(() => this.topics.deliver(topic, message));
  }

  subscribe(topic: string, handler: BroadcastHandler): () => void {
    const { remove } = this.topics.add(topic, handler);
    return () => void remove();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Redis pub/sub under the deployment's prefix. Publishing goes through the shared link (so a Redis
 * that is away costs nothing and is never waited on); subscribing needs a connection of its own,
 * which ioredis re-subscribes by itself after a reconnection.
 */
export class RedisBroadcast implements Broadcast {
  private readonly topics = new Topics();
  private readonly subscriber: Redis;

  constructor(
    private readonly link: RedisLink,
    private readonly prefix: string,
    private readonly log?: LinkLogger,
  ) {
    this.subscriber = link.client.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
    // the link already reports Redis going away; a second report per connection would be noise
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel.startsWith(this.channelPrefix)) {
        this.topics.deliver(channel.slice(this.channelPrefix.length), message, log);
      }
    });
  }

  /**
   * Resolves once the subscriber connection is up (or refused, or after a short wait), so that the
   * subscriptions made while the app is built are in place before it serves: a revocation published
   * by another instance just after start-up is not missed. Never throws.
   */
  connected(timeoutMs = 5000): Promise<void> {
    return firstAnswer(this.subscriber, timeoutMs);
  }

  private get channelPrefix(): string {
    return `${this.prefix}broadcast:`;
  }

  publish(topic: string, message: string): void {
    const sent = this.link.use(
      (client) => client.publish(this.channelPrefix + topic, message),
      () => 0,
      'open',
    );
    if (sent instanceof Promise) sent.catch(() => undefined);
  }

  subscribe(topic: string, handler: BroadcastHandler): () => void {
    const { first, remove } = this.topics.add(topic, handler);
    if (first) this.subscriber.subscribe(this.channelPrefix + topic).catch(() => undefined);
    return () => {
      if (remove()) this.subscriber.unsubscribe(this.channelPrefix + topic).catch(() => undefined);
    };
  }

  /** A subscriber has nothing to flush: it is cut at once, even from a Redis that stopped answering. */
  close(): Promise<void> {
    this.subscriber.disconnect();
    return Promise.resolve();
  }
}
