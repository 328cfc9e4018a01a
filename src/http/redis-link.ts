import { Redis } from 'ioredis';
import { ProblemError } from './problem.js';
import type { StoreHealth } from './rate-limit-store.js';

/** With Redis unreachable: `open` runs the caller's per-instance fallback, `closed` answers 503. */
export type StoreFailureMode = 'open' | 'closed';

/** Where the link reports that Redis went away or came back (the app's pino logger fits). */
export interface LinkLogger {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface RedisLinkOptions {
  url: string;
  failureMode?: StoreFailureMode;
  /** a command slower than this counts as a failure */
  commandTimeoutMs?: number;
  /** after a failed command, how long Redis is left alone before one request tries it again */
  pauseMs?: number;
  log?: LinkLogger;
  /** every change between ok and degraded (readiness, metrics), without this module importing them */
  onStateChange?: (health: StoreHealth) => void;
  /** every failed command or connection error (a metrics counter) */
  onFailure?: (error: Error) => void;
}

type State = 'connecting' | 'up' | 'down';

const DEFAULT_COMMAND_TIMEOUT_MS = 50;
const DEFAULT_PAUSE_MS = 1000;
/**
 * How long start-up waits for a first connection that is neither made nor refused (a host that
 * does not answer) before going on without Redis. Generous: a busy machine can take seconds.
 */
const FIRST_CONNECT_MS = 10_000;

/** host:port only: a redis:// URL may carry a password. */
const describe = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return 'redis';
  }
};

/**
 * Resolves when `client` is ready, or is refused (a refused connection is an answer too: start-up
 * does not wait out the timer for it), or after `timeoutMs`: never throws.
 */
export function firstAnswer(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done).off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    client.on('ready', done).on('error', done);
  });
}

/**
 * One Redis connection for the shared stores, with a circuit around it. A request never waits on a
 * Redis that is away: commands are not queued while disconnected (they fail at once), a command
 * that takes longer than `commandTimeoutMs` fails, and after a failure Redis is not tried again for
 * `pauseMs` (unless its connection comes back first). Meanwhile each store answers from its
 * per-instance fallback, or with 503 in fail-closed mode. ioredis keeps reconnecting on its own; its
 * errors are handled here, so none reaches stderr as an unhandled `error` event, and the state
 * changes are logged once each way.
 */
export class RedisLink {
  readonly client: Redis;
  readonly failureMode: StoreFailureMode;
  private state: State = 'connecting';
  private detail = 'connecting';
  private pausedUntil = 0;
  private probing = false;
  private closing: Promise<void> | undefined;
  private readonly where: string;

  constructor(private readonly options: RedisLinkOptions) {
    this.failureMode = options.failureMode ?? 'open';
    this.where = describe(options.url);
    this.client = new Redis(options.url, {
      commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      enableOfflineQueue: false,
      // a command caught by a dropped connection fails now instead of waiting for a reconnection
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: FIRST_CONNECT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    this.client.on('ready', () => {
      this.up();
    });
    this.client.on('error', (error: Error) => {
      this.fail(error);
    });
    this.client.on('close', () => {
      if (!this.closing && this.state === 'up') this.fail(new Error('connection closed'));
    });
  }

  /** Resolves once connected, or refused, or after a short wait: never throws. */
  async connected(): Promise<void> {
    await firstAnswer(this.client, FIRST_CONNECT_MS);
    if (this.state === 'connecting') this.fail(new Error('no connection at start-up'));
  }

  health(): StoreHealth {
    return this.state === 'up'
      ? { status: 'ok' }
      : { status: 'degraded', detail: `Redis at ${this.where}: ${this.detail}` };
  }

  /**
   * `viaRedis` while Redis answers. Otherwise, at once: `fallback` when failing open, a 503 problem
   * when failing closed (`mode` overrides the link's mode for best-effort calls such as a refund).
   */
  use<T>(
    viaRedis: (client: Redis) => Promise<T>,
    fallback: () => T,
    mode: StoreFailureMode = this.failureMode,
  ): T | Promise<T> {
    if (!this.mayTry()) return this.unavailable(fallback, mode);
    const probe = this.state !== 'up';
    if (probe) this.probing = true;
    return viaRedis(this.client).then(
      (value) => {
        if (probe) {
          this.probing = false;
          this.up();
        }
        return value;
      },
      (error: unknown) => {
        if (probe) this.probing = false;
        this.fail(error instanceof Error ? error : new Error(String(error)));
        return this.unavailable(fallback, mode);
      },
    );
  }

  close(): Promise<void> {
    return (this.closing ??= (async () => {
      if (this.client.status === 'ready') await this.client.quit().catch(() => undefined);
      this.client.disconnect();
    })());
  }

  /** Connected, and either known good or due for one probe after a pause. */
  private mayTry(): boolean {
    if (this.client.status !== 'ready') return false;
    if (this.state === 'up') return true;
    return !this.probing && Date.now() >= this.pausedUntil;
  }

  private unavailable<T>(fallback: () => T, mode: StoreFailureMode): T {
    if (mode === 'open') return fallback();
    const seconds = Math.max(1, Math.ceil((this.options.pauseMs ?? DEFAULT_PAUSE_MS) / 1000));
    throw new ProblemError(
      'service_unavailable',
      'The shared rate-limit store is unreachable, so requests are refused for now; retry shortly.',
      { headers: { 'retry-after': String(seconds) } },
    );
  }

  private up(): void {
    const was = this.state;
    this.state = 'up';
    this.detail = 'ok';
    if (was === 'up') return;
    if (was === 'down')
      this.options.log?.info({ redis: this.where }, 'Redis is reachable again; counters are shared');
    this.options.onStateChange?.(this.health());
  }

  private fail(error: Error): void {
    this.options.onFailure?.(error);
    this.pausedUntil = Date.now() + (this.options.pauseMs ?? DEFAULT_PAUSE_MS);
    this.detail = error.message;
    if (this.state === 'down' || this.closing) return;
    this.state = 'down';
    const consequence =
      this.failureMode === 'open'
        ? 'quotas and sign-in throttles count per instance until it is back'
        : 'keyed requests and sign-ins get 503 until it is back';
    this.options.log?.warn(
      { redis: this.where, reason: error.message },
      `Redis is unreachable; ${consequence}`,
    );
    this.options.onStateChange?.(this.health());
  }
}
