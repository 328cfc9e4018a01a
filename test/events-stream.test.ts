import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { connect, type Db } from '../src/db/connect.js';
import { writeTransaction } from '../src/db/write-transaction.js';
import { formatEventId } from '../src/modules/events/event-id.js';
import { emitEvents, type NewEvent } from '../src/modules/events/outbox.js';
import { announceEvents, onEventsAnnounced } from '../src/modules/events/wake.js';
import { eventsRepo, type EventsRepo, type OutboxEvent } from '../src/modules/events/repo.js';
import { startEventSweep } from '../src/modules/events/sweep.js';
import { EventHub } from '../src/modules/events/stream/hub.js';
import { EventStreams } from '../src/modules/events/stream/streams.js';
import { LocalBroadcast } from '../src/http/broadcast.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { sharedRedisUrl } from './helpers/redis.js';
import { openSse, type SseClient } from './helpers/sse.js';
import { commitEvents, listenForStream, streamApp } from './helpers/stream-app.js';

/** Commits events in a transaction the wake-ups cannot see: only a poll finds them. */
async function emitUnannounced(testDb: TestDb, events: NewEvent[]): Promise<string[]> {
  const ids = await testDb.db.kysely
    .transaction()
    .execute((trx) => emitEvents(trx, testDb.db.dialect, events, Date.now()));
  return ids.map(formatEventId);
}

describe('event hub: one outbox read per wake-up, whatever the number of connections', () => {
  it('reads once for 200 subscribers and hands each the same batch', async () => {
    let reads = 0;
    const rows: OutboxEvent[] = [1, 2, 3].map((position) => ({
      position,
      event: { id: formatEventId(position), type: 'test.hub', created_at: '', data: {} },
      type: 'test.hub',
      userId: null,
      appId: null,
      scope: null,
    }));
    const repo: Pick<EventsRepo, 'allAfter' | 'latest'> = {
      latest: () => Promise.resolve(0),
      allAfter: (after) => {
        reads++;
        return Promise.resolve(rows.filter((r) => r.position > after));
      },
    };
    const broadcast = new LocalBroadcast();
    const hub = new EventHub(repo, (wake) => onEventsAnnounced(broadcast, wake), {
      pollMs: 60_000,
      onError: (err) => assert.fail(String(err)),
    });
    await hub.start();
    const got: number[][] = [];
    for (let i = 0; i < 200; i++) {
      const mine: number[] = [];
      got.push(mine);
      hub.add({ deliver: (events) => mine.push(...events.map((e) => e.position)) });
    }
    announceEvents(broadcast);
    announceEvents(broadcast);
    await sleep(20);
    // one read that found the events, one (coalesced) re-read for the second wake-up
    assert.ok(reads <= 2, `${reads} reads`);
    for (const mine of got) assert.deepEqual(mine, [1, 2, 3]);
    assert.equal(hub.position, 3);
    await hub.close();
  });
});

describe('event streams: the outbox unreadable when the first stream opens', () => {
  it('ends that stream with a comment, and the next stream starts the hub again', async () => {
    let latestCalls = 0;
    const repo: Pick<EventsRepo, 'after' | 'allAfter' | 'latest'> = {
      latest: () => (++latestCalls === 1 ? Promise.reject(new Error('database away')) : Promise.resolve(0)),
      allAfter: () => Promise.resolve([]),
      after: () => Promise.resolve([]),
    };
    const streams = new EventStreams(
      repo,
      () => () => undefined,
      { pollMs: 60_000, heartbeatMs: 60_000, maxBufferedBytes: 1 << 20, catchUpPage: 10 },
      (err) => assert.fail(String(err)),
    );
    const reader = { userId: null, appId: null, keyOwnerId: null, scopes: new Set<string>() };
    /** everything the stream sends until it ends (a stream left open fails after 2 s) */
    const read = async (body: Readable) => {
      const timer = setTimeout(() => body.destroy(new Error('the stream was left open')), 2000);
      let text = '';
      for await (const chunk of body) text += String(chunk);
      clearTimeout(timer);
      return text;
    };
    const first = streams.connect(reader, undefined, undefined);
    await assert.rejects(first.open(), /database away/);
    // the client is told to come back, instead of waiting on an open stream that never sends
    assert.match(await read(first.body), /^: .*reconnect/);
    const second = streams.connect(reader, undefined, undefined);
    await second.open();
    const opened = second.body.read() as Buffer | null;
    assert.match(String(opened), /^retry: 1000\n: stream open after evt_0000000000000000/);
    await streams.close();
  });
});

