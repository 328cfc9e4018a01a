import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatEventId, parseEventId } from '../src/modules/events/event-id.js';
import { emitEvents } from '../src/modules/events/outbox.js';
import type { EventReader } from '../src/modules/events/audience.js';
import { eventsRepo } from '../src/modules/events/repo.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';

const everyone: EventReader = { userId: null, appId: null, keyOwnerId: null, scopes: new Set<string>() };

/**
 * The outbox: events are written by the transaction that makes the change, and their ids follow
 * commit order, so a reader walking the cursor never misses one that commits late.
 */
for (const dialect of testDialects()) {
  describe(`events outbox (${dialect})`, () => {
    let testDb: TestDb;
    before(async () => {
      testDb = await openTestDb(dialect);
    });
    after(() => testDb.drop());

    it('tells nothing for a change that rolls back, and everything for one that commits', async () => {
      const { kysely } = testDb.db;
      const repo = eventsRepo(kysely);
      const start = await repo.latest();
      await assert.rejects(
        kysely.transaction().execute(async (trx) => {
          await emitEvents(trx, dialect, [{ type: 'test.rolled_back', data: { n: 1 } }], Date.now());
          throw new Error('the change failed');
        }),
        /the change failed/,
      );
      const ids = await kysely.transaction().execute((trx) =>
        emitEvents(
          trx,
          dialect,
          [
            { type: 'test.committed', data: { n: 1 } },
            { type: 'test.committed', data: { n: 2 } },
          ],
          Date.now(),
        ),
      );
      assert.equal(ids.length, 2);
      const seen = await repo.after({ after: start, limit: 100, reader: everyone });
      assert.deepEqual(
        seen.map((s) => [s.event.type, s.event.data.n]),
        [
          ['test.committed', 1],
          ['test.committed', 2],
        ],
      );
      assert.equal(seen[0]?.event.id, formatEventId(ids[0] ?? 0));
    });

    it('hands out ids in commit order: a cursor walking the outbox never skips a late commit', async () => {
      const { kysely } = testDb.db;
      const repo = eventsRepo(kysely);
      const start = await repo.latest();
      const writers = 24;
      const state = { done: false };
      const seen: number[] = [];
      const reader = (async () => {
        let cursor = start;
        for (;;) {
          const finished = state.done;
          const page = await repo.after({
            after: cursor,
            types: ['test.ordered'],
            limit: 1000,
            reader: everyone,
          });
          for (const { position } of page) seen.push(position);
          cursor = page.at(-1)?.position ?? cursor;
          if (finished) return;
          await sleep(2);
        }
      })();
      const emitted = await Promise.all(
        Array.from({ length: writers }, (_, i) =>
          kysely.transaction().execute(async (trx) => {
            const ids = await emitEvents(
              trx,
              dialect,
              [{ type: 'test.ordered', data: { writer: i } }],
              Date.now(),
            );
            // hold the transaction open a while after the id is taken, in a random order
            await sleep(Math.floor(Math.random() * 25));
            return ids;
          }),
        ),
      );
      state.done = true;
      await reader;
      const all = emitted.flat().sort((a, b) => a - b);
      assert.equal(all.length, writers);
      assert.deepEqual(seen, all, 'the reader saw every event once, in order');
    });

    it('shows private events only to their user or app, with the scope', async () => {
      const { kysely } = testDb.db;
      const repo = eventsRepo(kysely);
      const start = await repo.latest();
      await kysely.transaction().execute((trx) =>
        emitEvents(
          trx,
          dialect,
          [
            { type: 'test.public', data: {} },
            { type: 'test.mine', data: {}, userId: 5, scope: 'economy:read' },
            { type: 'test.app', data: {}, appId: 9 },
          ],
          Date.now(),
        ),
      );
      const types = async (reader: typeof everyone) =>
        (await repo.after({ after: start, limit: 10, reader })).map((s) => s.event.type);
      assert.deepEqual(await types(everyone), ['test.public']);
      const forUser = (userId: number, appId: number, scopes: string[]) => ({
        userId,
        appId,
        keyOwnerId: null,
        scopes: new Set(scopes),
      });
      assert.deepEqual(await types(forUser(5, 3, [])), ['test.public']);
      assert.deepEqual(await types(forUser(5, 3, ['economy:read'])), ['test.public', 'test.mine']);
      // a user's private event never reaches an API key, even its owner's (app context)
      assert.deepEqual(
        await types({ userId: null, appId: null, keyOwnerId: 5, scopes: new Set(['economy:read']) }),
        ['test.public'],
      );
      assert.deepEqual(await types(forUser(6, 9, ['economy:read'])), ['test.public', 'test.app']);
    });

    it('keeps 30 days', async () => {
      const { kysely } = testDb.db;
      const repo = eventsRepo(kysely);
      const now = Date.now();
      await kysely
        .transaction()
        .execute((trx) => emitEvents(trx, dialect, [{ type: 'test.old', data: {} }], now - 31 * 86_400_000));
      assert.ok((await repo.sweep(now)) >= 1);
      const left = await repo.after({ after: 0, types: ['test.old'], limit: 10, reader: everyone });
      assert.equal(left.length, 0);
    });
  });
}

describe('event ids', () => {
  it('sort as strings the way they sort as numbers, and parse back', () => {
    const ids = [1, 9, 10, 4711, 2 ** 40].map(formatEventId);
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(parseEventId(formatEventId(4711)), 4711);
    for (const bad of ['evt_1', 'evt_00000000000047111', 'evt_000000000000471x', '4711', '']) {
      assert.equal(parseEventId(bad), undefined, bad);
    }
  });
});
