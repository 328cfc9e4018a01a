import { HubConnectionError, HubTimeoutError } from './errors.js';
import { retryAfterMs } from './rate-limit.js';

/** What a caller may set per client and per call. */
export interface RequestSettings {
  /** retries after the first attempt (default 2); 0 turns retries off */
  maxRetries?: number;
  /** milliseconds each attempt may take, answer included (default 30 000; 0: no limit) */
  timeoutMs?: number;
  /** aborts the call (and its retries) */
  signal?: AbortSignal;
}

/** When to wait between attempts. */
export interface RetryTiming {
  /** the first backoff; doubled on each retry (default 500 ms) */
  initialDelayMs: number;
  /** the longest backoff (default 8 s) */
  maxDelayMs: number;
  /** a `Retry-After` or quota reset further away than this is not waited for: the error is thrown (default 60 s) */
  maxRetryAfterMs: number;
}

export const DEFAULT_TIMING: RetryTiming = { initialDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60_000 };
export const DEFAULT_SETTINGS = { maxRetries: 2, timeoutMs: 30_000 };

export interface TransportOptions {
  fetch: (request: Request, init?: RequestInit) => Promise<Response>;
  settings: { maxRetries: number; timeoutMs: number };
  timing: RetryTiming;
  /** sets the credentials of a request for its URL (awaits a token refresh when one is due) */
  authorize(request: Request): Promise<void>;
  /** after a 401: refreshes an OAuth token; true when the request is worth sending again */
  refreshAfter401(request: Request): Promise<boolean>;
  /** sees every answer (the rate-limit state is read here) */
  observe(response: Response): void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Statuses worth another attempt: the quota or the service asks to come back, or a gateway failed. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Sends a request with its credentials, a timeout per attempt and retries. A request is retried only
 * when sending it twice cannot do anything twice: a safe method, or a write carrying an
 * `Idempotency-Key` (the same key on every attempt, so the hub answers a repeat from its store).
 */
export class Transport {
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly options: TransportOptions) {
    this.sleep = options.sleep ?? abortableSleep;
    this.random = options.random ?? Math.random;
  }

  /** Exponential backoff with full jitter: a random wait up to initial × 2^attempt, capped. */
  backoff(attempt: number): number {
    const { initialDelayMs, maxDelayMs } = this.options.timing;
    const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** attempt);
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  async send(request: Request, settings: RequestSettings = {}): Promise<Response> {
    const maxRetries = settings.maxRetries ?? this.options.settings.maxRetries;
    const timeoutMs = settings.timeoutMs ?? this.options.settings.timeoutMs;
    const retryable = SAFE.has(request.method) || request.headers.has('idempotency-key');
    // A request without a body is sent as it is on every attempt (building a Request per call
    // costs more than the rest of the client); a body is read once and sent again on a retry.
    const body = request.body === null ? undefined : await request.arrayBuffer();
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const left = attempt < maxRetries;
      // 0: no timeout (a stream the caller times itself)
      const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
      const signals = [settings.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      const attemptRequest =
        body === undefined
          ? request
          : new Request(request.url, {
              method: request.method,
              headers: request.headers,
              body,
              redirect: request.redirect,
            });
      await this.options.authorize(attemptRequest);
      let response: Response;
      try {
        response = await this.options.fetch(attemptRequest, signal ? { signal } : undefined);
      } catch (error) {
        if (settings.signal?.aborted) throw error;
        const failure = timeout?.aborted
          ? new HubTimeoutError(`no answer within ${timeoutMs} ms: ${request.method} ${request.url}`, {
              cause: error,
            })
          : new HubConnectionError(`connection failed: ${request.method} ${request.url}`, { cause: error });
        if (!retryable || !left) throw failure;
        await this.sleep(this.backoff(attempt), settings.signal);
        continue;
      }
      this.options.observe(response);
      if (response.status === 401 && !refreshed && (await this.options.refreshAfter401(attemptRequest))) {
        // the token was refused before anything ran: sending again is safe for any method
        refreshed = true;
        await response.body?.cancel();
        attempt--;
        continue;
      }
      if (!RETRY_STATUSES.has(response.status) || !retryable || !left) return response;
      const asked = retryAfterMs(response.headers, response.status, Date.now());
      if (asked !== undefined && asked > this.options.timing.maxRetryAfterMs) return response;
      await response.body?.cancel();
      await this.sleep(asked ?? this.backoff(attempt), settings.signal);
    }
  }
}
