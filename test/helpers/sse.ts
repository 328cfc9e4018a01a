import { request, type IncomingMessage } from 'node:http';

/** One thing read from an event stream: an event frame, or a comment line. */
export type SseItem =
  | {
      kind: 'event';
      id: string;
      event: string;
      data: { id: string; type: string; data: Record<string, unknown> };
    }
  | { kind: 'comment'; text: string };

export interface SseClient {
  response: IncomingMessage;
  /** the next item (events and comments, in order), or a failure after `timeoutMs` */
  next(timeoutMs?: number): Promise<SseItem>;
  /** the next event frame, skipping comments */
  nextEvent(timeoutMs?: number): Promise<Extract<SseItem, { kind: 'event' }>>;
  /** resolves when the server ends the stream */
  ended: Promise<void>;
  /** drops the connection (as a client that goes away) */
  close(): void;
}

/**
 * A minimal SSE reader over a real socket (inject() waits for the end of a response, and a stream
 * does not end): parses frames as EventSource does, keeps comments so tests can see heartbeats.
 */
export function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      const items: SseItem[] = [];
      const waiting: (() => void)[] = [];
      let buffer = '';
      let done = false;
      const wakeAll = () => {
        for (const wake of waiting.splice(0)) wake();
      };
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) items.push({ kind: 'comment', text: line.slice(1).trim() });
            else {
              const at = line.indexOf(':');
              const name = at === -1 ? line : line.slice(0, at);
              fields[name] = at === -1 ? '' : line.slice(at + 1).replace(/^ /, '');
            }
          }
          if (fields.data !== undefined)
            items.push({
              kind: 'event',
              id: fields.id ?? '',
              event: fields.event ?? 'message',
              data: JSON.parse(fields.data) as Extract<SseItem, { kind: 'event' }>['data'],
            });
        }
        wakeAll();
      });
      const ended = new Promise<void>((resolveEnd) => {
        const finish = () => {
          done = true;
          wakeAll();
          resolveEnd();
        };
        response.on('end', finish);
        response.on('close', finish);
      });
      const next = async (timeoutMs = 5000): Promise<SseItem> => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const item = items.shift();
          if (item) return item;
          if (done) throw new Error('the stream ended');
          const left = deadline - Date.now();
          if (left <= 0) throw new Error(`nothing on the stream within ${timeoutMs} ms`);
          await new Promise<void>((wake) => {
            const timer = setTimeout(wake, left);
            waiting.push(() => {
              clearTimeout(timer);
              wake();
            });
          });
        }
      };
      resolve({
        response,
        next,
        nextEvent: async (timeoutMs = 5000) => {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const item = await next(Math.max(1, deadline - Date.now()));
            if (item.kind === 'event') return item;
          }
        },
        ended,
        close: () => {
          req.destroy();
          response.destroy();
        },
      });
    });
    req.on('error', reject);
    req.end();
  });
}
