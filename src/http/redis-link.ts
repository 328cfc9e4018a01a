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
  /**
   * a reply slower than this is a timeout: counted, and waited out (the command still runs in Redis),
   * never a failure on its own; DOWN_AFTER_TIMEOUTS in a row with no reply in between are
   */
  commandTimeoutMs?: number;
  /** how many commands may wait past their timeout before more are answered alone (fallback) */
  maxOverdue?: number;
  /** how many instances share the quota now (the fleet heartbeat): the fail-open share is 1/this */
  fleetSize?: () => number;
  /** after a failed command, how long Redis is left alone before one request tries it again */
  pauseMs?: number;
  log?: LinkLogger;
  /** every change between ok and degraded (readiness, metrics), without this module importing them */
  onStateChange?: (health: StoreHealth) => void;
  /** every failed command or connection error (a metrics counter) */
  onFailure?: (error: Error) => void;
}

type State = 'connecting' | 'up' | 'down';

/**
 * Above the p99 of a Redis round trip under `npm run bench:quota`'s load, with margin: three instances
 * and a CPU hog on the 2-core machine measured 32.6 ms (p99) and 118 ms (max), so 3 × p99 = 100 ms;
 * 250 leaves room for a busier machine (docs/development.md). A slower reply is a timeout, but a
 * timeout alone judges nothing: see DOWN_AFTER_TIMEOUTS.
 */
export const DEFAULT_COMMAND_TIMEOUT_MS = 250;
/**
 * Consecutive timeouts (each one more `commandTimeoutMs` without any reply) after which Redis is
 * judged unreachable and the commands still waiting are answered from the fallback. A Redis that
 * answers, however slowly, keeps resetting the count.
 */
export const DOWN_AFTER_TIMEOUTS = 10;
const DEFAULT_MAX_OVERDUE = 1000;
/** Past this a command is abandoned whatever happens (a reply that never comes frees its memory). */
const HARD_TIMEOUT_MS = 10_000;
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
 * One Redis connection for the shared stores, with a circuit around it. Slow is not down: a reply
 * slower than `commandTimeoutMs` is waited out (the command runs in Redis anyway, so answering it
 * from the fallback would count it twice), and only DOWN_AFTER_TIMEOUTS timeouts in a row with no
 * reply in between, or a lost or refused connection, judge Redis unreachable. Then every command
 * still waiting is answered from the fallback, commands are not sent while disconnected (they fail
 * at once), and after a failure Redis is not tried again for `pauseMs` (unless its connection comes
 * back first). Meanwhile each store answers from its per-instance fallback (fail open: a share of
 * each limit, see `fleetSize`), or with 503 in fail-closed mode. At most `maxOverdue` commands wait
 * past their timeout: more are answered from the fallback at once, so a slow Redis never holds an
 * unbounded queue of requests. ioredis keeps reconnecting on its own; its errors are handled here,
 * so none reaches stderr as an unhandled `error` event, and the state changes are logged once each
 * way.
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
  private readonly timeoutMs: number;
  /** commands past their timeout, still waiting for their reply */
  private overdue = 0;
  /** when any command last had its reply */
  private lastReplyAt = 0;
  /** released (to their fallback) when Redis is judged unreachable */
  private readonly waiting = new Set<() => void>();

  constructor(private readonly options: RedisLinkOptions) {
    this.failureMode = options.failureMode ?? 'open';
    this.where = describe(options.url);
    this.timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.client = new Redis(options.url, {
      commandTimeout: Math.max(HARD_TIMEOUT_MS, this.timeoutMs * (DOWN_AFTER_TIMEOUTS + 1)),
      enableOfflineQueue: false,
      // a command caught by a dropped connection fails now instead of waiting for a reconnection
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: FIRST_CONNECT_MS,
      // at most half a second between attempts: counts are shared again within a second of Redis' return
      retryStrategy: (attempt) => Math.min(attempt * 100, 500),
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

  /** Redis answers: counts are shared (also false while connecting). */
  get isUp(): boolean {
    return this.state === 'up';
  }

  health(): StoreHealth {
    if (this.state === 'up') return { status: 'ok' };
    return { status: 'degraded', detail: `Redis at ${this.where}: ${this.detail}` };
  }

  /** The instances the fail-open share divides each limit by (1 without a heartbeat). */
  fleetSize(): number {
    return Math.max(1, this.options.fleetSize?.() ?? 1);
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
    if (!this.mayTry() || this.overdue >= (this.options.maxOverdue ?? DEFAULT_MAX_OVERDUE)) {
      return this.unavailable(fallback, mode);
    }
    const probe = this.state !== 'up';
    if (probe) this.probing = true;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let late = false;
      const finish = () => {
        settled = true;
        clearTimeout(timer);
        this.waiting.delete(release);
        if (late) this.overdue--;
        if (probe) this.probing = false;
      };
      const answerAlone = () => {
        try {
          resolve(this.unavailable(fallback, mode));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      };
      // Redis was judged unreachable while this command waited: answered like the ones after it
      const release = () => {
        if (settled) return;
        finish();
        answerAlone();
      };
      const sentAt = Date.now();
      const onTimeout = () => {
        if (!late) this.overdue++;
        late = true;
        // judged after this turn's I/O: a reply already read from the socket counts first
        setImmediate(() => {
          if (settled) return;
          // timeouts in a row with no reply to any command since this one was sent
          const silent = Date.now() - Math.max(sentAt, this.lastReplyAt);
          if (silent >= DOWN_AFTER_TIMEOUTS * this.timeoutMs) {
            this.fail(new Error(`no reply from Redis for ${silent} ms`));
            return;
          }
          timer = setTimeout(onTimeout, this.timeoutMs);
        });
      };
      let timer = setTimeout(onTimeout, this.timeoutMs);
      this.waiting.add(release);
      viaRedis(this.client).then(
        (value) => {
          this.lastReplyAt = Date.now();
          if (settled) return;
          finish();
          if (probe) this.up();
          resolve(value);
        },
        (error: unknown) => {
          if (settled) return;
          finish();
          this.fail(error instanceof Error ? error : new Error(String(error)));
          answerAlone();
        },
      );
    });
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
    // every command still waiting is answered from the fallback now, not after its own timeouts
    for (const release of [...this.waiting]) release();
    if (this.state === 'down' || this.closing) return;
    this.state = 'down';
    const instances = this.fleetSize();
    const consequence =
      this.failureMode === 'open'
        ? `quotas and sign-in throttles count per instance until it is back, each instance allowing 1/${instances} of every limit (${instances} instance${instances === 1 ? '' : 's'} last seen alive)`
        : 'keyed requests and sign-ins get 503 until it is back';
    this.options.log?.warn(
      { redis: this.where, reason: error.message, instances },
      `Redis is unreachable; ${consequence}`,
    );
    this.options.onStateChange?.(this.health());
  }
}
