import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { economyRepo, type EconomyRepo } from '../src/modules/economy/repo.js';
import { priorTransfersQuery } from '../src/modules/economy/transfers.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { queryCounter } from './helpers/query-counter.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * A transfer is the hottest write of the API, so its statements are counted. Transfers asked for
 * together share one transaction (group commit) and cost what one does: the accounts locked, the
 * keys looked up, each table written once. Within a batch each transfer is decided as it would be
 * alone, in order. A retry of a spent key writes nothing and answers with the first transfer, even
 * once the sender could no longer afford it.
 */
const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
/** The outbox's PostgreSQL ordering lock (outbox.ts): a raw statement, not a table's. */
const RAW = /^select pg_advisory/;

for (const dialect of testDialects()) {
  describe(`economy: statements per transfer (${dialect})`, () => {
    let testDb: TestDb;
    let repo: EconomyRepo;
    const count = queryCounter();
    let alice: number;
    let bob: number;
    let keys = 0;

    before(async () => {
      testDb = await openTestDb(dialect);
      const made = factories(testDb.db);
      [alice, bob] = [(await made.makeUser()).id, (await made.makeUser()).id];
      repo = economyRepo({ ...testDb.db, kysely: testDb.db.kysely.withPlugin(count.plugin) });
      await repo.grant(alice, 100, 'start', NOW);
      await repo.transfer({ fromUserId: alice, toUserId: bob, amount: 1, note: null }, NOW); // bob's account
    });
    after(() => testDb.drop());

    const countRows = async (table: 'economy_transactions', keys: string) =>
      (
        await testDb.db.kysely
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('idempotency_key', 'like', keys)
          .executeTakeFirstOrThrow()
      ).n;

    const transfer = async (amount: number, key: string) => {
      count.labels.length = 0;
      const result = await repo.transfer(
        {
          fromUserId: alice,
          toUserId: bob,
          amount,
          note: null,
          idempotency: {
            owner: 'app:1:1',
            key,
            answer: () => ({ fingerprint: key, response: { status: 201, contentType: 'json', body: key } }),
          },
        },
        NOW,
      );
      return { result, labels: count.labels.filter((l) => !RAW.test(l)) };
    };

    it('a new key: the accounts read once, each table written once, nothing else', async () => {
      const { result, labels } = await transfer(10, `new-${++keys}`);
      assert.equal(result.outcome, 'done');
      assert.deepEqual(labels, [
        'SelectQueryNode economy_accounts',
        'SelectQueryNode economy_transactions',
        'InsertQueryNode economy_transactions',
        'UpdateQueryNode economy_accounts',
        'InsertQueryNode economy_entries',
        'InsertQueryNode idempotency_keys',
        'InsertQueryNode events',
      ]);
    });

    it('transfers sent together are written together, in the statements of one', async () => {
      const carol = (await factories(testDb.db).makeUser()).id;
      await repo.grant(carol, 1000, 'start', NOW);
      await repo.grant(bob, 1000, 'start', NOW);
      count.labels.length = 0;
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          repo.transfer(
            {
              fromUserId: i % 2 ? carol : bob,
              toUserId: i % 2 ? bob : carol,
              amount: 1 + (i % 3),
              note: null,
              idempotency: { owner: 'app:1:2', key: `together-${i}` },
            },
            NOW,
          ),
        ),
      );
      assert.ok(outcomes.every((o) => o.outcome === 'done'));
      // asked for in the same turn of the event loop: one transaction, each statement once
      assert.deepEqual(
        count.labels.filter((l) => !RAW.test(l)),
        [
          'SelectQueryNode economy_accounts',
          'SelectQueryNode economy_transactions',
          'InsertQueryNode economy_transactions',
          'UpdateQueryNode economy_accounts',
          'InsertQueryNode economy_entries',
          'InsertQueryNode events',
        ],
      );
      assert.equal(await countRows('economy_transactions', 'together-%'), 20);
      assert.equal((await repo.audit()).ok, true);
    });

    it('a spent key: nothing written, the first transfer answered, even when it is no longer affordable', async () => {
      const key = `spent-${++keys}`;
      const first = await transfer(80, key);
      assert.equal(first.result.outcome, 'done');
      const balance = (await repo.balance(alice))?.balance ?? 0;
      assert.ok(balance < 80, `alice now has ${balance} coins, less than the transfer`);
      const again = await transfer(80, key);
      assert.deepEqual(again.result, { outcome: 'prior', transfer: first.result.transfer });
      assert.ok(!again.labels.some((l) => /^(Update|Insert)/.test(l)), again.labels.join('\n'));
      assert.equal((await repo.balance(alice))?.balance, balance, 'no coins moved');
      // affordable again, the retry still moves nothing
      await repo.grant(alice, 100, 'more', NOW);
      const retried = await transfer(80, key);
      assert.equal(retried.result.outcome, 'prior');
      assert.deepEqual(
        retried.labels.filter((l) => /^(Update|Insert)/.test(l)),
        [],
      );
      assert.equal((await repo.audit()).ok, true);
    });

    it('within a batch each transfer is decided on what the ones before it left', async () => {
      const dave = (await factories(testDb.db).makeUser()).id;
      await repo.grant(dave, 5, 'start', NOW);
      const send = (fromUserId: number, toUserId: number, amount: number, key: string) =>
        repo.transfer(
          { fromUserId, toUserId, amount, note: null, idempotency: { owner: 'app:1:3', key } },
          NOW,
        );
      count.labels.length = 0;
      const outcomes = await Promise.all([
        send(dave, bob, 3, 'd1'), // 5 -> 2
        send(dave, bob, 3, 'd2'), // refused: 2 left
        send(dave, bob, 3, 'd1'), // the same key again: the first transfer, not another
        send(bob, dave, 4, 'd3'), // dave 2 -> 6
        send(dave, bob, 3, 'd4'), // now affordable: 6 -> 3
      ]);
      assert.equal(count.labels.filter((l) => l === 'SelectQueryNode economy_accounts').length, 1);
      assert.deepEqual(
        outcomes.map((o) => o.outcome),
        ['done', 'insufficient_funds', 'prior', 'done', 'done'],
      );
      assert.deepEqual(outcomes[1], { outcome: 'insufficient_funds', balance: 2 });
      const [first, , repeat, , last] = outcomes;
      assert.ok(first.outcome === 'done' && repeat.outcome === 'prior' && last.outcome === 'done');
      assert.deepEqual(repeat.transfer, first.transfer);
      assert.equal(first.transfer.balance_after, 2);
      assert.equal(last.transfer.balance_after, 3);
      assert.equal((await repo.balance(dave))?.balance, 3);
      assert.equal((await repo.audit()).ok, true);
    });

    it('within a batch each transfer, its events and its accounts carry the time it was asked', async () => {
      const made = factories(testDb.db);
      const [erin, frank, gina, hank] = [
        await made.makeUser(),
        await made.makeUser(),
        await made.makeUser(),
        await made.makeUser(),
      ];
      for (const user of [erin, frank, gina, hank]) await repo.grant(user.id, 10, 'start', NOW);
      const asked = [NOW + 1000, NOW + 2000] as const;
      count.labels.length = 0;
      const [early, late] = await Promise.all([
        repo.transfer({ fromUserId: erin.id, toUserId: frank.id, amount: 1, note: null }, asked[0]),
        repo.transfer({ fromUserId: gina.id, toUserId: hank.id, amount: 1, note: null }, asked[1]),
      ]);
      assert.ok(early.outcome === 'done' && late.outcome === 'done');
      assert.equal(early.transfer.created_at, asked[0]);
      const times = (label: string) => count.labels.filter((l) => l === label).length;
      assert.equal(times('SelectQueryNode economy_accounts'), 1, 'one batch');
      assert.equal(times('InsertQueryNode events'), 1, 'its events in one statement, each with its own time');
      const events = await testDb.db.kysely
        .selectFrom('events')
        .select(['created_at', 'data'])
        .where('type', 'like', 'economy.transfer.%')
        .orderBy('id')
        .execute();
      const stamps = (transferId: number) =>
        events
          .filter((e) => (JSON.parse(e.data) as { transfer_id: number }).transfer_id === transferId)
          .map((e) => e.created_at);
      assert.deepEqual(stamps(early.transfer.id), [asked[0], asked[0]], "not the later transfer's time");
      assert.deepEqual(stamps(late.transfer.id), [asked[1], asked[1]]);
      assert.equal((await repo.balance(erin.id))?.updated_at, asked[0]);
      assert.equal((await repo.balance(frank.id))?.updated_at, asked[0]);
      assert.equal((await repo.balance(hank.id))?.updated_at, asked[1]);
    });

    it('over HTTP too: concurrent requests reach the ledger together (the key lookup waits behind no transaction)', async () => {
      const tokens = new TokenTable();
      for (const [name, userId] of [
        ['a', alice],
        ['b', bob],
      ] as const)
        tokens.tokens.set(name, userToken(['economy:transfer'], { userId, tier: 'partner' }));
      await repo.grant(alice, 1000, 'more', NOW);
      await repo.grant(bob, 1000, 'more', NOW);
      const app = await buildApp({
        db: { ...testDb.db, kysely: testDb.db.kysely.withPlugin(count.plugin) },
        config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false },
        accessTokens: tokens,
      });
      try {
        count.labels.length = 0;
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            app.inject({
              method: 'POST',
              url: '/v1/economy/transfer',
              headers: { authorization: `Bearer ${i % 2 ? 'a' : 'b'}`, 'idempotency-key': `http-${i}` },
              payload: { to_user_id: i % 2 ? bob : alice, amount: 1 + (i % 4) },
            }),
          ),
        );
        assert.deepEqual(
          answers.map((a) => a.statusCode),
          answers.map(() => 201),
        );
        const times = (label: string) => count.labels.filter((l) => l === label).length;
        // one at a time, it would be 20 transactions
        const transactions = times('SelectQueryNode economy_accounts');
        assert.ok(transactions <= 4, count.labels.join('\n'));
        assert.equal(times('InsertQueryNode economy_transactions'), transactions);
        assert.equal(times('InsertQueryNode idempotency_keys'), transactions, 'the answers stored together');
        assert.equal(await countRows('economy_transactions', 'http-%'), 20);
      } finally {
        await app.close();
      }
    });

    it('looking up a batch of keys probes indexes only: never a scan of the ledger', async (t) => {
      const sqlite = testDb.db.sqlite;
      if (!sqlite) return t.skip('SQLite query plan');
      const keys = Array.from({ length: 20 }, (_, i) => ({ owner: `app:1:${i}`, key: `plan-${i}` }));
      const { sql, parameters } = priorTransfersQuery(testDb.db.kysely, keys).compile();
      const plan = sqlite
        .prepare<unknown[], { detail: string }>(`explain query plan ${sql}`)
        .all(...parameters)
        .map((row) => row.detail);
      const scans = plan.filter((step) => /^SCAN (t|e)\b/.test(step));
      assert.deepEqual(scans, [], plan.join('\n'));
    });
  });
}
