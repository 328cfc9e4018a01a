import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalBroadcast } from '../src/http/broadcast.js';
import { formatEventId } from '../src/modules/events/event-id.js';
import { emitEvents } from '../src/modules/events/outbox.js';
import { announceCommits, onEventsAnnounced } from '../src/modules/events/wake.js';
import { webhookDispatcher } from '../src/modules/webhooks/dispatch.js';
import { deliveryRepo } from '../src/modules/webhooks/delivery/repo.js';
import {
  DISABLE_AFTER_FAILING_MS,
  MAX_ATTEMPTS,
  RETRY_DELAYS_MS,
} from '../src/modules/webhooks/delivery/schedule.js';
import { deliveryWorker, type DeliveryWorkerOptions } from '../src/modules/webhooks/delivery/worker.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { commitEvents } from './helpers/stream-app.js';
import { factories } from './helpers/factories.js';
import {
  insertWebhook,
  newWebhookSecret,
  queueDeliveries,
  receiver,
  verified,
  type Receiver,
} from './helpers/webhook-receiver.js';

const T0 = Date.parse('2026-11-20T12:00:00Z');

/** A fake clock the worker reads; tests move it. */
function clock(start = T0) {
  const c = { t: start, now: () => c.t };
  return c;
}

for (const dialect of testDialects()) {
  describe(`webhook delivery worker (${dialect})`, () => {
    let testDb: TestDb;
    let userId: number;
    const receivers: Receiver[] = [];
    const open = async (...args: Parameters<typeof receiver>) => {
      const r = await receiver(...args);
      receivers.push(r);
      return r;
    };
    before(async () => {
      testDb = await openTestDb(dialect);
      userId = (await factories(testDb.db).makeUser()).id;
    });
    // each test's webhooks (and their pending retries) go with it
    afterEach(() => testDb.db.kysely.deleteFrom('webhooks').execute());
    after(async () => {
      await Promise.all(receivers.map((r) => r.close()));
      await testDb.drop();
    });

    const worker = (c: ReturnType<typeof clock>, extra: Partial<DeliveryWorkerOptions> = {}) =>
      deliveryWorker(testDb.db, { allowPrivate: true, now: c.now, random: () => 0.5, ...extra });
    const delivery = (id: number) =>
      testDb.db.kysely
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', id)
        .orderBy('id')
        .execute();

    it('sends a due delivery signed: the standardwebhooks library verifies it, the log records it', async () => {
      const c = clock();
      const hook = await open((_q, res) => {
        res.setHeader('x-seen', '1');
        res.end('thanks');
      });
      const [old, current] = [newWebhookSecret(), newWebhookSecret()];
      const webhook = await insertWebhook(testDb.db, userId, hook.url, c.t, [old, current]);
      const [eventId] = await queueDeliveries(testDb.db, [webhook.id], 1, c.t);
      assert.ok(eventId);
      const round = await worker(c).runOnce();
      assert.equal(round.sent, 1);
      const receipt = hook.receipts[0];
      assert.ok(receipt);
      // during a rotation both the old and the new secret verify
      const payload = verified(old, receipt);
      assert.deepEqual(verified(current, receipt), payload);
      assert.equal(receipt.headers['webhook-id'], formatEventId(eventId));
      assert.deepEqual(payload, {
        id: formatEventId(eventId),
        type: 'test.delivered',
        created_at: new Date(c.t).toISOString(),
        data: { n: 0 },
      });
      const [row] = await delivery(webhook.id);
      assert.equal(row?.status, 'succeeded');
      assert.equal(row.attempts, 1);
      assert.equal(row.next_attempt_at, null);
      assert.equal(row.last_status_code, 200);
      assert.equal(row.last_response, 'thanks');
      assert.equal(row.delivered_at, c.t);
      const attempts = await testDb.db.kysely
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('delivery_id', '=', row.id)
        .execute();
      const [attempt] = attempts;
      assert.equal(attempts.length, 1);
      assert.ok(attempt);
      assert.equal(attempt.status_code, 200);
      const headers = JSON.parse(attempt.response_headers ?? '{}') as Record<string, string>;
      assert.equal(headers['x-seen'], '1');
      // nothing left to send
      assert.equal((await worker(c).runOnce()).sent, 0);
      assert.equal(hook.receipts.length, 1);
    });

    it('runs the dispatcher first: an event committed to the outbox reaches a subscribed webhook', async () => {
      const c = clock(T0 + 60_000);
      const secret = newWebhookSecret();
      const hook = await open();
      const webhook = await insertWebhook(testDb.db, userId, hook.url, c.t, [secret]);
      c.t += 1;
      const [eventId] = await testDb.db.kysely
        .transaction()
        .execute((trx) => emitEvents(trx, dialect, [{ type: 'match.ended', data: { match_id: 7 } }], c.t));
      assert.ok(eventId);
      const dispatcher = webhookDispatcher(testDb.db);
      const round = await worker(c, { dispatch: (now) => dispatcher.dispatch(now) }).runOnce();
      assert.equal(round.sent, 1);
      const receipt = hook.receipts.find((r) => r.headers['webhook-id'] === formatEventId(eventId));
      assert.ok(receipt);
      assert.deepEqual(verified(secret, receipt).data, { match_id: 7 });
      assert.equal((await delivery(webhook.id))[0]?.status, 'succeeded');
    });

    it('starts a delivery as soon as its event commits, not at the next poll: the commit wakes the worker', async () => {
      const broadcast = new LocalBroadcast();
      const stopAnnouncing = announceCommits(testDb.db.kysely, broadcast);
      const secret = newWebhookSecret();
      const hook = await open();
      await insertWebhook(testDb.db, userId, hook.url, Date.now(), [secret]);
      const dispatcher = webhookDispatcher(testDb.db);
      const w = deliveryWorker(testDb.db, {
        allowPrivate: true,
        pollMs: 60_000,
        dispatch: (now) => dispatcher.dispatch(now),
        wakeUps: (listener) => onEventsAnnounced(broadcast, listener),
      });
      w.start();
      try {
        // its first round finds nothing; the next poll is a minute away
        await sleep(100);
        const started = Date.now();
        const [eventId] = await commitEvents(testDb, [{ type: 'match.ended', data: { match_id: 8 } }]);
        assert.ok(eventId);
        const arrived = () => hook.receipts.find((r) => r.headers['webhook-id'] === eventId);
        for (let i = 0; i < 200 && !arrived(); i++) await sleep(10);
        const receipt = arrived();
        assert.ok(receipt, `not delivered ${Date.now() - started} ms after the commit`);
        assert.ok(Date.now() - started < 1000, `${Date.now() - started} ms`);
        assert.deepEqual(verified(secret, receipt).data, { match_id: 8 });
      } finally {
        await w.stop();
        stopAnnouncing();
      }
    });

    it('retries at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up', async () => {
      const c = clock();
      const secret = newWebhookSecret();
      const hook = await open((_q, res) => {
        res.statusCode = 500;
        res.end('down');
      });
      const webhook = await insertWebhook(testDb.db, userId, hook.url, c.t, [secret]);
      await queueDeliveries(testDb.db, [webhook.id], 1, c.t);
      const w = worker(c);
      const waits: number[] = [];
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        assert.equal((await w.runOnce()).sent, 1, `attempt ${attempt}`);
        const [row] = await delivery(webhook.id);
        assert.equal(row?.attempts, attempt);
        assert.equal(row.last_status_code, 500);
        if (attempt === MAX_ATTEMPTS) {
          assert.equal(row.status, 'failed');
          assert.equal(row.next_attempt_at, null);
          break;
        }
        assert.equal(row.status, 'pending');
        assert.ok(row.next_attempt_at !== null);
        waits.push(row.next_attempt_at - c.t);
        // not before it is due
        c.t = row.next_attempt_at - 1;
        assert.equal((await w.runOnce()).sent, 0);
        c.t = row.next_attempt_at;
      }
      assert.deepEqual(waits, RETRY_DELAYS_MS);
      assert.equal(hook.receipts.length, MAX_ATTEMPTS);
      for (const r of hook.receipts) verified(secret, r);
      assert.equal(new Set(hook.receipts.map((r) => r.headers['webhook-id'])).size, 1);
      // nothing more, however late
      c.t += 30 * 24 * 3_600_000;
      assert.equal((await w.runOnce()).sent, 0);
    });

    it('spreads retries with jitter of ±20 %', async () => {
      const c = clock();
      const hook = await open((_q, res) => {
        res.statusCode = 503;
        res.end();
      });
      const webhook = await insertWebhook(testDb.db, userId, hook.url, c.t);
      await queueDeliveries(testDb.db, [webhook.id], 2, c.t);
      await worker(c, { random: () => 0 }).runOnce();
      const rows = await delivery(webhook.id);
      for (const row of rows) assert.equal(row.next_attempt_at, c.t + 4000);
    });

    it('honours Retry-After (seconds or a date) when later than the schedule, up to 24 h', async () => {
      const c = clock();
      let retryAfter = '3600';
      const hook = await open((_q, res) => {
        res.statusCode = 429;
        res.setHeader('retry-after', retryAfter);
        res.end();
      });
      const webhook = await insertWebhook(testDb.db, userId, hook.url, c.t);
      await queueDeliveries(testDb.db, [webhook.id], 1, c.t);
      const w = worker(c);
      await w.runOnce();
      let [row] = await delivery(webhook.id);
      assert.equal(row?.next_attempt_at, c.t + 3_600_000);
      c.t += 3_600_000;
      // a date is read against the wall clock (the receiver's) when the answer arrives, and the wait
      // it gives is scheduled. An HTTP date has whole seconds, and the answer arrives some time after
      // the date was written (long on a loaded machine), so the wait is bounded by when the send
      // began and ended, not by a fixed tolerance.
      const until = Math.floor((Date.now() + 7_200_000) / 1000) * 1000;
      retryAfter = new Date(until).toUTCString();
      const sendBegan = Date.now();
      await w.runOnce();
      const sendEnded = Date.now();
      [row] = await delivery(webhook.id);
      assert.ok(row?.next_attempt_at);
      const wait = row.next_attempt_at - c.t;
      assert.ok(
        wait >= until - sendEnded && wait <= until - sendBegan,
        `${wait} ms, not in [${until - sendEnded}, ${until - sendBegan}]`,
      );
      c.t = row.next_attempt_at;
      retryAfter = String(365 * 24 * 3600);
      await w.runOnce();
      [row] = await delivery(webhook.id);
      assert.equal(row?.next_attempt_at, c.t + 24 * 3_600_000);
      // shorter than the schedule: the schedule's wait stands (attempt 4 waits 2 h)
      c.t = row.next_attempt_at;
      retryAfter = '1';
      await w.runOnce();
      [row] = await delivery(webhook.id);
      assert.equal(row?.next_attempt_at, c.t + (RETRY_DELAYS_MS[3] ?? 0));
      assert.equal(hook.receipts.length, 4);
    });

    it('410 Gone disables the endpoint at once, ends its other deliveries, and tells its owner', async () => {
      const c = clock();
      const hook = await open((_q, res) => {
        res.statusCode = 410;
        res.end();
      });
      const webhook = await insertWebhook(testDb.db, userId, hook.url, c.t);
      await queueDeliveries(testDb.db, [webhook.id], 3, c.t);
      // only one is sent: the other two wait behind a per-webhook cap of 1
      const round = await worker(c, { perWebhook: 1 }).runOnce();
      assert.equal(round.sent, 1);
      assert.deepEqual(round.disabled, [{ webhookId: webhook.id, reason: 'gone' }]);
      const row = await testDb.db.kysely
        .selectFrom('webhooks')
        .select(['enabled', 'disabled_reason'])
        .where('id', '=', webhook.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { enabled: 0, disabled_reason: 'gone' });
      const rows = await delivery(webhook.id);
      assert.deepEqual(
        rows.map((r) => [r.status, r.next_attempt_at]),
        [
          ['dead', null],
          ['dead', null],
          ['dead', null],
        ],
      );
      const told = await testDb.db.kysely
        .selectFrom('events')
        .selectAll()
        .where('type', '=', 'webhook.endpoint_disabled')
        .execute();
      const event = told.find(
        (e) => (JSON.parse(e.data) as { webhook_id: number }).webhook_id === webhook.id,
      );
      assert.ok(event);
      assert.equal(event.user_id, userId);
      assert.equal(event.scope, 'webhooks:read');
      assert.deepEqual(JSON.parse(event.data), {
        webhook_id: webhook.id,
        url: hook.url,
        reason: 'gone',
        disabled_at: new Date(c.t).toISOString(),
      });
      c.t += 3_600_000;
      assert.equal((await worker(c).runOnce()).sent, 0);
      assert.equal(hook.receipts.length, 1);
    });

    it('disables an endpoint after 5 days of failures without a success, and tells its owner', async () => {
      const c = clock();
      let status = 500;
      const hook = await open((_q, res) => {
        res.statusCode = status;
        res.end();
      });
      const webhook = await insertWebhook(testDb.db, userId, hook.url, c.t);
      const failingSince = () =>
        testDb.db.kysely
          .selectFrom('webhooks')
          .select(['failing_since', 'enabled', 'disabled_reason'])
          .where('id', '=', webhook.id)
          .executeTakeFirstOrThrow();
      const w = worker(c);
      await queueDeliveries(testDb.db, [webhook.id], 1, c.t);
      await w.runOnce();
      assert.equal((await failingSince()).failing_since, c.t);
      // a success ends the run of failures
      c.t += 3 * 24 * 3_600_000;
      status = 200;
      await queueDeliveries(testDb.db, [webhook.id], 1, c.t);
      await w.runOnce();
      assert.equal((await failingSince()).failing_since, null);
      // a new run of failures: not yet disabled just before 5 days, disabled at 5 days
      status = 500;
      const start = c.t;
      await queueDeliveries(testDb.db, [webhook.id], 1, c.t);
      await w.runOnce();
      c.t = start + DISABLE_AFTER_FAILING_MS - 1;
      await queueDeliveries(testDb.db, [webhook.id], 1, c.t);
      assert.deepEqual((await w.runOnce()).disabled, []);
      assert.deepEqual(await failingSince(), { failing_since: start, enabled: 1, disabled_reason: null });
      c.t = start + DISABLE_AFTER_FAILING_MS;
      await queueDeliveries(testDb.db, [webhook.id], 1, c.t);
      assert.deepEqual((await w.runOnce()).disabled, [{ webhookId: webhook.id, reason: 'failing' }]);
      assert.deepEqual(await failingSince(), {
        failing_since: start,
        enabled: 0,
        disabled_reason: 'failing',
      });
      const told = await testDb.db.kysely
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'webhook.endpoint_disabled')
        .execute();
      assert.ok(
        told.some((e) => {
          const data = JSON.parse(e.data) as { webhook_id: number; reason: string };
          return data.webhook_id === webhook.id && data.reason === 'failing';
        }),
      );
      // retries still pending when it was disabled are over, not sent
      const before = hook.receipts.length;
      c.t += 30 * 24 * 3_600_000;
      assert.equal((await w.runOnce()).sent, 0);
      assert.equal(hook.receipts.length, before);
    });

    it('sends nothing to a disabled endpoint or to a private address without the setting', async () => {
      const c = clock();
      const hook = await open();
      const off = await insertWebhook(testDb.db, userId, hook.url, c.t);
      await testDb.db.kysely.updateTable('webhooks').set({ enabled: 0 }).where('id', '=', off.id).execute();
      await queueDeliveries(testDb.db, [off.id], 1, c.t);
      const round = await worker(c).runOnce();
      assert.equal(round.skipped, 1);
      assert.equal((await delivery(off.id))[0]?.status, 'dead');

      const guarded = await insertWebhook(testDb.db, userId, hook.url, c.t);
      await queueDeliveries(testDb.db, [guarded.id], 1, c.t);
      await worker(c, { allowPrivate: false }).runOnce();
      const [row] = await delivery(guarded.id);
      assert.equal(row?.status, 'pending');
      assert.match(row.last_error ?? '', /^forbidden_address: .*loopback/);
      assert.equal(hook.receipts.length, 0);
    });

    it('a claim is a lease: what a dead worker held is sent again once it runs out, not before', async () => {
      const c = clock();
      const secret = newWebhookSecret();
      const hook = await open();
      const webhook = await insertWebhook(testDb.db, userId, hook.url, c.t, [secret]);
      await queueDeliveries(testDb.db, [webhook.id], 2, c.t);
      // a worker claims both and dies before sending
      const claimed = await deliveryRepo(testDb.db).claim({
        now: c.t,
        limit: 10,
        leaseMs: 60_000,
        workerId: 'dead-worker',
        full: [],
        room: () => 10,
      });
      assert.equal(claimed.length, 2);
      const w = worker(c);
      assert.equal((await w.runOnce()).sent, 0);
      c.t += 60_001;
      assert.equal((await w.runOnce()).sent, 2);
      assert.equal(hook.receipts.length, 2);
      for (const r of hook.receipts) verified(secret, r);
      assert.ok((await delivery(webhook.id)).every((r) => r.status === 'succeeded'));
    });

    it('caps deliveries in flight per endpoint: a slow receiver does not hold up the others', async () => {
      const held: (() => void)[] = [];
      const slow = await open((_q, res) => held.push(() => res.end('late')));
      const fastSecret = newWebhookSecret();
      const fast = await open();
      const now = Date.now();
      const slowHook = await insertWebhook(testDb.db, userId, slow.url, now);
      const fastHook = await insertWebhook(testDb.db, userId, fast.url, now, [fastSecret]);
      // the slow receiver's deliveries come first in the queue
      await queueDeliveries(testDb.db, [slowHook.id], 40, now - 1000);
      await queueDeliveries(testDb.db, [fastHook.id], 20, now - 500);
      const w = deliveryWorker(testDb.db, { allowPrivate: true, concurrency: 16, perWebhook: 4, pollMs: 20 });
      w.start();
      try {
        for (let i = 0; i < 200 && fast.receipts.length < 20; i++) await sleep(25);
        assert.equal(fast.receipts.length, 20);
        assert.equal(slow.receipts.length, 4);
        for (const r of fast.receipts) verified(fastSecret, r);
      } finally {
        for (const release of held.splice(0)) release();
        await w.stop(2000);
        for (const release of held.splice(0)) release();
      }
    });
  });
}
