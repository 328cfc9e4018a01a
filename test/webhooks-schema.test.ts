import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';

/** The webhook tables (0017): one owner per webhook, one delivery per (webhook, event), cascades. */
for (const dialect of testDialects()) {
  describe(`webhook tables (${dialect})`, () => {
    let testDb: TestDb;
    before(async () => {
      testDb = await openTestDb(dialect);
    });
    after(() => testDb.drop());

    const webhookOf = (userId: number | null) => ({
      app_id: null,
      user_id: userId,
      url: 'https://example.com/hook',
      events: '*',
      description: null,
      disabled_reason: null,
      created_at: 1,
      updated_at: 1,
      failing_since: null,
    });

    it('refuses a webhook without an owner, and a second delivery of one event to one webhook', async () => {
      const { kysely } = testDb.db;
      const user = await factories(testDb.db).makeUser();
      await assert.rejects(kysely.insertInto('webhooks').values(webhookOf(null)).execute());
      const { id } = await kysely
        .insertInto('webhooks')
        .values(webhookOf(user.id))
        .returning('id')
        .executeTakeFirstOrThrow();
      const delivery = {
        webhook_id: id,
        event_id: 7,
        status: 'pending' as const,
        next_attempt_at: 1,
        claimed_until: null,
        claimed_by: null,
        last_status_code: null,
        last_latency_ms: null,
        last_response: null,
        last_error: null,
        created_at: 1,
        delivered_at: null,
      };
      await kysely.insertInto('webhook_deliveries').values(delivery).execute();
      await assert.rejects(kysely.insertInto('webhook_deliveries').values(delivery).execute());
      await assert.rejects(
        kysely
          .insertInto('webhook_deliveries')
          .values({ ...delivery, event_id: 8, status: 'lost' as 'dead' })
          .execute(),
      );
      await kysely
        .insertInto('webhook_secrets')
        .values({ webhook_id: id, secret: 'whsec_x', created_at: 1, expires_at: null })
        .execute();
      await kysely.deleteFrom('webhooks').where('id', '=', id).execute();
      const left = await kysely
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('webhook_id', '=', id)
        .execute();
      assert.equal(left.length, 0, 'deliveries go with their webhook');
    });
  });
}
