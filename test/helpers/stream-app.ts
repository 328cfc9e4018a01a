import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.js';
import { writeTransaction } from '../../src/db/write-transaction.js';
import { formatEventId } from '../../src/modules/events/event-id.js';
import { emitEvents, type NewEvent } from '../../src/modules/events/outbox.js';
import type { TestDb } from './db.js';

/**
 * Commits events as every emitter does (`writeTransaction`): the commit wakes the streams and the
 * delivery workers of every instance. Returns the event ids.
 */
export async function commitEvents(testDb: Pick<TestDb, 'db'>, events: NewEvent[]): Promise<string[]> {
  const ids = await writeTransaction(testDb.db.kysely, (trx) =>
    emitEvents(trx, testDb.db.dialect, events, Date.now()),
  );
  return ids.map(formatEventId);
}

/** An API instance on the test database, for the event stream tests (silent, no response cache). */
export const streamApp = (
  testDb: Pick<TestDb, 'db'>,
  config: Partial<AppDeps['config']> = {},
  accessTokens?: AppDeps['accessTokens'],
): Promise<FastifyInstance> =>
  buildApp({
    db: testDb.db,
    config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false, ...config },
    accessTokens,
  });

/** Listens on a free loopback port (inject() cannot follow a stream); returns the stream's URL. */
export async function listenForStream(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}/v1/events/stream`;
}
