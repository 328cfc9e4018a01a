import type { Config } from '../config.js';
import { connect, type Db } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { ingestPipeline } from '../modules/ingest/pipeline.js';
import { serversRepo } from '../modules/servers/repo.js';
import { startUdpIngest } from '../modules/ingest/udp.js';
import { timeWindow } from '../modules/ingest/time-window.js';
import { startPoller } from '../modules/servers/poller/poller.js';

type WorkerConfig = Pick<
  Config,
  | 'INGEST_UDP_PORT'
  | 'INGEST_UDP_HOST'
  | 'INGEST_MAX_AGE_DAYS'
  | 'POLL_INTERVAL_MS'
  | 'POLL_TIMEOUT_MS'
  | 'POLL_OFFLINE_AFTER'
>;

/** The background side of the data path: the status poller and the UDP log receiver. */
export async function startBackground(
  config: WorkerConfig,
  db: Db,
  log: (msg: string, err?: unknown) => void = (msg, err) => console.error(msg, err ?? ''),
): Promise<{ udpPort: number | null; stop(): Promise<void> }> {
  const servers = serversRepo(db.kysely);
  const poller = startPoller(servers, {
    intervalMs: config.POLL_INTERVAL_MS,
    timeoutMs: config.POLL_TIMEOUT_MS,
    offlineAfter: config.POLL_OFFLINE_AFTER,
    onError: (err) => log('poller failed', err),
  });
  // A busy UDP port must not stop the API: the receiver is reported and left off.
  const udp =
    config.INGEST_UDP_PORT > 0
      ? await startUdpIngest(servers, ingestPipeline(db, Date.now, timeWindow(config.INGEST_MAX_AGE_DAYS)), {
          port: config.INGEST_UDP_PORT,
          host: config.INGEST_UDP_HOST,
          onError: (err) => log('UDP log ingest failed', err),
        }).catch((err: unknown) => {
          log(`UDP log receiver not started on ${config.INGEST_UDP_HOST}:${config.INGEST_UDP_PORT}`, err);
          return undefined;
        })
      : undefined;
  return {
    udpPort: udp?.port ?? null,
    stop: async () => {
      await poller.stop();
      await udp?.close();
    },
  };
}

/** `hub worker`: runs the poller and the UDP receiver until SIGINT/SIGTERM (scale-out setups). */
export async function workerCommand(config: Config): Promise<void> {
  const db = connect(config.DATABASE_URL);
  await migrateToLatest(db);
  const background = await startBackground(config, db);
  console.log(
    `hub worker: polling every ${config.POLL_INTERVAL_MS} ms` +
      (background.udpPort
        ? `; UDP logs on ${config.INGEST_UDP_HOST}:${background.udpPort}`
        : '; UDP logs off'),
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void background
        .stop()
        .then(() => db.close())
        .then(() => process.exit(0));
    });
  }
}
