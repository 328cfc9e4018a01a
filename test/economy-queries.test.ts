import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { economyRepo, type EconomyRepo } from '../src/modules/economy/repo.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { queryCounter } from './helpers/query-counter.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * A transfer is the hottest write of the API, so its statements are counted: with a new
 * Idempotency-Key it reads only the two accounts it locks and writes each table once (the key is
 * unique in the ledger, so writing it is what finds it spent: no read of the ledger first). A
 * retry of a spent key writes nothing and answers with the first transfer, even once the sender
 * could no longer afford it.
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
        'InsertQueryNode economy_transactions',
        'UpdateQueryNode economy_accounts',
        'InsertQueryNode economy_entries',
        'InsertQueryNode idempotency_keys',
        'InsertQueryNode events',
      ]);
    });

    it('transfers sent together are written together: one lock and one events insert per transaction', async () => {
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
      const times = (label: string) => count.labels.filter((l) => l === label).length;
      assert.equal(times('InsertQueryNode economy_transactions'), 20);
      const transactions = times('SelectQueryNode economy_accounts');
      // asked for in the same turn of the event loop: one transaction
      assert.equal(transactions, 1, count.labels.join('\n'));
      assert.equal(times('InsertQueryNode events'), transactions);
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
        ['InsertQueryNode economy_transactions'],
        'only the refused attempt to write the key',
      );
      assert.equal((await repo.audit()).ok, true);
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
        assert.equal(times('InsertQueryNode economy_transactions'), 20);
        // one at a time, it would be 20 transactions
        assert.ok(times('SelectQueryNode economy_accounts') <= 4, count.labels.join('\n'));
      } finally {
        await app.close();
      }
    });
  });
}
