import type { AddressInfo } from 'node:net';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/connect.js';
import { pingDatabase } from '../../db/ping.js';
import { errorsPlugin } from '../../http/errors.js';
import type { Metrics } from '../../http/metrics.js';
import { listenOrExplain } from '../../startup.js';
import { opsRoutes } from './routes.js';

export interface WorkerOpsOptions {
  port: number;
  host: string;
  metrics: Metrics;
  metricsToken?: string;
  /** the worker's logger: why /ready failed, and errors no answer shows */
  log: FastifyBaseLogger;
}

export interface WorkerOps {
  /** the port bound (the one asked for, or the system's choice for 0) */
  port: number;
  close(): Promise<void>;
}

/**
 * `hub worker`'s operator endpoints on a port of their own (`WORKER_METRICS_PORT`): the same
 * `/health`, `/ready` and `/metrics` as the API's, answered the same way (problem+json errors,
 * `METRICS_TOKEN`), for the worker's own process: its poller, UDP ingest, webhook delivery and
 * process metrics, which a separate worker otherwise keeps to itself. No API route is served here.
 * A port that cannot be bound is a StartupError (one line, exit 1), as for the API's (server.ts).
 */
export async function startWorkerOps(db: Db, options: WorkerOpsOptions): Promise<WorkerOps> {
  const app = Fastify({
    loggerInstance: options.log,
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<TypeBoxTypeProvider>();
  await app.register(errorsPlugin);
  opsRoutes({
    pingDatabase: (timeoutMs) => pingDatabase(db.kysely, timeoutMs),
    metrics: options.metrics,
    ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
  })(app);
  await listenOrExplain(app, {
    what: 'worker metrics',
    host: options.host,
    port: options.port,
    setting: 'WORKER_METRICS_PORT; leave it unset for none',
    hostSetting: 'HOST',
  });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}
