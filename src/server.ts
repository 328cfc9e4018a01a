import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import type { Db } from './db/connect.js';
import { MemoryRateLimitStore, type RateLimitStore } from './http/rate-limit-store.js';
import { RedisRateLimitStore } from './http/redis-rate-limit-store.js';

/** In-process counters by default; Redis when REDIS_URL is set, so every instance shares quotas. */
export function rateLimitStoreFor(config: Pick<Config, 'REDIS_URL'>): RateLimitStore {
  return config.REDIS_URL ? new RedisRateLimitStore(config.REDIS_URL) : new MemoryRateLimitStore();
}

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  stop(): Promise<void>;
}

/** Listens and installs graceful shutdown: in-flight requests finish, then the database closes. */
export async function startServer(config: Config, db: Db): Promise<RunningServer> {
  const app = await buildApp({ db, config, rateLimitStore: rateLimitStoreFor(config) });
  await app.listen({ port: config.PORT, host: config.HOST });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await app.close();
      await db.close();
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.log.info({ signal }, 'shutting down');
      stop().then(
        () => process.exit(0),
        (err: unknown) => {
          app.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  return { app, url, stop };
}
