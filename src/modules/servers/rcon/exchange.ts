import { RconError } from './errors.js';

export interface Settle<T> {
  resolve(value: T): void;
  reject(error: RconError): void;
  /** False once the exchange has resolved or failed: late socket events are then ignored. */
  readonly open: boolean;
}

/**
 * Runs one request/response exchange over a socket bounded by `timeoutMs`. `start` opens the
 * socket, wires its events to `settle` and returns the function that closes it; that function
 * runs exactly once, whether the exchange succeeded, failed or timed out, so sockets never leak
 * and late events (an error after the timeout) cannot reject twice or go unhandled.
 */
export function boundedExchange<T>(
  timeoutMs: number,
  what: string,
  start: (settle: Settle<T>) => () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let open = true;
    let close: (() => void) | undefined;
    const finish = () => {
      open = false;
      clearTimeout(timer);
      try {
        close?.();
      } catch {
        // Closing an already broken socket can throw; the exchange is over either way.
      }
    };
    const settle: Settle<T> = {
      resolve(value) {
        if (!open) return;
        finish();
        resolve(value);
      },
      reject(error) {
        if (!open) return;
        finish();
        reject(error);
      },
      get open() {
        return open;
      },
    };
    const timer = setTimeout(() => {
      settle.reject(new RconError('timeout', `${what} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    try {
      close = start(settle);
    } catch (error) {
      // Not the thrown error's text, nor the error as a cause: it may quote what `start` was given,
      // the password included (WebRCON's password is its URL's path, and ws quotes a bad URL whole).
      settle.reject(
        error instanceof RconError
          ? error
          : new RconError('unreachable', `${what}: the connection could not be opened (${errorName(error)})`),
      );
    }
    if (!settle.open) close?.();
  });
}

const errorName = (error: unknown): string => (error instanceof Error ? error.name : typeof error);
