import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { MAX_TRANSFER } from '../src/engines/ledger.js';
import type { Problem } from '../src/http/problem.js';
import { economyRepo } from '../src/modules/economy/repo.js';
import { economyService, type HistoryItem, type TransferRecord } from '../src/modules/economy/service.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * The hub economy over HTTP: balance, transfer and history for the signed-in user, every refusal a
 * problem that moves nothing, the Idempotency-Key kept with the transfer, and the ledger's
 * append-only rule enforced by the database.
 */
for (const dialect of testDialects()) {
  describe(`economy (${dialect})`, () => {
    let ctx: TestContext;
    let economy: ReturnType<typeof economyService>;
    const tokens = new TokenTable();
    let alice: number;
    let bob: number;
    let carol: number;
    let keyCounter = 0;

    before(async () => {
      ctx = await createTestContext(dialect, { accessTokens: tokens });
      economy = economyService(economyRepo(ctx.testDb.db), Date.now);
      [alice, bob, carol] = [(await ctx.makeUser()).id, (await ctx.makeUser()).id, (await ctx.makeUser()).id];
      const all = ['economy:read', 'economy:transfer'] as const;
      tokens.tokens.set('alice', userToken([...all], { userId: alice, tier: 'partner' }));
      tokens.tokens.set('bob', userToken([...all], { userId: bob, tier: 'partner' }));
      tokens.tokens.set('carol-read', userToken(['economy:read'], { userId: carol, tier: 'partner' }));
      tokens.tokens.set('app-only', userToken([...all], { userId: null, tier: 'partner' }));
      await economy.grant(alice, 1000, 'welcome bonus');
    });
    after(() => ctx.close());

    const get = (url: string, token: string) =>
      ctx.inject({ method: 'GET', url: `/v1${url}`, headers: { authorization: `Bearer ${token}` } });
    const send = (token: string, body: unknown, key: string | null = `k-${++keyCounter}`) =>
      ctx.inject({
        method: 'POST',
        url: '/v1/economy/transfer',
        headers: { authorization: `Bearer ${token}`, ...(key === null ? {} : { 'idempotency-key': key }) },
        payload: body as Record<string, unknown>,
      });
    const balanceOf = async (token: string) =>
      (await get('/economy/balance', token)).json<{ data: { balance: number } }>().data.balance;
    const problemOf = (res: LightMyRequestResponse, status: number, code: string) => {
      assert.equal(res.statusCode, status, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const problem = res.json<Problem>();
      assert.equal(problem.code, code, res.body);
      return problem;
    };
    const ledgerRows = async () => {
      const k = ctx.testDb.db.kysely;
      const t = await k
        .selectFrom('economy_transactions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const e = await k
        .selectFrom('economy_entries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return { transactions: t.n, entries: e.n };
    };

    it('shows a balance of 0 coins, never changed, to a user who never had any', async () => {
      const res = await get('/economy/balance', 'carol-read');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { data: { balance: 0, currency: 'coins', updated_at: null } });
    });

    it('sends coins once: 201 with the transfer, both balances and histories move', async () => {
      const res = await send('alice', { to_user_id: bob, amount: 250, note: 'gg' }, 'first-transfer');
      assert.equal(res.statusCode, 201, res.body);
      const { data } = res.json<{ data: TransferRecord }>();
      assert.equal(data.from_user_id, alice);
      assert.equal(data.to_user_id, bob);
      assert.equal(data.amount, 250);
      assert.equal(data.currency, 'coins');
      assert.equal(data.note, 'gg');
      assert.equal(data.balance_after, 750);
      assert.match(data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(await balanceOf('alice'), 750);
      assert.equal(await balanceOf('bob'), 250);
      const balance = (await get('/economy/balance', 'bob')).json<{ data: { updated_at: string } }>();
      assert.equal(balance.data.updated_at, data.created_at);

      const retry = await send('alice', { to_user_id: bob, amount: 250, note: 'gg' }, 'first-transfer');
      assert.equal(retry.statusCode, 201);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.body, res.body);
      assert.equal(await balanceOf('alice'), 750);

      const bobs = (await get('/economy/transactions', 'bob')).json<{ data: HistoryItem[] }>().data;
      assert.deepEqual(
        bobs.map((h) => [h.type, h.amount, h.balance_after, h.counterparty_user_id, h.note]),
        [['transfer_in', 250, 250, alice, 'gg']],
      );
      const alices = (await get('/economy/transactions', 'alice')).json<{ data: HistoryItem[] }>().data;
      assert.deepEqual(
        alices.map((h) => [h.type, h.amount, h.balance_after, h.counterparty_user_id, h.reason]),
        [
          ['transfer_out', -250, 750, bob, null],
          ['grant', 1000, 1000, null, 'welcome bonus'],
        ],
      );
    });

    it('refuses bad transfers with their own problem codes, moving nothing', async () => {
      const before = await ledgerRows();
      const cases: [unknown, number, string][] = [
        [{ to_user_id: alice, amount: 5 }, 422, 'self_transfer'],
        [{ to_user_id: bob, amount: 0 }, 400, 'invalid_amount'],
        [{ to_user_id: bob, amount: -5 }, 400, 'invalid_amount'],
        [{ to_user_id: bob, amount: 1.5 }, 400, 'invalid_amount'],
        [{ to_user_id: bob, amount: MAX_TRANSFER + 1 }, 400, 'invalid_amount'],
        [{ to_user_id: bob, amount: 'ten' }, 400, 'invalid_amount'],
        [{ to_user_id: bob }, 400, 'invalid_body'],
        [{ to_user_id: bob, amount: 5, note: 'x'.repeat(201) }, 400, 'invalid_body'],
        [{ to_user_id: 999_999, amount: 5 }, 422, 'recipient_not_found'],
        [{ to_user_id: bob, amount: 751 }, 422, 'insufficient_funds'],
      ];
      for (const [body, status, code] of cases) {
        const problem = problemOf(await send('alice', body), status, code);
        if (code === 'invalid_amount') assert.equal(problem.errors?.[0]?.name, 'amount');
      }
      assert.match(
        problemOf(await send('alice', { to_user_id: bob, amount: 751 }), 422, 'insufficient_funds').detail,
        /balance is 750 coins; this transfer needs 751/,
      );
      // bob has 250; carol has no account at all
      problemOf(await send('bob', { to_user_id: carol, amount: 251 }), 422, 'insufficient_funds');
      assert.deepEqual(await ledgerRows(), before);
      assert.equal(await balanceOf('alice'), 750);
    });

    it('needs an Idempotency-Key, a user token and the transfer scope', async () => {
      const body = { to_user_id: bob, amount: 1 };
      const missing = problemOf(await send('alice', body, null), 400, 'invalid_parameter');
      assert.equal(missing.errors?.[0]?.name, 'Idempotency-Key');
      problemOf(await send('carol-read', { to_user_id: bob, amount: 1 }), 403, 'insufficient_scope');
      problemOf(await send('app-only', body), 403, 'user_context_required');
      problemOf(await send(ctx.key, body), 403, 'user_context_required');
      problemOf(await get('/economy/balance', ctx.key), 403, 'user_context_required');
      problemOf(await get('/economy/transactions', 'app-only'), 403, 'user_context_required');
      problemOf(await ctx.inject({ method: 'GET', url: '/v1/economy/balance' }), 401, 'missing_token');
      const reused = await send('alice', { to_user_id: bob, amount: 2 }, 'first-transfer');
      problemOf(reused, 422, 'idempotency_key_reused');
    });

    it('shows each user only their own balance and history', async () => {
      for (const [token, user] of [
        ['alice', alice],
        ['bob', bob],
        ['carol-read', carol],
      ] as const) {
        const own = await economy.balance(user);
        const res = await get('/economy/balance', token);
        assert.equal(res.json<{ data: { balance: number } }>().data.balance, own.balance);
        const history = (await get('/economy/transactions?per_page=100', token)).json<{
          data: HistoryItem[];
        }>();
        const mine = await economy.history(user, 100, 0);
        assert.deepEqual(history.data, mine.items);
        // there is no way to name another user: a query naming one is not obeyed
        const named = await get(`/economy/balance?user_id=${alice}`, token);
        assert.equal(named.json<{ data: { balance: number } }>().data.balance, own.balance);
        const namedHistory = await get(`/economy/transactions?per_page=100&user_id=${alice}`, token);
        assert.deepEqual(namedHistory.json<{ data: HistoryItem[] }>().data, mine.items);
      }
      assert.deepEqual((await get('/economy/transactions', 'carol-read')).json(), {
        data: [],
        meta: { total: 0, page: 1, per_page: 25 },
      });
    });

    it('pages the history newest first', async () => {
      for (let i = 1; i <= 6; i++) {
        assert.equal((await send('alice', { to_user_id: carol, amount: i })).statusCode, 201);
      }
      const page1 = (await get('/economy/transactions?per_page=4', 'carol-read')).json<{
        data: HistoryItem[];
        meta: unknown;
      }>();
      assert.deepEqual(
        page1.data.map((h) => h.amount),
        [6, 5, 4, 3],
      );
      assert.deepEqual(page1.meta, { total: 6, page: 1, per_page: 4 });
      const page2 = (await get('/economy/transactions?per_page=4&page=2', 'carol-read')).json<{
        data: HistoryItem[];
      }>();
      assert.deepEqual(
        page2.data.map((h) => [h.amount, h.balance_after]),
        [
          [2, 3],
          [1, 1],
        ],
      );
      problemOf(await get('/economy/transactions?per_page=101', 'carol-read'), 400, 'invalid_parameter');
    });

    it('writes the key with the transfer: a retry after the answer was lost finds it', async () => {
      const idempotency = { owner: 'app:3:lost', key: 'lost-answer' };
      const first = await economy.transfer(alice, { to_user_id: bob, amount: 7 }, idempotency);
      const before = await ledgerRows();
      const again = await economy.transfer(alice, { to_user_id: bob, amount: 7 }, idempotency);
      assert.deepEqual(again, first);
      assert.deepEqual(await ledgerRows(), before);
      await assert.rejects(
        economy.transfer(alice, { to_user_id: bob, amount: 8 }, idempotency),
        (err: Problem) => err.code === 'idempotency_key_reused',
      );
    });

    it('moves coins once when the process died between the transfer and storing its answer', async () => {
      const body = { to_user_id: bob, amount: 3 };
      const first = await send('alice', body, 'died-after-commit');
      assert.equal(first.statusCode, 201, first.body);
      const before = await ledgerRows();
      const balance = await balanceOf('alice');
      // What such a crash leaves: the transfer committed, the key still claimed with no answer
      // stored, and the claim's lease run out, so the pipeline lets a retry run the handler again.
      await ctx.testDb.db.kysely
        .updateTable('idempotency_keys')
        .set({ state: 'in_flight', status: null, content_type: null, body: null, lease_until: 0 })
        .where('key', '=', 'died-after-commit')
        .execute();
      const retry = await send('alice', body, 'died-after-commit');
      assert.equal(retry.statusCode, 201, retry.body);
      assert.equal(retry.headers['idempotent-replayed'], undefined, 'the handler ran again');
      // ...and found the transfer by the key written with it, instead of making another
      assert.deepEqual(retry.json(), first.json());
      assert.deepEqual(await ledgerRows(), before);
      assert.equal(await balanceOf('alice'), balance);
      const replay = await send('alice', body, 'died-after-commit');
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, first.body);
    });

    it("writes the key and its answer in the transfer's own transaction: one write of the key per request", async () => {
      const statements: string[] = [];
      const kysely = ctx.testDb.db.kysely.withPlugin({
        transformQuery: (args) => {
          const node = JSON.stringify(args.node);
          if (node.includes('"idempotency_keys"')) statements.push(args.node.kind);
          return args.node;
        },
        transformResult: (args) => Promise.resolve(args.result),
      });
      const counted = await buildApp({
        db: { ...ctx.testDb.db, kysely },
        config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false },
        accessTokens: tokens,
      });
      try {
        const post = (key: string, amount: number) =>
          counted.inject({
            method: 'POST',
            url: '/v1/economy/transfer',
            headers: { authorization: 'Bearer alice', 'idempotency-key': key },
            payload: { to_user_id: bob, amount },
          });
        const first = await post('one-transaction', 2);
        assert.equal(first.statusCode, 201, first.body);
        // the look-up, then the insert inside the transfer's transaction: no claim, no update after
        // (a new app also sweeps expired keys, a delete, once a minute)
        assert.deepEqual(
          statements.filter((k) => k === 'InsertQueryNode' || k === 'UpdateQueryNode'),
          ['InsertQueryNode'],
        );

        const stored = await ctx.testDb.db.kysely
          .selectFrom('idempotency_keys')
          .selectAll()
          .where('key', '=', 'one-transaction')
          .executeTakeFirstOrThrow();
        assert.equal(stored.state, 'done');
        assert.equal(stored.body, first.body);
        const replay = await post('one-transaction', 2);
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.body, first.body);
        // a refusal moves nothing and is stored after the answer, then replayed
        const before = await ledgerRows();
        const refused = await post('refused-once', MAX_TRANSFER);
        problemOf(refused, 422, 'insufficient_funds');
        const again = await post('refused-once', MAX_TRANSFER);
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.equal(again.body, refused.body);
        assert.deepEqual(await ledgerRows(), before);
      } finally {
        await counted.close();
      }
    });

    it('keeps the ledger append-only and balanced', async () => {
      const k = ctx.testDb.db.kysely;
      await assert.rejects(sql`update economy_entries set amount = amount + 1`.execute(k), /append-only/);
      await assert.rejects(sql`delete from economy_entries`.execute(k), /append-only/);
      await assert.rejects(sql`update economy_transactions set amount = 1`.execute(k), /append-only/);
      await assert.rejects(sql`delete from economy_transactions`.execute(k), /append-only/);
      if (dialect === 'postgres')
        await assert.rejects(sql`truncate economy_entries`.execute(k), /append-only/);
      // a user's balance cannot go below zero even by a direct write
      await assert.rejects(
        sql`update economy_accounts set balance = -1 where user_id = ${bob}`.execute(k),
        /check|constraint/i,
      );
      const report = await economy.audit();
      assert.equal(report.ok, true, JSON.stringify(report));
      assert.equal(report.entries, report.transactions * 2);
      // the audit notices a balance that is not the sum of its entries
      await sql`update economy_accounts set balance = balance + 5 where user_id = ${bob}`.execute(k);
      const broken = await economy.audit();
      assert.equal(broken.ok, false);
      assert.equal(broken.mismatched.length, 1);
      await sql`update economy_accounts set balance = balance - 5 where user_id = ${bob}`.execute(k);
      assert.equal((await economy.audit()).ok, true);
    });
  });
}
