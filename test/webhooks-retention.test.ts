import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventsRepo } from '../src/modules/events/repo.js';
import { startEventSweep } from '../src/modules/events/sweep.js';
import { DELIVERY_RETENTION_MS, deliveriesRepo } from '../src/modules/webhooks/deliveries-repo.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { insertWebhook, queueDeliveries } from './helpers/webhook-receiver.js';

/** The delivery log is kept 30 days: the worker's sweep drops older deliveries and their attempts. */
for (const dialect of testDialects()) {
  describe(`webhook delivery retention (${dialect})`, () => {
    let testDb: TestDb;
    before(async () => {
      testDb = await openTestDb(dialect);
    });
    after(() => testDb.drop());

    it('drops deliveries older than 30 days with their attempts, in batches, and keeps the rest', async () => {
      const { kysely } = testDb.db;
      const now = Date.now();
      const day = 86_400_000;
      const user = await factories(testDb.db).makeUser();
      const hook = await insertWebhook(testDb.db, user.id, 'https://example.com/hook', now - 40 * day);
      // more than one batch of old ones, and some just inside the 30 days
      await queueDeliveries(testDb.db, [hook.id], 2_345, now - DELIVERY_RETENTION_MS - 1);
      await queueDeliveries(testDb.db, [hook.id], 5, now - DELIVERY_RETENTION_MS + 60_000);
      const deliveries = await kysely
        .selectFrom('webhook_deliveries')
        .select(['id', 'created_at'])
        .orderBy('id')
        .execute();
      const attempt = (d: { id: number }) => ({
        delivery_id: d.id,
        webhook_id: hook.id,
        attempt: 1,
        started_at: now - day,
        status_code: 500,
        latency_ms: 12,
        response_headers: null,
        response_excerpt: 'no',
        error: null,
      });
      await kysely
        .insertInto('webhook_attempts')
        .values([...deliveries.slice(0, 3), ...deliveries.slice(-2)].map(attempt))
        .execute();

      assert.equal(await deliveriesRepo(kysely).sweep(now), 2_345);
      const left = await kysely.selectFrom('webhook_deliveries').select(['id', 'created_at']).execute();
      assert.equal(left.length, 5);
      assert.ok(left.every((d) => d.created_at >= now - DELIVERY_RETENTION_MS));
      const attempts = await kysely.selectFrom('webhook_attempts').select('delivery_id').execute();
      assert.deepEqual(
        attempts.map((a) => a.delivery_id).sort((a, b) => a - b),
        deliveries.slice(-2).map((d) => d.id),
        'the attempts of the dropped deliveries went with them',
      );
      assert.equal(await deliveriesRepo(kysely).sweep(now), 0, 'a second sweep finds nothing');
    });

    it('the periodic sweep takes events and deliveries together', async () => {
      const { kysely } = testDb.db;
      // an event and its delivery of its own, so the test does not lean on what another one left
      const user = await factories(testDb.db).makeUser();
      const hook = await insertWebhook(testDb.db, user.id, 'https://example.com/periodic', Date.now());
      await queueDeliveries(testDb.db, [hook.id], 1, Date.now());
      const now = Date.now() + 40 * 86_400_000; // everything stored so far is past 30 days
      const sweep = startEventSweep([eventsRepo(kysely), deliveriesRepo(kysely)], {
        now: () => now,
        onError: (err) => assert.fail(String(err)),
      });
      await sweep.stop();
      const count = async (table: 'events' | 'webhook_deliveries') =>
        Number(
          (
            await kysely
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      assert.equal(await count('webhook_deliveries'), 0);
      assert.equal(await count('events'), 0);
    });
  });
}
