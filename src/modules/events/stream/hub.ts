import type { EventsRepo, OutboxEvent } from '../repo.js';

/** A connection fed by the hub: handed every event read, in order, once each. */
export interface HubSubscriber {
  deliver(events: readonly OutboxEvent[]): void;
}

/** Subscribes a listener to the wake-ups (events committed, here or elsewhere); returns the unsubscribe. */
export type WakeUps = (listener: () => void) => () => void;

export interface HubOptions {
  /** how often the outbox is read without a wake-up (a lost wake-up delays by at most this) */
  pollMs: number;
  /** events read per query */
  batch?: number;
  onError: (err: unknown) => void;
}

const DEFAULT_BATCH = 500;

/**
 * One reader of the outbox per process, fanning out to every stream connection: one query per
 * wake-up or poll whatever the number of clients (each connection filters by its reader and types
 * in memory). `position` is the outbox position read through: every event up to it has been
 * handed to every subscriber that was there when it was read; a subscriber added now receives
 * every event after it. Started by the first stream; idle (one `max(id)` per poll) with none.
 */
export class EventHub {
  private cursor = 0;
  private readonly subscribers = new Set<HubSubscriber>();
  private starting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private closed = false;

  constructor(
    private readonly repo: Pick<EventsRepo, 'allAfter' | 'latest'>,
    private readonly wakeUps: WakeUps,
    private readonly options: HubOptions,
  ) {}

  get position(): number {
    return this.cursor;
  }

  get size(): number {
    return this.subscribers.size;
  }

  /**
   * Reads the newest position once, then follows wake-ups and the poll timer. A start that failed
   * (the outbox could not be read) is tried again by the next stream, not kept failing for good.
   */
  start(): Promise<void> {
    return (this.starting ??= (async () => {
      this.cursor = await this.repo.latest();
      if (this.closed) return;
      this.unsubscribe = this.wakeUps(() => this.wake());
      this.timer = setInterval(() => this.wake(), this.options.pollMs);
      this.timer.unref();
    })().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    }));
  }

  add(subscriber: HubSubscriber): void {
    this.subscribers.add(subscriber);
  }

  remove(subscriber: HubSubscriber): void {
    this.subscribers.delete(subscriber);
  }

  /** Reads the outbox now (or right after the read under way, which may have missed the news). */
  wake(): void {
    if (this.closed || this.starting === undefined) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readAll()
      .catch((err: unknown) => this.options.onError(err))
      .finally(() => {
        this.reading = undefined;
        if (this.readAgain) {
          this.readAgain = false;
          this.wake();
        }
      });
  }

  private async readAll(): Promise<void> {
    const batch = this.options.batch ?? DEFAULT_BATCH;
    for (;;) {
      if (this.subscribers.size === 0) {
        // Nobody to tell: skip ahead without reading the events. Only if still nobody after the
        // query, since a subscriber added meanwhile is owed every event after the old position.
        const latest = await this.repo.latest();
        if (this.size === 0) this.cursor = Math.max(this.cursor, latest);
        return;
      }
      const events = await this.repo.allAfter(this.cursor, batch);
      const last = events.at(-1);
      if (!last) return;
      this.cursor = last.position;
      for (const subscriber of this.subscribers) subscriber.deliver(events);
      if (events.length < batch || this.closed) return;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    this.subscribers.clear();
    await this.reading;
  }
}
