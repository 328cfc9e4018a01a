import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { IngestResultBody } from '../src/modules/ingest/routes.js';
import { identitiesRepo } from '../src/modules/identities/repo.js';
import { dayOf, rebuildFragTotals } from '../src/modules/killboard/rollups.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { assertCatalogued, eventsAfter, lastEventId, ofType } from './helpers/events.js';
import { postEvents, registerServer } from './helpers/ingest.js';

/**
 * A plugin's JSON events (issue 26): player objects with a Steam, Minecraft or EOS id; chat,
 * round and map-change kinds; each counted once across a resend. A Minecraft identity credits the
 * hub user it is linked to, and nobody without a link.
 */
const MIN = 60_000;
const NOW = Date.UTC(2030, 0, 15, 12, 0, 0);
const at = (minutesAgo: number) => new Date(NOW - minutesAgo * MIN).toISOString();
const UUID = '069a79f4-44e9-4726-a5be-fca90e38aaf5';
const OTHER_UUID = '853c80ef3c3749fdaa49938b674adae6';
const steam = (n: number) => String(76561198000000000n + BigInt(n));

for (const dialect of testDialects()) {
  describe(`plugin events (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { now: () => NOW });
    });
    after(() => ctx.close());

    const stats = async (userId: number) =>
      json<{ data: { total_xp: number; combat: { game: string; kills: number; deaths: number }[] } }>(
        await ctx.inject({
          method: 'GET',
          url: `/v1/users/${userId}/stats`,
          headers: { authorization: `Bearer ${ctx.key}` },
        }),
      ).data;

    it('accepts every kind once across a resend, and tells chat, rounds and the map', async () => {
      const server = await registerServer(ctx.testDb.db, 'minecraft');
      const owner = await ctx.makeUser();
      await ctx.testDb.db.kysely
        .updateTable('game_servers')
        .set({ owner_user_id: owner.id })
        .where('id', '=', server.id)
        .execute();
      const start = await lastEventId(ctx.testDb.db.kysely);
      const batch = [
        { type: 'map_change', client_id: 'm1', occurred_at: at(9), map: 'skyblock' },
        {
          type: 'player_session',
          client_id: 's1',
          occurred_at: at(9),
          action: 'connect',
          player: { name: 'Steve', minecraft_uuid: UUID.replace(/-/g, '').toUpperCase() },
        },
        {
          type: 'player_session',
          client_id: 's2',
          occurred_at: at(9),
          action: 'connect',
          player: { name: 'Ace', steam_id: steam(7001) },
        },
        { type: 'round', client_id: 'r1', occurred_at: at(8), action: 'start', round_number: 1 },
        {
          type: 'chat',
          client_id: 'c1',
          occurred_at: at(8),
          player: { name: 'Steve', minecraft_uuid: UUID },
          message: '!rank',
          team_only: true,
        },
        {
          type: 'round',
          client_id: 'r2',
          occurred_at: at(7),
          action: 'end',
          round_number: 1,
          winner: 'team1',
        },
      ];
      const first = json<IngestResultBody>(await postEvents(ctx, server.token, batch));
      assert.deepEqual([first.accepted, first.duplicates, first.rejected], [6, 0, 0], JSON.stringify(first));
      const again = json<IngestResultBody>(await postEvents(ctx, server.token, batch));
      assert.deepEqual([again.accepted, again.duplicates, again.rejected], [0, 6, 0]);

      const events = await eventsAfter(ctx.testDb.db.kysely, start);
      assertCatalogued(events);
      const chat = ofType(events, 'chat.message');
      assert.equal(chat.length, 1, 'told once, to the owner');
      const [told] = chat;
      assert.ok(told);
      assert.equal(told.user_id, owner.id);
      assert.equal(told.scope, 'chat:read');
      assert.deepEqual(
        [told.data.steam_id, told.data.user_id, told.data.channel, told.data.text],
        [null, null, 'team', '!rank'],
        'an unlinked Minecraft sender is nobody, and never passes for a Steam id',
      );
      assert.deepEqual(
        ofType(events, 'round.started').map((e) => [e.data.map, e.data.round]),
        [['skyblock', 1]],
      );
      assert.deepEqual(
        ofType(events, 'round.ended').map((e) => [e.data.map, e.data.round, e.data.kills]),
        [['skyblock', 1, 0]],
      );
      const row = await ctx.testDb.db.kysely
        .selectFrom('game_servers')
        .select('map')
        .where('id', '=', server.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.map, 'skyblock');
      // the Steam player got a profile; the Minecraft one did not
      assert.equal(ofType(events, 'player.registered').length, 1);
    });

    it('credits a linked Minecraft identity with kills and XP, and an unlinked one nobody', async () => {
      const server = await registerServer(ctx.testDb.db, 'minecraft');
      const user = await ctx.makeUser();
      await identitiesRepo(ctx.testDb.db.kysely).insertLink({
        platform: 'minecraft',
        player_id: UUID,
        user_id: user.id,
        name: 'Steve',
        server_id: server.id,
        linked_at: NOW - 60 * MIN,
      });
      const before = await stats(user.id);
      const feedBefore = await ctx.testDb.db.kysely
        .selectFrom('kills')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      const kill = (client_id: string, killer: object, victim: object) => ({
        type: 'kill',
        client_id,
        occurred_at: at(5),
        killer,
        victim,
        weapon: 'diamond_sword',
        headshot: true,
      });
      const steve = { name: 'Steve', minecraft_uuid: UUID };
      const alex = { name: 'Alex', minecraft_uuid: OTHER_UUID };
      const batch = [
        kill('k1', steve, alex),
        kill('k2', steve, alex),
        kill('k3', alex, steve),
        {
          type: 'match_result',
          client_id: 'mr1',
          ended_at: at(4),
          map: 'arena',
          team1: [steve],
          team2: [alex],
          team1_score: 3,
          team2_score: 1,
        },
      ];
      const first = json<IngestResultBody>(await postEvents(ctx, server.token, batch));
      assert.deepEqual(
        [first.accepted, first.rejected, first.kills, first.matches],
        [4, 0, 2, 1],
        JSON.stringify(first),
      );
      const resent = json<IngestResultBody>(await postEvents(ctx, server.token, batch));
      assert.deepEqual([resent.accepted, resent.duplicates, resent.kills], [0, 4, 0]);

      const after = await stats(user.id);
      // 2 kills (10 each) + 2 headshots (5 each) + a match played (20) and won (50), plus any achievements
      assert.ok(after.total_xp - before.total_xp >= 100, `${before.total_xp} -> ${after.total_xp}`);
      assert.deepEqual(
        after.combat.find((c) => c.game === 'minecraft'),
        { game: 'minecraft', kills: 2, deaths: 1, headshots: 2, hs_pct: 100 },
      );
      // a rebuild of the top-frag totals (after a bulk load) keeps the deaths the feed does not hold
      await rebuildFragTotals(ctx.testDb.db.kysely, dayOf(NOW));
      const deaths = await ctx.testDb.db.kysely
        .selectFrom('death_totals')
        .select('deaths')
        .where('user_id', '=', user.id)
        .where('game', '=', 'minecraft')
        .executeTakeFirst();
      assert.equal(Number(deaths?.deaths), 1);
      const feedAfter = await ctx.testDb.db.kysely
        .selectFrom('kills')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(feedAfter.n), Number(feedBefore.n), 'no Minecraft UUID in a steam_id column');
      // nobody holds Alex's UUID: no profile was made for it
      const made = await ctx.testDb.db.kysely
        .selectFrom('users')
        .select('id')
        .where('username', '=', 'Alex')
        .execute();
      assert.deepEqual(made, []);
    });

    it('refuses a player object with no id, two ids or a malformed one, alone', async () => {
      const server = await registerServer(ctx.testDb.db, 'rust');
      const chat = (client_id: string, player: object) => ({
        type: 'chat',
        client_id,
        occurred_at: at(1),
        player,
        message: 'hi',
      });
      const res = json<IngestResultBody>(
        await postEvents(ctx, server.token, [
          chat('a', { name: 'x' }),
          chat('b', { name: 'x', steam_id: steam(1), eos_id: 'a'.repeat(32) }),
          chat('c', { name: 'x', eos_id: 'z'.repeat(32) }),
          chat('d', { name: 'x', eos_id: 'A'.repeat(32) }),
        ]),
      );
      assert.deepEqual([res.accepted, res.rejected], [1, 3]);
      assert.deepEqual(
        res.errors.map((e) => e.index),
        [0, 1, 2],
      );
      for (const e of res.errors) assert.match(e.reason, /^player/);
    });
  });
}
