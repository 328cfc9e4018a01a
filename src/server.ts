import type { FastifyInstance, FastifyRequest } from 'fastify';
import { buildApp } from './app.js';
import { listenOrExplain } from './startup.js';
import type { Config } from './config.js';
import type { Db } from './db/connect.js';
import type { Metrics } from './http/metrics.js';
import type { SecretKey } from './engines/secret-box.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /**
   * Stops taking connections and waits for the requests in flight (at most SHUTDOWN_GRACE_MS, then
   * their connections are cut), then runs the app's close hooks (buffered usage counts are written,
   * the Redis link closed). The database stays open: the caller closes it last.
   */
  close(): Promise<void>;
}

/** Builds the app and listens; a port that cannot be bound is a StartupError (one line, exit 1). */
export async function startServer(
  config: Config,
  db: Db,
  options: {
    metrics?: Metrics;
    secretKey?: SecretKey;
    quietAccessLog?: (request: FastifyRequest) => boolean;
  } = {},
): Promise<RunningServer> {
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const local = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}`;
  const app = await buildApp({
    db,
    config,
    issuer: config.PUBLIC_BASE_URL ?? `${local}:${config.PORT}`,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.secretKey ? { secretKey: options.secretKey } : {}),
    ...(options.quietAccessLog ? { quietAccessLog: options.quietAccessLog } : {}),
  });
  await listenOrExplain(app, {
    what: 'HTTP',
    host: config.HOST,
    port: config.PORT,
    setting: 'PORT',
    hostSetting: 'HOST',
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `${local}:${port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const grace = setTimeout(() => {
        app.log.warn(
          { graceMs: config.SHUTDOWN_GRACE_MS },
          'requests still running at the end of the grace period: closing their connections',
        );
        app.server.closeAllConnections();
      }, config.SHUTDOWN_GRACE_MS);
      try {
        await app.close();
      } finally {
        clearTimeout(grace);
      }
    })());
  return { app, url, close };
}
