import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { IngestResultBody } from '../src/modules/ingest/routes.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { assertCatalogued, eventsAfter, lastEventId, ofType } from './helpers/events.js';
import { failWritesTo } from './helpers/fail-writes.js';
import { inRound, postLogs, registerServer, stamp } from './helpers/ingest.js';
import { countLog } from './helpers/log-counter.js';

/**
 * The ingest pipeline's events, written by the batch's own transaction: a real CS2 match log
 * replayed through the HTTP endpoint tells its kills, rounds, match, ratings, XP and rewards; a
 * resend tells nothing twice; a batch that fails tells nothing.
 */
const LOG = fileURLToPath(new URL('./fixtures/logs/cs2-competitive-de_inferno.log', import.meta.url));
const STAMP = /^L (\d\d)\/(\d\d)\/(\d{4}) - (\d\d):(\d\d):(\d\d):/;
const timeOf = (line: string): number => {
  const [, mo, d, y, h, mi, sec] = (STAMP.exec(line) ?? []).map(Number);
  return y === undefined ? 0 : Date.UTC(y, (mo ?? 1) - 1, d, h, mi, sec);
};

for (const dialect of testDialects()) {
  describe(`ingest events (${dialect})`, () => {
    let ctx: TestContext;
    let clock = 0;
    before(async () => {
      ctx = await createTestContext(dialect, { now: () => clock });
    });
    after(() => ctx.close());

    it('replaying a CS2 match tells every kill, round, the match, Elo, XP and rewards', async () => {
      const text = readFileSync(LOG, 'utf8');
      const lines = text.split('\n').filter((l) => l.length > 0);
      const tally = countLog(text, 'cs2');
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const start = await lastEventId(ctx.testDb.db.kysely);
      clock = Math.max(...lines.map(timeOf)) + 60_000;
      const half = Math.floor(lines.length / 2);
      let kills = 0;
      for (const part of [lines.slice(0, half), lines.slice(half)]) {
        const res = await postLogs(ctx, server.token, part);
        assert.equal(res.statusCode, 200, res.body);
        kills += json<IngestResultBody>(res).kills;
      }
      const events = await eventsAfter(ctx.testDb.db.kysely, start);
      assertCatalogued(events);

      const perKill = ofType(events, 'kill.recorded');
      assert.equal(perKill.length, tally.frags.length);
      assert.equal(perKill.length, kills);
      assert.ok(perKill.every((e) => e.data.server_id === server.id && e.user_id === null));
      const batched = ofType(events, 'kills.batch_recorded');
      assert.equal(
        batched.reduce((sum, e) => sum + Number(e.data.count), 0),
        kills,
      );
      assert.equal(ofType(events, 'round.ended').length, tally.rounds);
      assert.equal(
        ofType(events, 'round.ended').reduce((sum, e) => sum + Number(e.data.kills), 0),
        kills,
      );
      assert.ok(ofType(events, 'match.started').length >= 1);

      const ended = ofType(events, 'match.ended');
      assert.equal(ended.length, tally.matches.length);
      const match = tally.matches[0];
      assert.ok(match);
      const [told] = ended;
      assert.ok(told);
      assert.equal(told.data.map, 'de_inferno');
      assert.deepEqual([told.data.team1_score, told.data.team2_score], [match.ct, match.t]);
      const players = match.team1.size + match.team2.size;
      assert.equal(ofType(events, 'elo.changed').length, players);
      assert.equal(
        ofType(events, 'player.registered').length,
        new Set(tally.frags.flatMap((f) => [f.killer, f.victim])).size,
      );
      assert.ok(ofType(events, 'player.xp_gained').length > 0);
      assert.ok(ofType(events, 'player.level_up').length > 0);
      assert.ok(ofType(events, 'achievement.unlocked').length > 0);
      const rewards = ofType(events, 'economy.reward.minted');
      assert.ok(rewards.length > 0);
      // coins are private to their earner
      assert.ok(rewards.every((e) => e.user_id === e.data.user_id && e.scope === 'economy:read'));

      // the match is told after its kills, in one batch's order
      const endedAt = events.findIndex((e) => e.type === 'match.ended');
      assert.ok(events.findLastIndex((e) => e.type === 'kill.recorded') < endedAt);
    });

    it('a resent batch tells nothing twice', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      clock = Date.UTC(2026, 0, 20, 12);
      const batch = inRound(clock - 30_000, [
        `${stamp(clock - 29_000)}"Ace<2><[U:1:1001]><CT>" [0 0 0] killed "Bo<3><[U:1:1002]><TERRORIST>" [10 0 0] with "ak47"`,
      ]);
      const first = await postLogs(ctx, server.token, batch);
      assert.equal(json<IngestResultBody>(first).kills, 1);
      const start = await lastEventId(ctx.testDb.db.kysely);
      const again = await postLogs(ctx, server.token, batch);
      assert.equal(again.statusCode, 200);
      assert.deepEqual(await eventsAfter(ctx.testDb.db.kysely, start), []);
    });

    it('a batch whose transaction fails after its events are written tells nothing', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      clock = Date.UTC(2026, 0, 21, 12);
      const start = await lastEventId(ctx.testDb.db.kysely);
      const kills = async () =>
        (
          await ctx.testDb.db.kysely
            .selectFrom('kills')
            .select('id')
            .where('server_id', '=', server.id)
            .execute()
        ).length;
      // the stream state is saved after the batch's events: failing it fails the whole batch
      const failing = await failWritesTo(ctx.testDb.db, 'ingest_state');
      try {
        const res = await postLogs(
          ctx,
          server.token,
          inRound(clock - 30_000, [
            `${stamp(clock - 29_000)}"Ace<2><[U:1:1001]><CT>" [0 0 0] killed "Bo<3><[U:1:1002]><TERRORIST>" [10 0 0] with "ak47"`,
          ]),
        );
        assert.equal(res.statusCode, 500, res.body);
      } finally {
        await failing.restore();
      }
      assert.equal(await kills(), 0);
      assert.deepEqual(await eventsAfter(ctx.testDb.db.kysely, start), []);
    });
  });
}
