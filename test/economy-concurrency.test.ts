import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import { connect, type Db } from '../src/db/connect.js';
import type { Problem } from '../src/http/problem.js';
import { economyRepo } from '../src/modules/economy/repo.js';
import { economyService, type TransferRecord } from '../src/modules/economy/service.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * Transfers racing each other: the ledger stays balanced, no balance goes below zero, every 201
 * is exactly one movement of two entries, and one Idempotency-Key moves coins once however many
 * times it is retried at once. On PostgreSQL the requests are spread over two app instances
 * sharing the database, as two API processes would.
 */
const USERS = 10;
const START = 1000;

/** A small seeded generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

for (const dialect of testDialects()) {
  describe(`economy under concurrency (${dialect})`, () => {
    let ctx: TestContext;
    let second: Db | undefined;
    let apps: FastifyInstance[];
    let economy: ReturnType<typeof economyService>;
    const tokens = new TokenTable();
    const users: number[] = [];

    before(async () => {
      ctx = await createTestContext(dialect, { accessTokens: tokens });
      apps = [ctx.app];
      if (dialect === 'postgres') {
        // another API instance on its own connection pool to the same database
        const { url, schema } = ctx.testDb;
        second = connect(url, schema ? { schema } : {});
        apps.push(
          await buildApp({
            db: second,
            config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false },
            accessTokens: tokens,
          }),
        );
      }
      economy = economyService(economyRepo(ctx.testDb.db), Date.now);
      for (let i = 0; i < USERS; i++) {
        const { id } = await ctx.makeUser();
        users.push(id);
        tokens.tokens.set(
          `u${i}`,
          userToken(['economy:read', 'economy:transfer'], { userId: id, tier: 'partner' }),
        );
        await economy.grant(id, START, 'starting coins');
      }
    });
    after(async () => {
      if (apps[1]) await apps[1].close();
      await second?.close();
      await ctx.close();
    });

    const send = (n: number, from: number, body: object, key: string): Promise<LightMyRequestResponse> =>
      (apps[n % apps.length] ?? ctx.app).inject({
        method: 'POST',
        url: '/v1/economy/transfer',
        headers: { authorization: `Bearer u${from}`, 'idempotency-key': key },
        payload: body,
      });

    const transfersWritten = async (): Promise<{ transfers: number; entries: number }> => {
      const k = ctx.testDb.db.kysely;
      const t = await k
        .selectFrom('economy_transactions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('kind', '=', 'transfer')
        .executeTakeFirstOrThrow();
      const e = await k
        .selectFrom('economy_entries as e')
        .innerJoin('economy_transactions as t', 't.id', 'e.transaction_id')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('t.kind', '=', 'transfer')
        .executeTakeFirstOrThrow();
      return { transfers: t.n, entries: e.n };
    };

    const assertSound = async () => {
      const report = await economy.audit();
      assert.equal(report.ok, true, JSON.stringify(report));
      const balances = await Promise.all(users.map((u) => economy.balance(u)));
      for (const b of balances) assert.ok(b.balance >= 0, `negative balance ${b.balance}`);
      assert.equal(
        balances.reduce((s, b) => s + b.balance, 0),
        USERS * START,
        'transfers neither create nor destroy coins',
      );
    };

    it('200 concurrent transfers among 10 users: balanced, never negative, one movement per 201', async () => {
      const random = rng(14);
      const before = await transfersWritten();
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, n) => {
          const from = Math.floor(random() * USERS);
          const to = (from + 1 + Math.floor(random() * (USERS - 1))) % USERS;
          // large enough amounts that some transfers must be refused for insufficient funds
          const amount = 1 + Math.floor(random() * 600);
          return send(n, from, { to_user_id: users[to], amount }, `race-${n}`);
        }),
      );
      const statuses = new Map<string, number>();
      for (const res of results) {
        const label = res.statusCode === 201 ? '201' : `${res.statusCode} ${res.json<Problem>().code}`;
        statuses.set(label, (statuses.get(label) ?? 0) + 1);
      }
      const successes = statuses.get('201') ?? 0;
      assert.deepEqual(
        [...statuses.keys()].filter((s) => s !== '201' && s !== '422 insufficient_funds'),
        [],
        JSON.stringify([...statuses]),
      );
      assert.ok(successes > 50, `only ${successes} transfers went through`);
      assert.ok(
        (statuses.get('422 insufficient_funds') ?? 0) > 0,
        'no transfer was refused: amounts too small',
      );
      const after = await transfersWritten();
      assert.equal(after.transfers - before.transfers, successes);
      assert.equal(after.entries - before.entries, successes * 2);
      await assertSound();
    });

    it('50 concurrent retries of one Idempotency-Key move coins once', async () => {
      const before = await transfersWritten();
      const balance = (await economy.balance(users[1] ?? 0)).balance;
      const body = { to_user_id: users[1], amount: 1, note: 'once' };
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, n) => send(n, 0, body, 'the-one-key')),
      );
      const created = results.filter((r) => r.statusCode === 201);
      assert.ok(created.length >= 1);
      for (const r of results) assert.ok([201, 409].includes(r.statusCode), `${r.statusCode} ${r.body}`);
      for (const r of results.filter((x) => x.statusCode === 409))
        assert.equal(r.json<Problem>().code, 'idempotency_key_in_use');
      // every 201 is the same transfer: the first answer, replayed
      assert.equal(new Set(created.map((r) => r.json<{ data: TransferRecord }>().data.id)).size, 1);
      const late = await send(1, 0, body, 'the-one-key');
      assert.equal(late.statusCode, 201);
      assert.equal(late.headers['idempotent-replayed'], 'true');
      assert.equal(late.body, created[0]?.body);
      const after = await transfersWritten();
      assert.equal(after.transfers - before.transfers, 1);
      assert.equal((await economy.balance(users[1] ?? 0)).balance, balance + 1);
      await assertSound();
    });

    it('opposite transfers between the same two users neither deadlock nor overdraw', async () => {
      const [a, b] = [2, 3];
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, n) =>
          n % 2 === 0
            ? send(n, a, { to_user_id: users[b], amount: 7 }, `pair-${n}`)
            : send(n, b, { to_user_id: users[a], amount: 11 }, `pair-${n}`),
        ),
      );
      for (const r of results) assert.ok([201, 422].includes(r.statusCode), `${r.statusCode} ${r.body}`);
      await assertSound();
    });
  });
}