for (const dialect of testDialects()) {
  describe(`event stream: polling, slow clients, shutdown (${dialect})`, () => {
    let testDb: TestDb;
    let key: string;
    const clients: SseClient[] = [];
    before(async () => {
      testDb = await openTestDb(dialect);
      key = (await factories(testDb.db).makeKey()).secret;
    });
    after(async () => {
      for (const client of clients) client.close();
      await testDb.drop();
    });
    const connect = async (url: string, query = '') => {
      const client = await openSse(`${url}${query}`, { authorization: `Bearer ${key}` });
      clients.push(client);
      return client;
    };

    it('keeps events 30 days: the worker’s sweep drops older ones, at start and then periodically', async () => {
      const now = Date.now();
      const day = 86_400_000;
      const ids = await testDb.db.kysely
        .transaction()
        .execute(async (trx) => [
          ...(await emitEvents(trx, dialect, [{ type: 'clan.updated', data: { age: 31 } }], now - 31 * day)),
          ...(await emitEvents(trx, dialect, [{ type: 'clan.updated', data: { age: 29 } }], now - 29 * day)),
        ]);
      const sweep = startEventSweep([eventsRepo(testDb.db.kysely)], {
        now: () => now,
        onError: (err) => assert.fail(String(err)),
      });
      await sweep.stop();
      const left = await testDb.db.kysely.selectFrom('events').select('id').where('id', 'in', ids).execute();
      assert.deepEqual(
        left.map((r) => r.id),
        ids.slice(1),
      );
    });

    it('delivers without a wake-up too: a missed notify only delays until the next poll', async () => {
      const app = await streamApp(testDb, { EVENTS_STREAM_POLL_MS: 100 });
      try {
        const client = await connect(await listenForStream(app), '?types=clan.created');
        const [id] = await emitUnannounced(testDb, [{ type: 'clan.created', data: {} }]);
        const started = Date.now();
        assert.equal((await client.nextEvent(3000)).id, id);
        assert.ok(Date.now() - started < 2000);
      } finally {
        await app.close();
      }
    });

    it('wakes at once when events commit: the stream gets them long before its once-a-minute poll', async () => {
      const app = await streamApp(testDb, { EVENTS_STREAM_POLL_MS: 60_000 });
      try {
        const client = await connect(await listenForStream(app), '?types=clan.disbanded');
        await client.next();
        for (let n = 1; n <= 3; n++) {
          const [id] = await commitEvents(testDb, [{ type: 'clan.disbanded', data: { n } }]);
          const started = Date.now();
          assert.equal((await client.nextEvent(2000)).id, id);
          assert.ok(Date.now() - started < 1000, `${Date.now() - started} ms`);
        }
        // a transaction that rolls back announces nothing, and a later commit still wakes
        await assert.rejects(
          writeTransaction(testDb.db.kysely, async (trx) => {
            await emitEvents(trx, dialect, [{ type: 'clan.disbanded', data: { n: 0 } }], Date.now());
            throw new Error('rolled back');
          }),
          /rolled back/,
        );
        const [id] = await commitEvents(testDb, [{ type: 'clan.disbanded', data: { n: 4 } }]);
        assert.equal((await client.nextEvent(2000)).id, id);
      } finally {
        await app.close();
      }
    });

    it('closes a client that does not read, with a last comment, instead of buffering for it', async () => {
      const app = await streamApp(testDb, {
        EVENTS_STREAM_MAX_BUFFER_BYTES: 64 * 1024,
        EVENTS_STREAM_POLL_MS: 60_000,
      });
      try {
        const client = await connect(await listenForStream(app), '?types=kill.recorded');
        client.response.pause();
        const payload = 'x'.repeat(16 * 1024);
        // far more than the socket buffers can hold: the server must cut the stream, not queue it
        for (let i = 0; i < 40; i++)
          await commitEvents(
            testDb,
            Array.from({ length: 25 }, (_, n) => ({ type: 'kill.recorded', data: { i, n, payload } })),
          );
        await sleep(200);
        client.response.resume();
        let events = 0;
        let last: string | undefined;
        for (;;) {
          let item;
          try {
            item = await client.next(5000);
          } catch {
            break;
          }
          if (item.kind === 'event') events++;
          else last = item.text;
        }
        assert.ok(events < 1000, `${events} events: the stream was never cut`);
        assert.match(last ?? '', /reads too slowly.*reconnect with Last-Event-ID: evt_\d{16}/);
      } finally {
        await app.close();
      }
    });

    it('paces a catch-up by the client: a backlog far larger than the buffer limit comes on one connection', async () => {
      const app = await streamApp(testDb, {
        EVENTS_STREAM_MAX_BUFFER_BYTES: 64 * 1024,
        EVENTS_STREAM_POLL_MS: 60_000,
      });
      try {
        const url = await listenForStream(app);
        const [before] = await commitEvents(testDb, [{ type: 'clan.updated', data: {} }]);
        const payload = 'x'.repeat(2 * 1024);
        // 300 events of 2 KiB: ten times the limit, in one page of the catch-up
        const ids = await commitEvents(
          testDb,
          Array.from({ length: 300 }, (_, n) => ({ type: 'clan.updated', data: { n, payload } })),
        );
        const client = await openSse(`${url}?types=clan.updated`, {
          authorization: `Bearer ${key}`,
          'last-event-id': before ?? '',
        });
        clients.push(client);
        // a reader slower than the server: it pauses, then reads
        client.response.pause();
        await sleep(200);
        client.response.resume();
        const got: string[] = [];
        while (got.length < ids.length) {
          const item = await client.next(5000);
          assert.equal(item.kind === 'comment' && /reconnect/.test(item.text), false, JSON.stringify(item));
          if (item.kind === 'event') got.push(item.id);
        }
        assert.deepEqual(got, ids);
      } finally {
        await app.close();
      }
    });

    it('ends every stream with a comment when the server shuts down', async () => {
      const app = await streamApp(testDb, { EVENTS_STREAM_POLL_MS: 60_000 });
      const client = await connect(await listenForStream(app));
      const opened = await client.next();
      assert.equal(opened.kind, 'comment');
      const closing = app.close();
      const comments: string[] = [];
      for (;;) {
        try {
          const item = await client.next(5000);
          if (item.kind === 'comment') comments.push(item.text);
        } catch {
          break;
        }
      }
      await closing;
      assert.ok(
        comments.some((c) => /shutting down; reconnect/.test(c)),
        JSON.stringify(comments),
      );
    });
  });
}

