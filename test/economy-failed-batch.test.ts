import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { economyRepo } from '../src/modules/economy/repo.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { queryCounter } from './helpers/query-counter.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * A batch of transfers that fails (group commit) is written again one transfer at a time, and a
 * transfer may then end otherwise than in the batch: refused, once a neighbour it relied on fails
 * alone. Its refusal is stored under its Idempotency-Key like any other, and replayed.
 */
describe('economy: a transfer of a failed batch (sqlite)', () => {
  let ctx: TestContext;
  let app: FastifyInstance;
  const count = queryCounter();
  const tokens = new TokenTable();
  let dave: number;
  let erin: number;
  let bob: number;

  before(async () => {
    ctx = await createTestContext('sqlite', { accessTokens: tokens });
    [dave, erin, bob] = [(await ctx.makeUser()).id, (await ctx.makeUser()).id, (await ctx.makeUser()).id];
    for (const [name, userId] of [
      ['dave', dave],
      ['erin', erin],
    ] as const)
      tokens.tokens.set(name, userToken(['economy:read', 'economy:transfer'], { userId, tier: 'partner' }));
    app = await buildApp({
      db: { ...ctx.testDb.db, kysely: ctx.testDb.db.kysely.withPlugin(count.plugin) },
      config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false },
      accessTokens: tokens,
    });
  });
  after(async () => {
    await app.close();
    await ctx.close();
  });

  const send = (token: string, key: string, to_user_id: number, amount: number) =>
    app.inject({
      method: 'POST',
      url: '/v1/economy/transfer',
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': key },
      payload: { to_user_id, amount },
    });
  const grant = (userId: number, amount: number) =>
    economyRepo(ctx.testDb.db).grant(userId, amount, 'test', Date.now());

  it('a transfer refused when written again alone stores its refusal, replayed on a retry', async () => {
    const sqlite = ctx.testDb.db.sqlite;
    assert.ok(sqlite);
    await grant(dave, 10);
    await grant(erin, 50);
    await grant(bob, 1); // bob's account: no second try for a recipient without one
    // erin's transfers cannot be written (their event is refused): a batch holding one fails
    sqlite.exec(`create trigger refuse_erin before insert on events
      when new.type = 'economy.transfer.created' and json_extract(new.data, '$.from_user_id') = ${erin}
      begin select raise(abort, 'refused'); end`);
    // one batch: erin's 50 to dave, then dave's 60, affordable only after erin's
    count.labels.length = 0;
    const [credit, spend] = await Promise.all([
      send('erin', 'credit', dave, 50),
      send('dave', 'spend', bob, 60),
    ]);
    sqlite.exec('drop trigger refuse_erin');
    const locks = count.labels.filter((l) => l === 'SelectQueryNode economy_accounts').length;
    assert.equal(locks, 3, 'one batch of the two, then each alone');
    assert.equal(credit.statusCode, 500, credit.body);
    assert.equal(spend.statusCode, 422, spend.body);
    assert.equal(spend.json<{ code: string }>().code, 'insufficient_funds');

    await grant(dave, 100); // affordable now: a retry must still be the refusal, not a transfer
    const retry = await send('dave', 'spend', bob, 60);
    assert.equal(retry.statusCode, 422, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.body, spend.body);
  });
});
