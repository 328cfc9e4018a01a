import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from '../src/db/connect.js';
import { deliveryWorker } from '../src/modules/webhooks/delivery/worker.js';
import { buildIfStale, CLI, envFor, spawnChild } from './helpers/cli.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import {
  insertWebhook,
  newWebhookSecret,
  queueDeliveries,
  receiver,
  verified,
  type Receiver,
} from './helpers/webhook-receiver.js';

/** DATABASE_URL of a test database, its PostgreSQL schema carried in the connection options. */
const urlOf = (testDb: TestDb) =>
  testDb.schema
    ? `${testDb.url}${testDb.url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${testDb.schema}`)}`
    : testDb.url;

const until = async (done: () => boolean | Promise<boolean>, ms: number, what: string) => {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
};

/**
 * Scale-out and crashes: several workers on one database claim without double-sending, and a
 * worker killed in the middle of a send leaves the delivery to be sent again, not lost.
 */
for (const dialect of testDialects()) {
  describe(`webhook workers (${dialect})`, () => {
    let testDb: TestDb;
    let userId: number;
    const receivers: Receiver[] = [];
    before(async () => {
      buildIfStale();
      testDb = await openTestDb(dialect);
      userId = (await factories(testDb.db).makeUser()).id;
    });
    // each test's webhooks go with it (the worker's dispatcher would send them the next test's events)
    afterEach(() => testDb.db.kysely.deleteFrom('webhooks').execute());
    after(async () => {
      await Promise.all(receivers.map((r) => r.close()));
      await testDb.drop();
    });

    it('two workers on their own connections send every delivery exactly once', async () => {
      const secret = newWebhookSecret();
      // a little slow, so that both workers have deliveries in flight at once
      const hook = await receiver((_q, res) => setTimeout(() => res.end('ok'), 5));
      receivers.push(hook);
      const now = Date.now();
      const webhooks = await Promise.all(
        Array.from({ length: 6 }, () => insertWebhook(testDb.db, userId, hook.url, now, [secret])),
      );
      await queueDeliveries(
        testDb.db,
        webhooks.map((w) => w.id),
        50,
        now,
      );
      const total = webhooks.length * 50;
      const second = testDb.schema
        ? connect(testDb.url, { schema: testDb.schema, poolSize: 5 })
        : connect(testDb.url);
      const workers = [testDb.db, second].map((db) =>
        deliveryWorker(db, { allowPrivate: true, concurrency: 12, perWebhook: 3, pollMs: 10 }),
      );
      for (const w of workers) w.start();
      try {
        await until(() => hook.receipts.length >= total, 60_000, `${total} deliveries`);
        await sleep(300); // anything sent twice would arrive now
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        await second.close();
      }
      assert.equal(hook.receipts.length, total);
      const seen = new Set(hook.receipts.map((r) => r.headers['webhook-id']));
      // each event goes to 6 webhooks of one URL: 50 ids, each exactly 6 times
      assert.equal(seen.size, 50);
      for (const r of hook.receipts) verified(secret, r);
      const rows = await testDb.db.kysely
        .selectFrom('webhook_attempts')
        .select(['delivery_id'])
        .where(
          'webhook_id',
          'in',
          webhooks.map((w) => w.id),
        )
        .execute();
      assert.equal(rows.length, total);
      assert.equal(new Set(rows.map((r) => r.delivery_id)).size, total);
      const claimedBy = await testDb.db.kysely
        .selectFrom('webhook_deliveries')
        .select(['status'])
        .where(
          'webhook_id',
          'in',
          webhooks.map((w) => w.id),
        )
        .execute();
      assert.ok(claimedBy.every((r) => r.status === 'succeeded'));
    });

    it('a `hub worker` killed mid-delivery leaves the delivery to be sent again once its lease runs out', async () => {
      const secret = newWebhookSecret();
      let arrived = 0;
      const hook = await receiver((_q, res) => {
        arrived++;
        // the first delivery hangs until the worker is killed; the retry is answered
        if (arrived > 1) res.end('ok');
      });
      receivers.push(hook);
      const webhook = await insertWebhook(testDb.db, userId, hook.url, Date.now(), [secret]);
      const [eventId] = await queueDeliveries(testDb.db, [webhook.id], 1, Date.now());
      assert.ok(eventId);
      const child = spawnChild(process.execPath, [CLI, 'worker'], {
        env: envFor(urlOf(testDb), { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', POLL_INTERVAL_MS: '3600000' }),
      });
      child.stdout.resume();
      child.stderr.resume();
      const exited = new Promise((resolve) => child.on('exit', resolve));
      try {
        await until(() => hook.receipts.length === 1, 30_000, 'the worker to send');
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
      const row = () =>
        testDb.db.kysely
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('webhook_id', '=', webhook.id)
          .executeTakeFirstOrThrow();
      const held = await row();
      assert.equal(held.status, 'delivering');
      assert.ok(held.claimed_until !== null && held.claimed_until > Date.now());

      // another worker leaves it alone while the dead one's lease lasts...
      const now = { t: Date.now() };
      const next = deliveryWorker(testDb.db, { allowPrivate: true, now: () => now.t });
      assert.equal((await next.runOnce()).sent, 0);
      // ...and sends it once the lease has run out
      now.t = held.claimed_until + 1;
      assert.equal((await next.runOnce()).sent, 1);
      assert.equal(hook.receipts.length, 2);
      for (const r of hook.receipts) verified(secret, r);
      assert.equal(hook.receipts[1]?.headers['webhook-id'], hook.receipts[0]?.headers['webhook-id']);
      const done = await row();
      assert.equal(done.status, 'succeeded');
      assert.equal(done.attempts, 1);
    });
  });
}
