import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/types.js';
import type { Config } from '../../../config.js';
import type { Broadcast } from '../../../http/broadcast.js';
import type { EventsRepo } from '../repo.js';
import { announceCommits, onEventsAnnounced } from '../wake.js';
import type { WakeUps } from './hub.js';
import { DEFAULT_STREAM_SETTINGS, EventStreams } from './streams.js';

type StreamConfig = Partial<
  Pick<Config, 'EVENTS_STREAM_POLL_MS' | 'EVENTS_STREAM_HEARTBEAT_MS' | 'EVENTS_STREAM_MAX_BUFFER_BYTES'>
>;

/**
 * The app's event streams, woken through the app's broadcast (Redis pub/sub with REDIS_URL, else
 * in-process: src/http/broadcast.ts) whenever events are committed on any instance, this one's
 * commits included (announced from here on). The topic is subscribed now, while the app is built,
 * so the subscription is in place before it serves; the hub (started by the first stream) listens
 * to it here. On close, streams end before the server waits for requests.
 */
export function openEventStreams(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; config: StreamConfig; broadcast: Broadcast },
  repo: EventsRepo,
): EventStreams {
  const { config } = deps;
  const stopAnnouncing = announceCommits(deps.db, deps.broadcast);
  const listeners = new Set<() => void>();
  const unsubscribe = onEventsAnnounced(deps.broadcast, () => {
    for (const listener of listeners) listener();
  });
  const wakeUps: WakeUps = (listener) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  const streams = new EventStreams(
    repo,
    wakeUps,
    {
      pollMs: config.EVENTS_STREAM_POLL_MS ?? DEFAULT_STREAM_SETTINGS.pollMs,
      heartbeatMs: config.EVENTS_STREAM_HEARTBEAT_MS ?? DEFAULT_STREAM_SETTINGS.heartbeatMs,
      maxBufferedBytes: config.EVENTS_STREAM_MAX_BUFFER_BYTES ?? DEFAULT_STREAM_SETTINGS.maxBufferedBytes,
      catchUpPage: DEFAULT_STREAM_SETTINGS.catchUpPage,
    },
    (err) => app.log.error({ err }, 'event streams could not read the outbox'),
  );
  app.addHook('onClose', async () => stopAnnouncing());
  app.addHook('preClose', async () => {
    unsubscribe();
    await streams.close();
  });
  return streams;
}
