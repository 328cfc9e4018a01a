import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import type { Db } from './db/connect.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  stop(): Promise<void>;
}

/** Listens and installs graceful shutdown: in-flight requests finish, then the database closes. */
export async function startServer(config: Config, db: Db): Promise<RunningServer> {
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const local = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}`;
  const app = await buildApp({ db, config, issuer: config.PUBLIC_BASE_URL ?? `${local}:${config.PORT}` });
  await app.listen({ port: config.PORT, host: config.HOST });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `${local}:${port}`;

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
