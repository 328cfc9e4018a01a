import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

const SEVERITY: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

/**
 * A request's logger that becomes a real child logger (bound to the request id) only when a line is
 * written at an enabled level. Fastify builds one child per request; a pino child (bindings
 * serialised, level methods set up) takes about a microsecond, a measurable share of a cached
 * response, and most requests never log anything but the access line, which the root logger writes.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  #made(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  #write(method: Method, args: unknown[]): void {
    if ((SEVERITY[method] ?? 0) < (SEVERITY[this.level] ?? 0)) return;
    const child = this.#made();
    const log: (...line: unknown[]) => void = child[method];
    log.apply(child, args);
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {
    // nothing is ever written at level silent
  }
}

/**
 * Fastify's `childLoggerFactory`: request loggers are children of `root`, made on first use. The app
 * gives Fastify no logger of its own (see app.ts), so the parent Fastify passes in is its no-op one.
 */
export const lazyChildLoggerFactory =
  (root: FastifyBaseLogger): NonNullable<FastifyServerOptions['childLoggerFactory']> =>
  (_parent, bindings, options) =>
    new LazyChildLogger(root, bindings, options);
