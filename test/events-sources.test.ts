import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clansStore } from '../src/modules/clans/repo.js';
import { clansService } from '../src/modules/clans/service.js';
import { economyRepo } from '../src/modules/economy/repo.js';
import { economyService } from '../src/modules/economy/service.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { assertCatalogued, eventsAfter, lastEventId, ofType } from './helpers/events.js';
import { failWritesTo } from './helpers/fail-writes.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * Each source writes its events in the transaction of the change, with data that fits the catalog:
 * the economy (grants, transfers) and clans (every change). A change whose event cannot be
 * written does not happen: the two are one transaction.
 */
for (const dialect of testDialects()) {
  describe(`events at the source (${dialect})`, () => {
    let ctx: TestContext;
    const tokens = new TokenTable();
    before(async () => {
      ctx = await createTestContext(dialect, { accessTokens: tokens });
    });
    after(() => ctx.close());
    const since = () => lastEventId(ctx.testDb.db.kysely);
    const told = (start: number) => eventsAfter(ctx.testDb.db.kysely, start);

    it('economy: a grant and a transfer are told privately to each user, with their balance', async () => {
      const economy = economyService(economyRepo(ctx.testDb.db), Date.now);
      const [alice, bob] = [(await ctx.makeUser()).id, (await ctx.makeUser()).id];
      tokens.tokens.set(
        'alice',
        userToken(['economy:read', 'economy:transfer'], { userId: alice, tier: 'partner' }),
      );
      const start = await since();
      await economy.grant(alice, 1000, 'welcome bonus');
      const res = await ctx.inject({
        method: 'POST',
        url: '/v1/economy/transfer',
        headers: { authorization: 'Bearer alice', 'idempotency-key': 'events-1' },
        payload: { to_user_id: bob, amount: 250, note: 'gg' },
      });
      assert.equal(res.statusCode, 201, res.body);
      const events = await told(start);
      assertCatalogued(events);
      assert.deepEqual(
        events.map((e) => [e.type, e.user_id, e.data.balance]),
        [
          ['economy.grant.created', alice, 1000],
          ['economy.transfer.created', alice, 750],
          ['economy.transfer.received', bob, 250],
        ],
      );
      // a replayed request is not a second transfer
      const replay = await ctx.inject({
        method: 'POST',
        url: '/v1/economy/transfer',
        headers: { authorization: 'Bearer alice', 'idempotency-key': 'events-1' },
        payload: { to_user_id: bob, amount: 250, note: 'gg' },
      });
      assert.equal(replay.statusCode, 201);
      assert.equal((await told(start)).length, 3);
    });

    it('economy: a transfer whose event cannot be written moves nothing', async () => {
      const economy = economyService(economyRepo(ctx.testDb.db), Date.now);
      const [carol, dave] = [(await ctx.makeUser()).id, (await ctx.makeUser()).id];
      await economy.grant(carol, 100, 'seed');
      tokens.tokens.set(
        'carol',
        userToken(['economy:read', 'economy:transfer'], { userId: carol, tier: 'partner' }),
      );
      const failing = await failWritesTo(ctx.testDb.db, 'events');
      try {
        const res = await ctx.inject({
          method: 'POST',
          url: '/v1/economy/transfer',
          headers: { authorization: 'Bearer carol', 'idempotency-key': 'events-2' },
          payload: { to_user_id: dave, amount: 40 },
        });
        assert.equal(res.statusCode, 500, res.body);
      } finally {
        await failing.restore();
      }
      assert.equal((await economy.balance(carol)).balance, 100);
      assert.equal((await economy.balance(dave)).balance, 0);
    });

    it('clans: every change is told, invites only to the invitee, a private clan only to whom it concerns', async () => {
      const clans = clansService(clansStore(ctx.testDb.db.kysely), Date.now);
      const [owner, joiner, invitee, other] = [
        (await ctx.makeUser()).id,
        (await ctx.makeUser()).id,
        (await ctx.makeUser()).id,
        (await ctx.makeUser()).id,
      ];
      const start = await since();
      const { clan } = await clans.create(owner, { name: 'Night Owls', tag: 'OWL', game: 'cs2' });
      await clans.updateSettings(owner, clan.id, { join_policy: 'open' });
      await clans.join(joiner, clan.id);
      await clans.promote(owner, clan.id, joiner);
      await clans.demote(owner, clan.id, joiner);
      await clans.invite(owner, clan.id, invitee);
      await clans.acceptInvite(invitee, clan.id);
      await clans.invite(owner, clan.id, other);
      await clans.removeInvite(other, clan.id, other);
      await clans.invite(owner, clan.id, other);
      await clans.removeInvite(owner, clan.id, other);
      await clans.kick(owner, clan.id, invitee);
      await clans.transfer(owner, clan.id, joiner);
      await clans.leave(owner, clan.id);
      await clans.disband(joiner, clan.id);
      const events = await told(start);
      assertCatalogued(events);
      assert.deepEqual(
        events.map((e) => [e.type, e.user_id]),
        [
          ['clan.created', null],
          ['clan.updated', null],
          ['clan.member_joined', null],
          ['clan.member_promoted', null],
          ['clan.member_demoted', null],
          ['clan.invite_created', invitee],
          ['clan.member_joined', null],
          ['clan.invite_accepted', invitee],
          ['clan.invite_created', other],
          ['clan.invite_declined', other],
          ['clan.invite_created', other],
          ['clan.invite_revoked', other],
          ['clan.member_kicked', null],
          ['clan.ownership_transferred', null],
          ['clan.member_left', null],
          ['clan.disbanded', null],
        ],
      );
      assert.deepEqual(ofType(events, 'clan.member_kicked')[0]?.data, {
        clan_id: clan.id,
        game: 'cs2',
        user_id: invitee,
        role: 'member',
        by_user_id: owner,
      });

      const secret = await clans.create(other, { name: 'Hidden', tag: 'HID', game: 'cs2' });
      const before = await since();
      await clans.updateSettings(other, secret.clan.id, { visibility: 'private' });
      const [hidden] = await told(before);
      assert.equal(hidden?.type, 'clan.updated');
      assert.equal(hidden.user_id, other);
    });

    it('clans: a change whose event cannot be written does not happen', async () => {
      const clans = clansService(clansStore(ctx.testDb.db.kysely), Date.now);
      const founder = (await ctx.makeUser()).id;
      const failing = await failWritesTo(ctx.testDb.db, 'events');
      try {
        await assert.rejects(clans.create(founder, { name: 'Ghosts', tag: 'GST', game: 'cs2' }));
      } finally {
        await failing.restore();
      }
      const { clan } = await clans.create(founder, { name: 'Ghosts', tag: 'GST', game: 'cs2' });
      assert.equal(clan.name, 'Ghosts');
    });
  });
}
