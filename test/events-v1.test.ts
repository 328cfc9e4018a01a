import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import type { Problem } from '../src/http/problem.js';
import type { EventsPageBody } from '../src/modules/events/v1-schemas.js';
import { json } from './helpers/context.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { openSse, type SseClient } from './helpers/sse.js';
import { commitEvents, listenForStream, streamApp } from './helpers/stream-app.js';
import { TokenTable, userToken } from './helpers/token-table.js';

const USER = 7;
const OTHER_USER = 8;
const APP = 3;

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

for (const dialect of testDialects()) {
  describe(`events: pull and stream (${dialect})`, () => {
    let testDb: TestDb;
    let app: FastifyInstance;
    let url: string;
    let key: string;
    const tokens = new TokenTable();
    const open: SseClient[] = [];
    const stream = async (query = '', headers: Record<string, string> = bearer('tok-user')) => {
      const client = await openSse(`${url}${query}`, headers);
      open.push(client);
      return client;
    };

    before(async () => {
      testDb = await openTestDb(dialect);
      tokens.tokens.set(
        'tok-user',
        userToken(['economy:read'], { userId: USER, appId: APP, tier: 'partner' }),
      );
      tokens.tokens.set(
        'tok-other',
        userToken(['economy:read'], { userId: OTHER_USER, appId: 99, tier: 'partner' }),
      );
      tokens.tokens.set('tok-noscope', userToken([], { userId: USER, appId: APP, tier: 'partner' }));
      // a long poll: what these tests see arrives through wake-ups, except where they test polling
      app = await streamApp(
        testDb,
        { EVENTS_STREAM_POLL_MS: 60_000, EVENTS_STREAM_HEARTBEAT_MS: 300 },
        tokens,
      );
      url = await listenForStream(app);
      key = (await factories(testDb.db).makeKey()).secret;
    });
    after(async () => {
      for (const client of open) client.close();
      await app.close();
      await testDb.drop();
    });

    const pull = async (query: string, credential = 'tok-user') => {
      const res = await app.inject({ method: 'GET', url: `/v1/events${query}`, headers: bearer(credential) });
      return res;
    };
    const page = async (query: string, credential = 'tok-user') => {
      const res = await pull(query, credential);
      assert.equal(res.statusCode, 200, res.body);
      return json<EventsPageBody>(res);
    };

    it('pages by cursor, oldest first, with next_after and has_more', async () => {
      const start = (await page('?limit=1000')).meta.next_after;
      const ids = await commitEvents(
        testDb,
        [1, 2, 3, 4, 5].map((n) => ({ type: 'round.started', data: { n } })),
      );
      const cursor = start ? `&after=${start}` : '';
      const first = await page(`?types=round.started&limit=2${cursor}`);
      assert.deepEqual(
        first.data.map((e) => e.id),
        ids.slice(0, 2),
      );
      assert.deepEqual(first.meta, { next_after: ids[1], has_more: true });
      const [oldest] = first.data;
      assert.ok(oldest);
      assert.deepEqual(oldest.data, { n: 1 });
      assert.equal(oldest.type, 'round.started');
      assert.match(oldest.created_at, /^\d{4}-\d\d-\d\dT.*Z$/);
      const second = await page(`?types=round.started&limit=2&after=${first.meta.next_after}`);
      assert.deepEqual(
        second.data.map((e) => e.id),
        ids.slice(2, 4),
      );
      const last = await page(`?types=round.started&limit=2&after=${second.meta.next_after}`);
      assert.deepEqual(
        last.data.map((e) => e.id),
        ids.slice(4),
      );
      assert.deepEqual(last.meta, { next_after: ids[4], has_more: false });
      // an empty page keeps the cursor, so a poller asks again from the same place
      const empty = await page(`?types=round.started&after=${ids[4]}`);
      assert.deepEqual(empty, { data: [], meta: { next_after: ids[4], has_more: false } });
    });

    it('shows a reader only what it may see: never another user’s or app’s private events', async () => {
      const [, mine, , , appOnly] = await commitEvents(testDb, [
        { type: 'economy.transfer.created', data: { who: 'public' } },
        { type: 'economy.transfer.created', data: { who: 'mine' }, userId: USER, scope: 'economy:read' },
        {
          type: 'economy.transfer.created',
          data: { who: 'other user' },
          userId: OTHER_USER,
          scope: 'economy:read',
        },
        { type: 'economy.transfer.created', data: { who: 'other app' }, appId: 99 },
        { type: 'economy.transfer.created', data: { who: 'my app' }, appId: APP },
      ]);
      const whoSees = async (credential: string) =>
        (await page('?types=economy.transfer.created', credential)).data.map((e) => e.data.who);
      assert.deepEqual(await whoSees('tok-user'), ['public', 'mine', 'my app']);
      assert.deepEqual(await whoSees('tok-other'), ['public', 'other user', 'other app']);
      // without economy:read, the user's private economy event stays hidden
      assert.deepEqual(await whoSees('tok-noscope'), ['public', 'my app']);
      // an API key: public events only
      assert.deepEqual(await whoSees(key), ['public']);
      assert.ok(mine && appOnly);
    });

    it('refuses a bad cursor or an unknown type with a 400 problem naming the parameter', async () => {
      for (const [query, name] of [
        ['?after=evt_12', 'after'],
        ['?after=12', 'after'],
        ['?after=evt_9999999999999999', 'after'],
        ['?types=nodot', 'types'],
        ['?types=match.ended,no.such_type', 'types'],
        ['?types=a.b,,c.d', 'types'],
        ['?types=Match.Ended', 'types'],
        ['?limit=0', 'limit'],
        ['?limit=1001', 'limit'],
      ] as const) {
        const res = await pull(query);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        const problem = json<Problem>(res);
        assert.equal(problem.code, 'invalid_parameter', query);
        assert.equal(problem.errors?.[0]?.name, name, query);
      }
      const missing = await app.inject({ method: 'GET', url: '/v1/events' });
      assert.equal(missing.statusCode, 401);
    });

    it('never answers 5xx, whatever after, types and limit are (property)', async () => {
      const eventish = fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.bigInt({ min: 0n, max: 10n ** 17n }).map((n) => `evt_${String(n).padStart(16, '0')}`),
        fc.constantFrom('evt_0000000000000000', 'evt_9007199254740991', 'evt_9007199254740992'),
      );
      const typeish = fc.oneof(
        fc.string({ maxLength: 40 }),
        fc
          .array(fc.constantFrom('a.b', 'round.started', 'x', '', 'A.B', 'é.è', 'a.b.c'), { maxLength: 5 })
          .map((l) => l.join(',')),
      );
      const limitish = fc.oneof(fc.integer().map(String), fc.string({ maxLength: 6 }));
      await fc.assert(
        fc.asyncProperty(
          fc.record({ after: eventish, types: typeish, limit: limitish }, { requiredKeys: [] }),
          async (query) => {
            const search = new URLSearchParams(query as Record<string, string>).toString();
            const res = await pull(`?${search}`);
            assert.ok(
              res.statusCode === 200 || res.statusCode === 400,
              `${search}: ${res.statusCode} ${res.body}`,
            );
          },
        ),
        { numRuns: 150 },
      );
    });

    it('streams events in order as SSE frames: id, event type, the event object', async () => {
      const client = await stream('?types=match.started');
      assert.equal(client.response.statusCode, 200);
      assert.match(String(client.response.headers['content-type']), /^text\/event-stream/);
      assert.equal(client.response.headers['content-encoding'], undefined);
      const ids = await commitEvents(testDb, [
        { type: 'match.started', data: { n: 1 } },
        { type: 'match.ended', data: { n: 2 } },
        { type: 'match.started', data: { n: 3 } },
      ]);
      const first = await client.nextEvent();
      const second = await client.nextEvent();
      assert.deepEqual(
        [first.id, first.event, first.data.id, first.data.data.n],
        [ids[0], 'match.started', ids[0], 1],
      );
      assert.deepEqual([second.id, second.data.data.n], [ids[2], 3]);
    });

    it('resumes after a dropped connection with Last-Event-ID: no gap, no duplicate', async () => {
      const client = await stream('?types=round.ended');
      const ids = await commitEvents(
        testDb,
        [1, 2, 3].map((n) => ({ type: 'round.ended', data: { n } })),
      );
      const got = [(await client.nextEvent()).id, (await client.nextEvent()).id];
      assert.deepEqual(got, ids.slice(0, 2));
      client.close();
      // written while the client is away
      const meanwhile = await commitEvents(
        testDb,
        [4, 5].map((n) => ({ type: 'round.ended', data: { n } })),
      );
      const resumed = await stream('?types=round.ended', {
        ...bearer('tok-user'),
        'last-event-id': got[1] ?? '',
      });
      const later = await commitEvents(testDb, [{ type: 'round.ended', data: { n: 6 } }]);
      const seen: number[] = [];
      for (let i = 0; i < 4; i++) seen.push(Number((await resumed.nextEvent()).data.data.n));
      assert.deepEqual(seen, [3, 4, 5, 6]);
      assert.equal(ids.length + meanwhile.length + later.length, 6);
      // nothing more: the next event is the next one written
      await commitEvents(testDb, [{ type: 'round.ended', data: { n: 7 } }]);
      assert.equal((await resumed.nextEvent()).data.data.n, 7);
      // `after` in the query resumes the same way (a client that is not EventSource)
      const byQuery = await stream(`?types=round.ended&after=${meanwhile[0]}`);
      assert.deepEqual(
        [(await byQuery.nextEvent()).data.data.n, (await byQuery.nextEvent()).data.data.n],
        [5, 6],
      );
    });

    it('keeps private events to their reader on the stream too', async () => {
      const other = await stream('?types=economy.grant.created', bearer('tok-other'));
      await commitEvents(testDb, [
        { type: 'economy.grant.created', data: { who: 'user 7' }, userId: USER, scope: 'economy:read' },
        { type: 'economy.grant.created', data: { who: 'public' } },
      ]);
      assert.equal((await other.nextEvent()).data.data.who, 'public');
    });

    it('sends heartbeats', async () => {
      const client = await stream('?types=server.removed');
      const seen: string[] = [];
      const deadline = Date.now() + 3000;
      while (!seen.includes('heartbeat') && Date.now() < deadline) {
        const item = await client.next(3000);
        if (item.kind === 'comment') seen.push(item.text);
      }
      assert.ok(seen.includes('heartbeat'), JSON.stringify(seen));
    });

    it('refuses a malformed Last-Event-ID with a 400 problem', async () => {
      const res = await app.inject({
        method: 'GET',
        url: '/v1/events/stream',
        headers: { ...bearer('tok-user'), 'last-event-id': 'evt_9999999999999999' },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(json<Problem>(res).errors?.[0]?.name, 'Last-Event-ID');
    });
  });
}
