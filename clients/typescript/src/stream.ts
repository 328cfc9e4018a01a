import { HubConnectionError, HubDecodeError, HubTimeoutError, apiErrorOf } from './errors.js';
import { sseFrames } from './sse.js';
import type { Transport } from './transport.js';
import type { HubEvent } from './webhooks.js';

export interface EventStreamOptions {
  /** only events of these types */
  types?: readonly string[];
  /** start after this event id (a cursor you stored); without it the stream starts from now */
  after?: string;
  signal?: AbortSignal;
  /** milliseconds to wait for the answer's headers on each connection (default 30 000) */
  connectTimeoutMs?: number;
  /** a connection silent this long is dropped and reopened (default 45 000: the hub comments every 15 s) */
  idleTimeoutMs?: number;
  /** reconnections in a row that may fail before the iterator throws (default 10) */
  maxReconnects?: number;
}

/** The statuses after which reconnecting may work; any other error answer ends the stream. */
const TRANSIENT = new Set([429, 502, 503, 504]);
const PATH = '/v1/events/stream';

/**
 * The live event stream as an async iterator. It reconnects after a disconnect with
 * `Last-Event-ID` (the id of the last event it yielded), so the hub resends what was missed, and it
 * never yields an id it has yielded (ids are sortable: anything not after the last one is a repeat).
 */
export class EventStream implements AsyncIterable<HubEvent> {
  private last: string | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly transport: Transport,
    private readonly options: EventStreamOptions = {},
  ) {
    this.last = options.after;
  }

  /** The id of the last event yielded: store it to resume later with `after`. */
  get lastEventId(): string | undefined {
    return this.last;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<HubEvent> {
    let failures = 0;
    let delayMs = 1000;
    const maxReconnects = this.options.maxReconnects ?? 10;
    for (;;) {
      const connection = new AbortController();
      const signals = [connection.signal, ...(this.options.signal ? [this.options.signal] : [])];
      let idle: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(
          () => connection.abort(new HubTimeoutError('the stream went silent')),
          this.options.idleTimeoutMs ?? 45_000,
        );
      };
      try {
        arm();
        const response = await this.open(AbortSignal.any(signals));
        failures = 0;
        for await (const frame of sseFrames(response.body ?? new ReadableStream(), arm)) {
          if (frame.retry !== undefined) delayMs = frame.retry;
          if (frame.id === undefined || frame.data === '') continue;
          if (this.last !== undefined && frame.id <= this.last) continue;
          let event: HubEvent;
          try {
            event = JSON.parse(frame.data) as HubEvent;
          } catch (error) {
            throw new HubDecodeError(`event ${frame.id} is not JSON`, 200, { cause: error });
          }
          this.last = frame.id;
          yield event;
        }
        // the hub ended the stream (shutdown, slow reader): reconnect from the last id
      } catch (error) {
        if (this.options.signal?.aborted) return;
        if (!(
          error instanceof HubConnectionError ||
          error instanceof HubTimeoutError ||
          isNetworkError(error)
        ))
          throw error;
        if (++failures > maxReconnects) throw error;
      } finally {
        clearTimeout(idle);
        connection.abort();
      }
      await sleep(failures === 0 ? delayMs : Math.min(30_000, delayMs * 2 ** failures), this.options.signal);
    }
  }

  private async open(signal: AbortSignal): Promise<Response> {
    const url = new URL(PATH, this.baseUrl);
    if (this.options.types?.length) url.searchParams.set('types', this.options.types.join(','));
    const headers = new Headers({ accept: 'text/event-stream' });
    if (this.last !== undefined) headers.set('last-event-id', this.last);
    const connect = new AbortController();
    const timeoutMs = this.options.connectTimeoutMs ?? 30_000;
    const timer = setTimeout(
      () => connect.abort(new HubTimeoutError(`the stream did not open within ${timeoutMs} ms`)),
      timeoutMs,
    );
    let response: Response;
    try {
      // no timeout of the transport's: the answer stays open; the watchdogs here time it instead
      response = await this.transport.send(new Request(url, { headers }), {
        maxRetries: 0,
        timeoutMs: 0,
        signal: AbortSignal.any([signal, connect.signal]),
      });
    } finally {
      clearTimeout(timer);
    }
    if (response.ok) return response;
    const error = await apiErrorOf(response);
    if (TRANSIENT.has(response.status)) throw new HubConnectionError(error.message, { cause: error });
    throw error;
  }
}

const isNetworkError = (error: unknown): boolean =>
  error instanceof TypeError || (error instanceof DOMException && error.name === 'AbortError');

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
