import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { NewEvent } from '../src/modules/events/outbox.js';
import { emitEvents } from '../src/modules/events/outbox.js';
import { webhookDispatcher } from '../src/modules/webhooks/dispatch.js';
import type { WebhookOwner } from '../src/modules/webhooks/owner.js';
import { webhooksRepo } from '../src/modules/webhooks/repo.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';

/**
 * The fan-out from the outbox to deliveries: a webhook gets the types it subscribed to, only from
 * its registration on, and only what its owner may see. An app never gets a user's private event
 * unless that user authorized the app with the event's scope.
 */
for (const dialect of testDialects()) {
  describe(`webhook dispatcher (${dialect})`, () => {
    let testDb: TestDb;
    before(async () => {
      testDb = await openTestDb(dialect);
    });
    after(() => testDb.drop());

    const k = () => testDb.db.kysely;
    const makeApp = async (ownerId: number) =>
      await k()
        .insertInto('oauth_apps')
        .values({
          client_id: `app_${randomBytes(16).toString('hex')}`,
          owner_id: ownerId,
          name: 'test app',
          kind: 'confidential',
          redirect_uris: '[]',
          homepage_url: null,
          logo_url: null,
          secret_hash: null,
          created_at: 1,
          updated_at: 1,
        })
        .returning(['id', 'client_id'])
        .executeTakeFirstOrThrow();
    const grant = (userId: number, clientId: string, scope: string, expiresAt: number | null) =>
      k()
        .insertInto('oauth_store')
        .values({
          model: 'Grant',
          id: randomBytes(8).toString('hex'),
          payload: JSON.stringify({ openid: { scope }, iat: 1 }),
          grant_id: null,
          uid: null,
          client_id: clientId,
          account_id: String(userId),
          expires_at: expiresAt,
          consumed_at: null,
          last_used_at: null,
        })
        .execute();
    const hook = async (owner: WebhookOwner, events: string, createdAt: number) =>
      (
        await webhooksRepo(k()).create(
          owner,
          { url: 'https://example.com/h', events, description: null },
          'whsec_x',
          createdAt,
        )
      ).id;
    const emit = (events: NewEvent[], at: number) =>
      k()
        .transaction()
        .execute((trx) => emitEvents(trx, dialect, events, at));
    const deliveredTo = async (webhookId: number) =>
      (
        await k()
          .selectFrom('webhook_deliveries as d')
          .innerJoin('events as e', 'e.id', 'd.event_id')
          .select(['e.type', 'e.data'])
          .where('d.webhook_id', '=', webhookId)
          .orderBy('e.id')
          .execute()
      ).map((row) => `${row.type}:${(JSON.parse(row.data) as { tag: string }).tag}`);

    it('sends each webhook what it subscribed to and may see, once, from its registration on', async () => {
      const made = factories(testDb.db);
      const [dev, granted, stranger, narrow] = [
        await made.makeUser(),
        await made.makeUser(),
        await made.makeUser(),
        await made.makeUser(),
      ];
      const appA = await makeApp(dev.id);
      const appB = await makeApp(dev.id);
      const now = Date.now();
      await grant(granted.id, appA.client_id, 'openid economy:read', now + 3_600_000);
      await grant(narrow.id, appA.client_id, 'openid identify', null);
      // a grant that expired tells nothing any more
      await grant(stranger.id, appA.client_id, 'openid economy:read', now - 1);

      // an event before any webhook existed is never sent (replays are for that)
      await emit([{ type: 'match.ended', data: { tag: 'before' } }], now - 10_000);
      const everything = await hook({ appId: appA.id }, '*', now - 5_000);
      const onlyTransfers = await hook(
        { appId: appB.id },
        JSON.stringify(['economy.transfer.created']),
        now - 5_000,
      );
      const keyOwner = await hook({ userId: granted.id }, '*', now - 5_000);
      const disabled = await hook({ appId: appA.id }, '*', now - 5_000);
      await k()
        .updateTable('webhooks')
        .set({ enabled: 0, disabled_reason: 'owner' })
        .where('id', '=', disabled)
        .execute();

      const transfer = (userId: number, tag: string): NewEvent => ({
        type: 'economy.transfer.created',
        data: { tag },
        userId,
        scope: 'economy:read',
      });
      await emit(
        [
          { type: 'match.ended', data: { tag: 'public' } },
          { type: 'server.status_changed', data: { tag: 'public-scoped' }, scope: 'servers:read' },
          transfer(granted.id, 'granted'),
          transfer(stranger.id, 'stranger'),
          transfer(narrow.id, 'narrow'),
          { type: 'app.updated', data: { tag: 'own-A' }, appId: appA.id, scope: 'webhooks:read' },
          { type: 'app.updated', data: { tag: 'own-B' }, appId: appB.id, scope: 'webhooks:read' },
          { type: 'economy.transfer.created', data: { tag: 'public-transfer' } },
        ],
        now,
      );
      const dispatcher = webhookDispatcher(testDb.db, { batch: 3 });
      let read = 0;
      for (let n = await dispatcher.dispatch(now); n > 0; n = await dispatcher.dispatch(now)) read += n;
      assert.equal(read, 9, 'every event read once, in batches');
      assert.equal(await dispatcher.dispatch(now), 0, 'caught up');

      assert.deepEqual(await deliveredTo(everything), [
        'match.ended:public',
        'server.status_changed:public-scoped',
        'economy.transfer.created:granted',
        'app.updated:own-A',
        'economy.transfer.created:public-transfer',
      ]);
      assert.deepEqual(await deliveredTo(onlyTransfers), ['economy.transfer.created:public-transfer']);
      // a webhook registered with an API key reads as that key: app context, public data only, so
      // not even its owner's coins (GET /v1/events with the key does not show them either)
      assert.deepEqual(await deliveredTo(keyOwner), [
        'match.ended:public',
        'server.status_changed:public-scoped',
        'economy.transfer.created:public-transfer',
      ]);
      assert.deepEqual(await deliveredTo(disabled), []);
      const pending = await k()
        .selectFrom('webhook_deliveries')
        .select(['status', 'next_attempt_at', 'attempts'])
        .where('webhook_id', '=', everything)
        .execute();
      assert.ok(
        pending.every((row) => row.status === 'pending' && row.next_attempt_at === now && row.attempts === 0),
      );

      // running again over the same events (a crash before the cursor moved) makes no duplicate
      await k()
        .updateTable('meta')
        .set({ value: '0' })
        .where('key', '=', 'webhooks.dispatch_cursor')
        .execute();
      while ((await dispatcher.dispatch(now)) > 0);
      assert.equal((await deliveredTo(everything)).length, 5);
    });

    it('replays what a webhook may see since a time, sending existing deliveries again', async () => {
      const made = factories(testDb.db);
      const dev = await made.makeUser();
      const other = await made.makeUser();
      const app = await makeApp(dev.id);
      const now = Date.now();
      await emit(
        [
          { type: 'match.ended', data: { tag: 'old' } },
          {
            type: 'economy.transfer.created',
            data: { tag: 'private' },
            userId: other.id,
            scope: 'economy:read',
          },
        ],
        now - 60_000,
      );
      const id = await hook({ appId: app.id }, JSON.stringify(['match.ended']), now);
      const dispatcher = webhookDispatcher(testDb.db);
      while ((await dispatcher.dispatch(now)) > 0);
      assert.deepEqual(await deliveredTo(id), [], 'older than the webhook');
      const first = await dispatcher.replay(id, now - 120_000, now, 100);
      assert.equal(first.complete, true);
      assert.ok((await deliveredTo(id)).includes('match.ended:old'));
      assert.ok(
        !(await deliveredTo(id)).some((d) => d.endsWith(':private')),
        'never a private event of a stranger',
      );
      await k()
        .updateTable('webhook_deliveries')
        .set({ status: 'succeeded', attempts: 1 })
        .where('webhook_id', '=', id)
        .execute();
      const again = await dispatcher.replay(id, now - 120_000, now + 1, 100);
      assert.equal(again.queued, first.queued);
      const rows = await k()
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('webhook_id', '=', id)
        .execute();
      assert.ok(
        rows.every((row) => row.status === 'pending' && row.attempts === 0),
        'queued again from scratch',
      );
      const bounded = await dispatcher.replay(id, now - 120_000, now + 2, 0);
      assert.deepEqual([bounded.queued, bounded.complete], [0, false]);
    });
  });
}
