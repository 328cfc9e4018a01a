import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Problem } from '../src/http/problem.js';
import { formatEventId } from '../src/modules/events/event-id.js';
import type { EventsPageBody } from '../src/modules/events/v1-schemas.js';
import type { IngestResultBody } from '../src/modules/ingest/routes.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { changedTables, snapshotTables } from './helpers/db-snapshot.js';
import { testDialects } from './helpers/db.js';
import { assertCatalogued, eventsAfter, lastEventId, ofType } from './helpers/events.js';
import { postEvents, registerServer } from './helpers/ingest.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * Identity links (issue 26): a user's code typed in game (`POST /api-platform/ingest/links`), or a
 * plugin's code entered by the user (`POST /v1/me/links`); codes last 10 minutes and work once; an
 * identity belongs to one account (409); the routes' scopes; and what a link changes: a linked
 * Minecraft player's kills and XP land on the profile.
 */
const MIN = 60_000;
const UUID = '069a79f4-44e9-4726-a5be-fca90e38aaf5';
const EOS = 'ABCDEF0123456789abcdef0123456789';

for (const dialect of testDialects()) {
  describe(`identity links (${dialect})`, () => {
    let ctx: TestContext;
    let clock = Date.UTC(2031, 4, 1, 12, 0, 0);
    const tokens = new TokenTable();
    let alice = 0;
    let bob = 0;
    let server: { id: number; token: string };
    before(async () => {
      ctx = await createTestContext(dialect, { now: () => clock, accessTokens: tokens });
      alice = (await ctx.makeUser()).id;
      bob = (await ctx.makeUser()).id;
      tokens.tokens.set(
        'alice',
        userToken(['identify', 'identities:write'], { userId: alice, tier: 'partner' }),
      );
      tokens.tokens.set('bob', userToken(['identify', 'identities:write'], { userId: bob, tier: 'partner' }));
      tokens.tokens.set('alice-read', userToken(['identify'], { userId: alice, tier: 'partner' }));
      tokens.tokens.set('alice-stats', userToken(['stats:read'], { userId: alice, tier: 'partner' }));
      server = await registerServer(ctx.testDb.db, 'minecraft');
    });
    after(() => ctx.close());

    const v1 = (token: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
      ctx.inject({
        method,
        url: `/v1${url}`,
        headers: { authorization: `Bearer ${token}` },
        ...(payload ? { payload } : {}),
      });
    const ingest = (url: string, payload: object, token = server.token) =>
      ctx.inject({
        method: 'POST',
        url: `/api-platform/ingest${url}`,
        headers: { authorization: `Bearer ${token}` },
        payload,
      });
    const problem = (res: LightMyRequestResponse, status: number, code: string) => {
      assert.equal(res.statusCode, status, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(json<Problem>(res).code, code, res.body);
    };
    const newCode = async (token: string) => {
      const res = await v1(token, 'POST', '/me/link-codes');
      assert.equal(res.statusCode, 201, res.body);
      return json<{ data: { code: string; expires_at: string } }>(res).data;
    };
    const steve = { name: 'Steve', minecraft_uuid: UUID };

    it('links a Minecraft player with the code a user typed in game, once', async () => {
      const start = await lastEventId(ctx.testDb.db.kysely);
      const { code, expires_at } = await newCode('alice');
      assert.match(code, /^[23456789ABCDEFGHJKMNPQRSTWXYZ]{3}-[23456789ABCDEFGHJKMNPQRSTWXYZ]{3}$/);
      assert.equal(expires_at, new Date(clock + 10 * MIN).toISOString());
      const stored = await ctx.testDb.db.kysely.selectFrom('link_codes').select('code_hash').execute();
      assert.ok(
        stored.every((r) => !r.code_hash.includes(code.replace('-', ''))),
        'only a hash is stored',
      );

      const linked = await ingest('/links', { player: steve, code: code.toLowerCase().replace('-', '') });
      assert.equal(linked.statusCode, 200, linked.body);
      const username = (
        await ctx.testDb.db.kysely
          .selectFrom('users')
          .select('username')
          .where('id', '=', alice)
          .executeTakeFirstOrThrow()
      ).username;
      assert.deepEqual(json(linked), { user_id: alice, username });
      const events = await eventsAfter(ctx.testDb.db.kysely, start);
      assertCatalogued(events);
      const told = ofType(events, 'player.identity_linked');
      assert.equal(told.length, 1);
      assert.equal(told[0]?.user_id, alice);
      assert.deepEqual(told[0].data, {
        user_id: alice,
        platform: 'minecraft',
        player_id: UUID,
        name: 'Steve',
        server_id: server.id,
      });

      // the code is spent: the same answer as an unknown code
      problem(await ingest('/links', { player: steve, code }), 404, 'link_code_invalid');
      const list = await v1('alice-read', 'GET', '/me/links');
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(json(list), {
        data: [
          { platform: 'minecraft', player_id: UUID, name: 'Steve', linked_at: new Date(clock).toISOString() },
        ],
        meta: { total: 1, page: 1, per_page: 25 },
      });
    });

    it('puts a linked player’s kills and XP on the profile, and an unlinked one’s on nobody', async () => {
      const stats = async () =>
        json<{ data: { total_xp: number; combat: { game: string; kills: number }[] } }>(
          await v1('alice-stats', 'GET', `/users/${alice}/stats`),
        ).data;
      const before = await stats();
      const at = new Date(clock - MIN).toISOString();
      const kill = (client_id: string, killer: object, victim: object) => ({
        type: 'kill',
        client_id,
        occurred_at: at,
        killer,
        victim,
        weapon: 'bow',
      });
      const stranger = { name: 'Herobrine', minecraft_uuid: '853c80ef-3c37-49fd-aa49-938b674adae6' };
      const res = json<IngestResultBody>(
        await postEvents(ctx, server.token, [
          kill('a1', steve, stranger),
          kill('a2', stranger, { ...steve, name: 'S' }),
        ]),
      );
      assert.deepEqual([res.accepted, res.kills], [2, 1]);
      const after = await stats();
      // one kill (10 XP), and the first-kill achievement's XP with it
      assert.ok(after.total_xp - before.total_xp >= 10, `${before.total_xp} -> ${after.total_xp}`);
      const herobrine = await ctx.testDb.db.kysely
        .selectFrom('users')
        .select('id')
        .where('username', '=', 'Herobrine')
        .execute();
      assert.deepEqual(herobrine, [], 'an unlinked identity gets no profile');
      assert.equal(after.combat.find((c) => c.game === 'minecraft')?.kills, 1);
    });

    it('refuses an identity linked to another account with 409, changing nothing', async () => {
      const { code } = await newCode('bob');
      const before = await snapshotTables(ctx.testDb);
      problem(await ingest('/links', { player: steve, code }), 409, 'identity_linked');
      assert.deepEqual(changedTables(before, await snapshotTables(ctx.testDb)), []);
      // the refused link did not spend bob's code
      const other = await ingest('/links', { player: { name: 'Jeb', eos_id: EOS }, code });
      assert.equal(other.statusCode, 200, other.body);
      assert.equal(json<{ user_id: number }>(other).user_id, bob);
      const bobs = json<{ data: { platform: string; player_id: string }[] }>(
        await v1('bob', 'GET', '/me/links'),
      );
      assert.deepEqual(
        bobs.data.map((l) => [l.platform, l.player_id]),
        [['eos', EOS.toLowerCase()]],
      );
    });

    it('expires a code after 10 minutes', async () => {
      const { code } = await newCode('alice');
      clock += 10 * MIN;
      problem(
        await ingest('/links', { player: { name: 'Dinnerbone', eos_id: 'f'.repeat(32) }, code }),
        404,
        'link_code_invalid',
      );
    });

    it('never shows a code again in a replay of its answer (same Idempotency-Key)', async () => {
      const ask = () =>
        ctx.inject({
          method: 'POST',
          url: '/v1/me/link-codes',
          headers: { authorization: 'Bearer alice', 'idempotency-key': 'link-code-replay' },
        });
      const first = await ask();
      assert.equal(first.statusCode, 201, first.body);
      const made = json<{ data: { code: string; expires_at: string } }>(first).data;
      const replay = await ask();
      assert.equal(replay.statusCode, 201, replay.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(json(replay), { data: { code: null, expires_at: made.expires_at } });
      const stored = await ctx.testDb.db.kysely.selectFrom('idempotency_keys').select('body').execute();
      assert.ok(
        stored.every((r) => !(r.body ?? '').includes(made.code)),
        'the stored answer keeps no code',
      );
    });

    it('links the other way: a plugin’s code entered by the user', async () => {
      const made = await ingest('/link-codes', { player: { name: 'Grumm', minecraft_uuid: 'a'.repeat(32) } });
      assert.equal(made.statusCode, 201, made.body);
      const { code } = json<{ code: string }>(made);
      const linked = await v1('alice', 'POST', '/me/links', { code });
      assert.equal(linked.statusCode, 201, linked.body);
      assert.deepEqual(
        [json<{ data: { platform: string; player_id: string; name: string } }>(linked).data].map((l) => [
          l.platform,
          l.player_id,
          l.name,
        ]),
        [['minecraft', 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 'Grumm']],
      );
      problem(await v1('bob', 'POST', '/me/links', { code }), 404, 'link_code_invalid');
      // a linked identity gets no second code; a Steam id needs none
      problem(
        await ingest('/link-codes', { player: { name: 'Grumm', minecraft_uuid: 'a'.repeat(32) } }),
        409,
        'identity_linked',
      );
      problem(
        await ingest('/link-codes', { player: { name: 'Ace', steam_id: '76561198000000001' } }),
        400,
        'invalid_body',
      );
      // a user's code is not a player's: entering it in the portal finds nothing
      const { code: userCode } = await newCode('bob');
      problem(await v1('alice', 'POST', '/me/links', { code: userCode }), 404, 'link_code_invalid');
    });

    it('unlinks, after which the identity credits nobody, telling the user once', async () => {
      const start = await lastEventId(ctx.testDb.db.kysely);
      problem(
        await v1('alice', 'DELETE', `/me/links/minecraft/${'b'.repeat(32)}`),
        404,
        'identity_link_not_found',
      );
      // bob cannot remove alice's link: the same 404
      problem(
        await v1('bob', 'DELETE', `/me/links/minecraft/${'a'.repeat(32)}`),
        404,
        'identity_link_not_found',
      );
      assert.deepEqual(await eventsAfter(ctx.testDb.db.kysely, start), [], 'a failed unlink tells nothing');

      const gone = await v1('alice', 'DELETE', `/me/links/minecraft/${'a'.repeat(32)}`);
      assert.equal(gone.statusCode, 204, gone.body);
      const events = await eventsAfter(ctx.testDb.db.kysely, start);
      assertCatalogued(events);
      assert.deepEqual(
        events.map((e) => [e.type, e.user_id, e.data]),
        [
          [
            'player.identity_unlinked',
            alice,
            {
              user_id: alice,
              platform: 'minecraft',
              player_id: 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa',
              name: 'Grumm',
            },
          ],
        ],
      );
      // delivered to alice (a token with `identify`), once; to nobody else
      const pulled = async (token: string) => {
        const res = await v1(
          token,
          'GET',
          `/events?after=${formatEventId(start)}&types=player.identity_unlinked`,
        );
        assert.equal(res.statusCode, 200, res.body);
        return json<EventsPageBody>(res).data.map((e) => [e.type, e.data.player_id]);
      };
      assert.deepEqual(await pulled('alice-read'), [
        ['player.identity_unlinked', 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'],
      ]);
      assert.deepEqual(await pulled('bob'), []);
      assert.deepEqual(await pulled('alice-stats'), [], 'the event needs identify');
      assert.deepEqual(await pulled(ctx.key), [], 'never to an API key');
      const left = json<{ data: { player_id: string }[] }>(await v1('alice', 'GET', '/me/links'));
      assert.deepEqual(
        left.data.map((l) => l.player_id),
        [UUID],
      );
    });

    it('checks scopes and credentials', async () => {
      problem(await v1('alice-read', 'POST', '/me/link-codes'), 403, 'insufficient_scope');
      problem(await v1('alice-read', 'DELETE', `/me/links/minecraft/${UUID}`), 403, 'insufficient_scope');
      problem(await v1('alice-stats', 'GET', '/me/links'), 403, 'insufficient_scope');
      problem(await v1(ctx.key, 'GET', '/me/links'), 403, 'user_context_required');
      problem(
        await ingest('/links', { player: steve, code: 'ABC-DEF' }, '0'.repeat(32)),
        401,
        'invalid_server_token',
      );
      problem(await ingest('/links', { player: steve, code: 'not a code' }), 400, 'invalid_body');
    });
  });
}
