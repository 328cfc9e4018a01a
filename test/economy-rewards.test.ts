import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REWARDS } from '../src/engines/ledger.js';
import { economyRepo } from '../src/modules/economy/repo.js';
import { economyService, type HistoryItem } from '../src/modules/economy/service.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { postEvents, registerServer } from './helpers/ingest.js';

/**
 * Coins minted by the ingest pipeline's rules, in the batch's own transaction: a match win and
 * each achievement unlocked pay the documented amounts, once, and a resent batch pays nothing.
 */
const steam = (n: number) => String(76561198000000000n + BigInt(n));

for (const dialect of testDialects()) {
  describe(`economy rewards from ingest (${dialect})`, () => {
    let ctx: TestContext;
    let economy: ReturnType<typeof economyService>;
    before(async () => {
      ctx = await createTestContext(dialect);
      economy = economyService(economyRepo(ctx.testDb.db), Date.now);
    });
    after(() => ctx.close());

    it('pays a match win and each unlocked achievement, once', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const match = {
        type: 'match_result',
        client_id: 'reward-1',
        ended_at: new Date(Date.now() - 60_000).toISOString(),
        map: 'de_inferno',
        team1: [{ steam_id: steam(901), name: 'Winner' }],
        team2: [{ steam_id: steam(902), name: 'Loser' }],
        team1_score: 13,
        team2_score: 7,
      };
      assert.equal((await postEvents(ctx, server.token, [match])).statusCode, 200);
      const players = await ctx.testDb.db.kysely
        .selectFrom('users')
        .select(['id', 'steam_id', 'achievements_count'])
        .where('steam_id', 'in', [steam(901), steam(902)])
        .orderBy('steam_id')
        .execute();
      const [winner, loser] = players;
      assert.ok(winner && loser && winner.achievements_count > 0);
      const expected = (wins: number, achievements: number) =>
        wins * REWARDS.match_win + achievements * REWARDS.achievement;
      assert.equal((await economy.balance(winner.id)).balance, expected(1, winner.achievements_count));
      assert.equal((await economy.balance(loser.id)).balance, expected(0, loser.achievements_count));
      const history = (await economy.history(winner.id, 10, 0)).items;
      assert.deepEqual(
        history.map((h: HistoryItem) => [h.type, h.reason, h.amount]).sort(),
        [
          ['reward', 'achievement', winner.achievements_count * REWARDS.achievement],
          ['reward', 'match_win', REWARDS.match_win],
        ].sort(),
      );

      const resent = await postEvents(ctx, server.token, [match]);
      assert.equal(resent.json<{ duplicates: number }>().duplicates, 1);
      assert.equal((await economy.balance(winner.id)).balance, expected(1, winner.achievements_count));
      const report = await economy.audit();
      assert.equal(report.ok, true, JSON.stringify(report));
      // the issuance account holds minus everything minted
      assert.equal(report.sum, 0);
    });
  });
}