describe(
  'two API instances on one PostgreSQL and Redis',
  { skip: !(process.env.TEST_DATABASE_URL && sharedRedisUrl) },
  () => {
    let testDb: TestDb;
    const apps: FastifyInstance[] = [];
    const dbs: Db[] = [];
    const clients: SseClient[] = [];
    before(async () => {
      testDb = await openTestDb('postgres');
    });
    after(async () => {
      for (const client of clients) client.close();
      for (const app of apps) await app.close();
      for (const db of dbs) await db.close();
      await testDb.drop();
    });

    it('an event committed through instance A reaches a stream on instance B at once (Redis wake-up)', async () => {
      // B polls once a minute: only the Redis wake-up can bring the event within the bound
      const config = {
        REDIS_URL: sharedRedisUrl ?? '',
        REDIS_COMMAND_TIMEOUT_MS: 5000,
        EVENTS_STREAM_POLL_MS: 60_000,
      };
      // A on the test's database connection, B on a pool of its own: A's commits are announced by
      // A alone, so B hears of them only through Redis
      const a = await streamApp(testDb, config);
      apps.push(a);
      const own = connect(testDb.url, testDb.schema ? { schema: testDb.schema } : {});
      dbs.push(own);
      const b = await streamApp({ ...testDb, db: own }, config);
      apps.push(b);
      const key = (await factories(testDb.db).makeKey()).secret;
      const client = await openSse(`${await listenForStream(b)}?types=server.status_changed`, {
        authorization: `Bearer ${key}`,
      });
      clients.push(client);
      await client.next();
      for (let n = 1; n <= 3; n++) {
        const [id] = await commitEvents(testDb, [{ type: 'server.status_changed', data: { n } }]);
        const started = Date.now();
        const event = await client.nextEvent(2000);
        assert.equal(event.id, id);
        assert.ok(Date.now() - started < 1000, `${Date.now() - started} ms`);
      }
    });
  },
);
