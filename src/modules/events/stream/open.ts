import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../config.js';
import type { Db } from '../../../db/connect.js';
import { redisPrefixFor, type StoresConfig } from '../../../stores.js';
import type { EventsRepo } from '../repo.js';
import { localEventSignal, redisEventSignal, type EventSignal } from './signal.js';
import { DEFAULT_STREAM_SETTINGS, EventStreams } from './streams.js';

type StreamConfig = StoresConfig &
  Partial<
    Pick<Config, 'EVENTS_STREAM_POLL_MS' | 'EVENTS_STREAM_HEARTBEAT_MS' | 'EVENTS_STREAM_MAX_BUFFER_BYTES'>
  >;

/**
 * The app's event streams and their wake-ups: the signal handed in (the embedded worker shares
 * the process's), else Redis pub/sub with REDIS_URL, else in-process. The app gets `eventSignal`
 * for emitters to call after commit; on close, streams end before the server waits for requests.
 */
export async function openEventStreams(
  app: FastifyInstance,
  deps: { db: Db; config: StreamConfig; eventSignal?: EventSignal },
  repo: EventsRepo,
): Promise<EventStreams> {
  const { config } = deps;
  let signal = deps.eventSignal;
  if (!signal) {
    const own = config.REDIS_URL
      ? await redisEventSignal({
          url: config.REDIS_URL,
          prefix: await redisPrefixFor(config, deps.db.kysely),
          onError: (err) =>
            app.log.warn({ err }, 'event wake-ups through Redis failed; streams poll meanwhile'),
        })
      : localEventSignal();
    app.addHook('onClose', () => own.close());
    signal = own;
  }
  const streams = new EventStreams(
    repo,
    signal,
    {
      pollMs: config.EVENTS_STREAM_POLL_MS ?? DEFAULT_STREAM_SETTINGS.pollMs,
      heartbeatMs: config.EVENTS_STREAM_HEARTBEAT_MS ?? DEFAULT_STREAM_SETTINGS.heartbeatMs,
      maxBufferedBytes: config.EVENTS_STREAM_MAX_BUFFER_BYTES ?? DEFAULT_STREAM_SETTINGS.maxBufferedBytes,
      catchUpPage: DEFAULT_STREAM_SETTINGS.catchUpPage,
    },
    (err) => app.log.error({ err }, 'event streams could not read the outbox'),
  );
  app.decorate('eventSignal', signal);
  app.addHook('preClose', () => streams.close());
  return streams;
}
