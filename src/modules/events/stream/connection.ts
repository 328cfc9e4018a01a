import { PassThrough } from 'node:stream';
import { formatEventId } from '../event-id.js';
import { mayRead, type EventReader } from '../audience.js';
import type { EventObject, EventsRepo, OutboxEvent } from '../repo.js';
import type { EventHub, HubSubscriber } from './hub.js';

export interface StreamLimits {
  /** a comment line this often, so proxies keep the connection and clients notice a dead one */
  heartbeatMs: number;
  /**
   * bytes a client may leave unread: beyond it the connection is closed with a final comment and
   * the client resumes from its last id (a slow client never makes the server buffer without bound)
   */
  maxBufferedBytes: number;
  /** events read per query while catching up from `Last-Event-ID` */
  catchUpPage: number;
}

/** Frames already built: the hub hands the same event object to every connection. */
const frames = new WeakMap<EventObject, string>();

/**
 * One SSE frame: `id` is the event id (the resume cursor), `event` its type, `data` the object.
 * Serialised once per event, however many connections send it.
 */
const sseFrame = (event: EventObject): string => {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    frames.set(event, frame);
  }
  return frame;
};

/** A comment line (ignored by EventSource, seen by curl). */
const comment = (text: string): string => `: ${text}\n\n`;

/** Events waiting while a connection catches up, in hub batches (bounded by `maxBufferedBytes`). */
type Backlog = OutboxEvent[][];

/**
 * One client of `GET /v1/events/stream`. It joins the hub first and keeps what the hub hands it
 * meanwhile, then reads the outbox from its cursor up to where the hub was when it joined, then
 * sends the kept batches: every event after the cursor exactly once (positions at or below the
 * last one sent are skipped), in order, with no gap between the catch-up and the live part.
 */
export class StreamConnection implements HubSubscriber {
  readonly body = new PassThrough();
  private position: number;
  private backlog: Backlog | undefined = [];
  private backlogSize = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly deps: { hub: EventHub; repo: Pick<EventsRepo, 'after'> },
    private readonly reader: EventReader,
    private readonly types: ReadonlySet<string> | undefined,
    /** outbox position to send after; undefined: from now */
    after: number | undefined,
    private readonly limits: StreamLimits,
  ) {
    this.position = after ?? 0;
    this.fromNow = after === undefined;
    this.body.on('close', () => this.stop());
  }

  private readonly fromNow: boolean;

  /** Writes the opening lines, catches up, then follows the hub until the client or server ends it. */
  async open(): Promise<void> {
    const { hub } = this.deps;
    try {
      await hub.start();
      if (this.ended) return;
      hub.add(this);
      const joinedAt = hub.position;
      if (this.fromNow) this.position = joinedAt;
      this.write(`retry: 1000\n${comment(`stream open after ${formatEventId(this.position)}`)}`);
      this.heartbeat = setInterval(() => this.write(comment('heartbeat')), this.limits.heartbeatMs);
      this.heartbeat.unref();
      while (this.isOpen() && this.position < joinedAt) {
        const page = await this.deps.repo.after({
          after: this.position,
          ...(this.types ? { types: [...this.types] } : {}),
          limit: this.limits.catchUpPage,
          reader: this.reader,
        });
        for (const { position, event } of page) {
          if (!this.isOpen()) break;
          await this.sendPaced(position, event);
        }
        if (page.length < this.limits.catchUpPage) break;
      }
    } catch (err) {
      // ended with a comment, so the client reconnects instead of waiting on a stream that never sends
      this.close('the stream could not read the outbox; reconnect with Last-Event-ID');
      throw err;
    }
    const backlog = this.backlog ?? [];
    this.backlog = undefined;
    for (const batch of backlog) this.deliver(batch);
  }

  deliver(events: readonly OutboxEvent[]): void {
    if (this.ended) return;
    if (this.backlog) {
      this.backlog.push([...events]);
      this.backlogSize += events.length;
      // a catch-up that cannot keep up with the live flow: the client resumes later instead
      if (this.backlogSize > this.limits.catchUpPage * 20) this.close('catching up took too long; reconnect');
      return;
    }
    for (const row of events) {
      if (row.position <= this.position) continue;
      if (this.types && !this.types.has(row.event.type)) continue;
      if (!mayRead(this.reader, row)) continue;
      this.send(row.position, row.event);
      if (!this.isOpen()) return;
    }
  }

  /** (a method: a send may end the connection, and a property check would be narrowed away) */
  private isOpen(): boolean {
    return !this.ended;
  }

  /**
   * A catch-up send: the next event is written once the client has taken the ones before (the
   * body drained), so a reader catching up is paced by its own speed and not cut as a slow one.
   * Cutting it was the alternative: a page written at once outruns any client, which then waited
   * its reconnection delay every megabyte. Live events meanwhile wait in the backlog, which is
   * bounded: a catch-up that cannot keep up with the live flow still ends (`deliver`).
   */
  private async sendPaced(position: number, event: EventObject): Promise<void> {
    this.position = position;
    if (this.ended || this.body.write(sseFrame(event))) return;
    await new Promise<void>((resolve) => {
      const go = () => {
        this.body.off('drain', go);
        this.body.off('close', go);
        resolve();
      };
      this.body.on('drain', go);
      this.body.on('close', go);
    });
  }

  private send(position: number, event: EventObject): void {
    this.position = position;
    this.write(sseFrame(event));
    const buffered = this.body.writableLength + this.body.readableLength;
    if (buffered > this.limits.maxBufferedBytes)
      this.close(
        `the client reads too slowly (${buffered} bytes unread): closing; reconnect with Last-Event-ID: ${formatEventId(position)}`,
      );
  }

  private write(text: string): void {
    if (!this.ended) this.body.write(text);
  }

  /**
   * Ends the stream after a last comment (what is already queued is still sent first). A client
   * that does not read even that within a heartbeat period has its connection cut.
   */
  close(reason: string): void {
    if (this.ended) return;
    this.body.end(comment(reason));
    this.stop();
    setTimeout(() => this.body.destroy(), this.limits.heartbeatMs).unref();
  }

  private stop(): void {
    this.ended = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.deps.hub.remove(this);
  }
}
