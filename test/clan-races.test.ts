import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { connect, type Db } from '../src/db/connect.js';
import type { ClanDetailBody } from '../src/modules/clans/schemas.js';
import { clanClient, expectProblem, type ClanClient } from './helpers/clans.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { TokenTable } from './helpers/token-table.js';

const codesOf = (responses: { statusCode: number; body: string }[]) =>
  responses.map((r) =>
    r.statusCode < 300 ? String(r.statusCode) : (JSON.parse(r.body) as { code: string }).code,
  );

const tally = (values: string[]) =>
  Object.fromEntries([...new Set(values)].sort().map((v) => [v, values.filter((x) => x === v).length]));

/**
 * Clan rules under concurrency and the constraints the database holds even against a writer that
 * skips the code's checks. On PostgreSQL the requests go through two API instances (a pool each)
 * on one database. On SQLite one instance: two connections in one process would block each other's
 * event loop in the driver's synchronous busy wait, which separate processes never do.
 */
for (const dialect of testDialects()) {
  describe(`clan races and database rules (${dialect})`, () => {
    let ctx: TestContext;
    let second: Db | undefined;
    let otherApp: FastifyInstance | undefined;
    let c: ClanClient;
    let c2: ClanClient;
    const tokens = new TokenTable();

    before(async () => {
      ctx = await createTestContext(dialect, { accessTokens: tokens });
      if (dialect === 'postgres') {
        second = connect(ctx.testDb.url, ctx.testDb.schema ? { schema: ctx.testDb.schema } : {});
        otherApp = await buildApp({
          db: second,
          config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false },
          accessTokens: tokens,
        });
      }
      c = clanClient(ctx.app, tokens, ctx, ctx.key);
      c2 = otherApp ? clanClient(otherApp, tokens, ctx, ctx.key) : c;
    });
    after(async () => {
      await otherApp?.close();
      await second?.close();
      await ctx.close();
    });

    /** Half the calls through each instance, all at once. */
    const both = <T>(n: number, call: (client: ClanClient, i: number) => Promise<T>) =>
      Promise.all(Array.from({ length: n }, (_, i) => call(i % 2 === 0 ? c : c2, i)));

    it('30 players joining a clan with room for 4 more: exactly 4 get in', async () => {
      const clan = await c.makeClan({ game: 'cs2', settings: { join_policy: 'open', max_members: 5 } });
      const players = await Promise.all(Array.from({ length: 30 }, () => c.player()));
      const results = await both(30, (client, i) =>
        client.call('POST', `/clans/${clan.id}/join`, players[i]),
      );
      assert.deepEqual(tally(codesOf(results)), { '201': 4, clan_full: 26 });
      const detail = await c.detail(clan.id);
      assert.equal(detail.member_count, 5);
      assert.equal(detail.members.length, 5);
    });

    it('one player joining 6 clans of a game at once ends in exactly one', async () => {
      const clans = await Promise.all(
        Array.from({ length: 6 }, () => c.makeClan({ game: 'rust', settings: { join_policy: 'open' } })),
      );
      const p = await c.player();
      const results = await both(6, (client, i) => client.call('POST', `/clans/${clans[i]?.id}/join`, p));
      assert.deepEqual(tally(codesOf(results)), { '201': 1, already_in_clan: 5 });
      const rows = await ctx.testDb.db.kysely
        .selectFrom('clan_members')
        .selectAll()
        .where('user_id', '=', p.id)
        .execute();
      assert.equal(rows.length, 1);
      const counts = await Promise.all(clans.map((clan) => c.detail(clan.id).then((d) => d.member_count)));
      assert.deepEqual(counts.sort(), [1, 1, 1, 1, 1, 2]);
    });

    it('12 players creating the same name in different cases: one clan, 11 clan_name_taken', async () => {
      const players = await Promise.all(Array.from({ length: 12 }, () => c.player()));
      const results = await both(12, (client, i) =>
        client.call('POST', '/clans', players[i], {
          name: i % 2 ? 'Race Winners' : 'RACE winners',
          tag: `RW${i}`,
          game: 'minecraft',
        }),
      );
      assert.deepEqual(tally(codesOf(results)), { '201': 1, clan_name_taken: 11 });
      const others = await Promise.all(Array.from({ length: 8 }, () => c.player()));
      const tagged = await both(8, (client, i) =>
        client.call('POST', '/clans', others[i], {
          name: `Tag Race ${i}`,
          tag: i % 2 ? 'zz' : 'ZZ',
          game: 'minecraft',
        }),
      );
      assert.deepEqual(tally(codesOf(tagged)), { '201': 1, clan_tag_taken: 7 });
    });

    it('one player creating clans of one game at once ends owning one', async () => {
      const p = await c.player();
      const results = await both(8, (client, i) =>
        client.call('POST', '/clans', p, { name: `Solo Race ${i}`, tag: `SR${i}`, game: 'cs16' }),
      );
      assert.deepEqual(tally(codesOf(results)), { '201': 1, already_in_clan: 7 });
    });

    it('concurrent kicks, promotions and a transfer leave exactly one owner and a true count', async () => {
      const clan = await c.makeClan({ game: 'cs2', officers: 3, members: 6 });
      const [o1, o2, o3] = clan.officers;
      const calls = [
        ...clan.members.map(
          (m, i) => (client: ClanClient) =>
            client.call('DELETE', `/clans/${clan.id}/members/${m.id}`, i % 2 ? o1 : o2),
        ),
        (client: ClanClient) =>
          client.call('POST', `/clans/${clan.id}/transfer`, clan.owner, { user_id: o3?.id }),
        (client: ClanClient) => client.call('POST', `/clans/${clan.id}/members/${o1?.id}/demote`, clan.owner),
        (client: ClanClient) => client.call('POST', `/clans/${clan.id}/leave`, o2),
      ];
      await both(calls.length, (client, i) => calls[i]?.(client) ?? Promise.reject(new Error('no call')));
      const detail = await c.detail(clan.id);
      assert.equal(detail.members.filter((m) => m.role === 'owner').length, 1);
      assert.equal(detail.member_count, detail.members.length);
      const rows = await ctx.testDb.db.kysely
        .selectFrom('clan_members')
        .select('user_id')
        .where('clan_id', '=', clan.id)
        .execute();
      assert.equal(rows.length, detail.member_count);
    });

    it('Idempotency-Key: a retried create or leave acts once and replays the first answer', async () => {
      const p = await c.player();
      const body = { name: 'Retry Safe', tag: 'RS', game: 'cs2' };
      const headers = { 'idempotency-key': 'create-retry-safe-1' };
      const [first, retry] = [
        await c.call('POST', '/clans', p, body, headers),
        await c2.call('POST', '/clans', p, body, headers),
      ];
      assert.equal(first.statusCode, 201);
      assert.equal(retry.statusCode, 201);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.body, first.body);
      const made = await ctx.testDb.db.kysely
        .selectFrom('clans')
        .select('id')
        .where('name', '=', 'Retry Safe')
        .execute();
      assert.equal(made.length, 1);
      expectProblem(
        await c.call('POST', '/clans', p, { ...body, tag: 'RS2' }, headers),
        422,
        'idempotency_key_reused',
      );

      const clanId = first.json<{ data: ClanDetailBody }>().data.id;
      c.ok(await c.call('PUT', `/clans/${clanId}/settings`, p, { join_policy: 'open' }), 200);
      const joiner = await c.player();
      c.ok(await c.call('POST', `/clans/${clanId}/join`, joiner), 201);
      const leave = { 'idempotency-key': 'leave-1' };
      const left = await c.call('POST', `/clans/${clanId}/leave`, joiner, undefined, leave);
      const again = await c2.call('POST', `/clans/${clanId}/leave`, joiner, undefined, leave);
      assert.equal(left.statusCode, 204);
      assert.equal(again.statusCode, 204);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      // without the key, a second leave is an honest 404
      expectProblem(await c.call('POST', `/clans/${clanId}/leave`, joiner), 404, 'clan_member_not_found');
    });

    describe('the database holds the rules by itself', () => {
      const k = () => ctx.testDb.db.kysely;
      let clanId: number;
      let game: string;
      let ownerId: number;

      before(async () => {
        const clan = await c.makeClan({ game: 'cs2', members: 1 });
        clanId = clan.id;
        game = clan.game;
        ownerId = clan.owner.id;
      });

      it('a second owner', async () => {
        const member = (await c.detail(clanId)).members.find((m) => m.role === 'member');
        await assert.rejects(
          k()
            .updateTable('clan_members')
            .set({ role: 'owner' })
            .where('user_id', '=', member?.user_id ?? 0)
            .execute(),
        );
      });

      it('a second clan of the same game for one player', async () => {
        const other = await c.makeClan({ game: 'cs2' });
        await assert.rejects(
          k()
            .insertInto('clan_members')
            .values({ clan_id: other.id, game, user_id: ownerId, role: 'member', joined_at: 0 })
            .execute(),
        );
      });

      it('a member whose game is not the clan\u2019s', async () => {
        const { id } = await ctx.makeUser();
        await assert.rejects(
          k()
            .insertInto('clan_members')
            .values({ clan_id: clanId, game: 'rust', user_id: id, role: 'member', joined_at: 0 })
            .execute(),
        );
      });

      it('more members than the maximum, and a name or tag in another case', async () => {
        await assert.rejects(
          k().updateTable('clans').set({ member_count: 51 }).where('id', '=', clanId).execute(),
        );
        const existing = await k()
          .selectFrom('clans')
          .select(['name', 'tag'])
          .where('id', '=', clanId)
          .executeTakeFirstOrThrow();
        const row = {
          game,
          description: '',
          join_policy: 'open',
          visibility: 'public',
          max_members: 5,
          member_count: 1,
          created_at: 0,
          updated_at: 0,
        } as const;
        await assert.rejects(
          k()
            .insertInto('clans')
            .values({ ...row, name: existing.name.toUpperCase(), tag: 'NEW1' })
            .execute(),
        );
        await assert.rejects(
          k()
            .insertInto('clans')
            .values({ ...row, name: 'Brand New', tag: existing.tag.toLowerCase() })
            .execute(),
        );
      });
    });
  });
}
