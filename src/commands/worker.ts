import { pino } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/connect.js';
import type { Broadcast } from '../http/broadcast.js';
import { createMetrics, type Metrics } from '../http/metrics.js';
import { ingestPipeline } from '../modules/ingest/pipeline.js';
import { startUdpIngest, type UdpIngest } from '../modules/ingest/udp.js';
import { serversRepo } from '../modules/servers/repo.js';
import { timeWindow } from '../modules/ingest/time-window.js';
import { startPoller } from '../modules/servers/poller/poller.js';
import { startCommandExpiry } from '../modules/servers/commands/queue/sweep.js';
import { eventsRepo } from '../modules/events/repo.js';
import { startEventSweep } from '../modules/events/sweep.js';
import { deliveriesRepo } from '../modules/webhooks/deliveries-repo.js';
import { announceCommits, onEventsAnnounced } from '../modules/events/wake.js';
import { startDeliveryWorker } from '../modules/webhooks/delivery/worker.js';
import { webhookDispatcher } from '../modules/webhooks/dispatch.js';
import { startWorkerOps, type WorkerOps } from '../modules/ops/worker-server.js';
import { exitOnSignal } from '../shutdown.js';
import { openBroadcast } from '../stores.js';
import { explainBindError, openDatabase, StartupError } from '../startup.js';

type WorkerConfig = Pick<
  Config,
  | 'INGEST_UDP_PORT'
  | 'INGEST_UDP_HOST'
  | 'INGEST_UDP_RECV_BUFFER'
  | 'INGEST_MAX_AGE_DAYS'
  | 'POLL_INTERVAL_MS'
  | 'POLL_TIMEOUT_MS'
  | 'POLL_OFFLINE_AFTER'
  | 'WEBHOOKS_ALLOW_PRIVATE_TARGETS'
  | 'WEBHOOK_CONCURRENCY'
  | 'WEBHOOK_ENDPOINT_CONCURRENCY'
>;

export interface BackgroundOptions {
  log: (msg: string, err?: unknown) => void;
  metrics?: Metrics;
  /**
   * Messages to every instance: events committed here (ingest, the poller, a disabled webhook) wake
   * the API's streams, and events committed anywhere wake webhook delivery (events/wake.ts). The
   * embedded worker shares the app's; `hub worker` opens its own.
   */
  broadcast: Broadcast;
  /**
   * A UDP port that cannot be bound: `fail` (the worker, whose job it is) throws a StartupError;
   * `warn` (the embedded worker of `hub serve`) logs one line and leaves the receiver off, so the API
   * still starts.
   */
  udpInUse: 'fail' | 'warn';
}

export interface Background {
  /** the UDP log receiver, when it is on: its port and the receive buffer the OS granted */
  udp: Pick<UdpIngest, 'port' | 'recvBufferBytes'> | null;
  stop(): Promise<void>;
}

/** The background side: the status poller (and heartbeat silence), the UDP log receiver, plugin command expiry and webhook delivery. */
export async function startBackground(
  config: WorkerConfig,
  db: Db,
  options: BackgroundOptions,
): Promise<Background> {
  const servers = serversRepo(db.kysely);
  let udp: UdpIngest | undefined;
  if (config.INGEST_UDP_PORT > 0) {
    try {
      udp = await startUdpIngest(
        servers,
        ingestPipeline(db, Date.now, timeWindow(config.INGEST_MAX_AGE_DAYS)),
        {
          port: config.INGEST_UDP_PORT,
          host: config.INGEST_UDP_HOST,
          recvBufferBytes: config.INGEST_UDP_RECV_BUFFER,
          onError: (err) => options.log('UDP log ingest failed', err),
          ...(options.metrics ? { metrics: options.metrics.ingest } : {}),
        },
      );
    } catch (err) {
      const line = explainBindError(err, {
        what: 'UDP log receiver',
        host: config.INGEST_UDP_HOST,
        port: config.INGEST_UDP_PORT,
        setting: 'INGEST_UDP_PORT; 0 turns the receiver off',
        hostSetting: 'INGEST_UDP_HOST',
      });
      if (options.udpInUse === 'fail' || !line) throw line ? new StartupError(line) : err;
      options.log(`${line}; the API runs without it`);
    }
  }
  const poller = startPoller(servers, {
    intervalMs: config.POLL_INTERVAL_MS,
    timeoutMs: config.POLL_TIMEOUT_MS,
    offlineAfter: config.POLL_OFFLINE_AFTER,
    onError: (err) => options.log('poller failed', err),
    ...(options.metrics ? { metrics: options.metrics.poll } : {}),
  });
  // events and webhook deliveries past the 30 days they are kept
  const sweep = startEventSweep([eventsRepo(db.kysely), deliveriesRepo(db.kysely)], {
    onError: (err) => options.log('event sweep failed', err),
  });
  const expiry = startCommandExpiry(db.kysely, options.broadcast, {
    onError: (err) => options.log('command expiry failed', err),
  });
  const stopAnnouncing = announceCommits(db.kysely, options.broadcast);
  const dispatcher = webhookDispatcher(db);
  const webhooks = startDeliveryWorker(db, {
    allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE_TARGETS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    perWebhook: config.WEBHOOK_ENDPOINT_CONCURRENCY,
    dispatch: (now) => dispatcher.dispatch(now),
    wakeUps: (listener) => onEventsAnnounced(options.broadcast, listener),
    onError: (err) => options.log('webhook delivery failed', err),
  });
  return {
    udp: udp ? { port: udp.port, recvBufferBytes: udp.recvBufferBytes } : null,
    // the receiver's close writes the lines it still buffers; sends in flight are recorded
    stop: async () => {
      await Promise.all([poller.stop(), udp?.close(), webhooks.stop(), sweep.stop(), expiry.stop()]);
      stopAnnouncing();
    },
  };
}

/** `hub worker`: runs the poller, the UDP receiver and webhook delivery until SIGINT/SIGTERM (scale-out setups). */
export async function workerCommand(config: Config): Promise<void> {
  const log = pino({ level: config.LOG_LEVEL });
  const db = await openDatabase(config.DATABASE_URL);
  const broadcast = await openBroadcast(config, { db: db.kysely, log });
  const metrics = createMetrics();
  let background: Background | undefined;
  let ops: WorkerOps | undefined;
  // what started, in the reverse order: on a signal, or when a later part fails to start
  const stop = async () => {
    await ops?.close();
    await background?.stop();
    await broadcast.close();
    await db.close();
  };
  try {
    background = await startBackground(config, db, {
      log: (msg, err) => log.error({ err }, msg),
      metrics,
      broadcast,
      udpInUse: 'fail',
    });
    if (config.WORKER_METRICS_PORT !== undefined)
      ops = await startWorkerOps(db, {
        port: config.WORKER_METRICS_PORT,
        host: config.HOST,
        metrics,
        ...(config.METRICS_TOKEN ? { metricsToken: config.METRICS_TOKEN } : {}),
        log,
      });
  } catch (err) {
    await stop();
    throw err;
  }
  exitOnSignal(stop, log);
  const { udp } = background;
  console.log(
    `hub worker: polling every ${config.POLL_INTERVAL_MS} ms` +
      (udp
        ? `; UDP logs on ${config.INGEST_UDP_HOST}:${udp.port}` +
          ` (receive buffer ${Math.round(udp.recvBufferBytes / 1024)} KiB)`
        : '; UDP logs off') +
      '; delivering webhooks' +
      (ops ? `; metrics on http://${config.HOST}:${ops.port}/metrics` : ''),
  );
}
