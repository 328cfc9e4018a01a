import type { AddressInfo } from 'node:net';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import type { Db } from '../../db/connect.js';
import { pingDatabase } from '../../db/ping.js';
import { errorsPlugin } from '../../http/errors.js';
import type { Metrics } from '../../http/metrics.js';
import { opsRoutes } from './routes.js';

export interface WorkerOpsOptions {
  port: number;
  host: string;
  metrics: Metrics;
  metricsToken?: string;
}

/**
 * `hub worker`'s operator endpoints on a port of their own (`WORKER_METRICS_PORT`): the same
 * `/health`, `/ready` and `/metrics` as the API's, answered the same way (problem+json errors,
 * `METRICS_TOKEN`), for the worker's own process: its poller, UDP ingest, webhook delivery and
 * process metrics, which a separate worker otherwise keeps to itself. No API route is served here.
 */
export async function startWorkerOps(
  db: Db,
  options: WorkerOpsOptions,
): Promise<{ port: number; close(): Promise<void> }> {
  const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
  await app.register(errorsPlugin);
  opsRoutes({
    pingDatabase: (timeoutMs) => pingDatabase(db.kysely, timeoutMs),
    metrics: options.metrics,
    ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
  })(app);
  await app.listen({ port: options.port, host: options.host });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}
