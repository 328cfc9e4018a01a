import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Problem } from '../src/http/problem.js';
import type { ClanDetailBody } from '../src/modules/clans/schemas.js';
import { economyRepo } from '../src/modules/economy/repo.js';
import { economyService } from '../src/modules/economy/service.js';
import { clanClient, type ClanClient, type Player } from './helpers/clans.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { postEvents, registerServer } from './helpers/ingest.js';
import { FORM, PORTAL, signUp, type PortalSession } from './helpers/portal.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * Request bodies mean exactly what the published schema says: no type coercion, no unknown field
 * dropped without a word, anywhere. Each case below was accepted (or a 500) before: `true` moved a
 * coin, `[3]` moved 3, a number became a clan's name, unknown fields vanished, a settings body of
 * only an unknown field answered 200. URL parameters keep being converted by their schema.
 */
for (const dialect of testDialects()) {
  describe(`request bodies are checked exactly as published (${dialect})`, () => {
    let ctx: TestContext;
    let c: ClanClient;
    const tokens = new TokenTable();
    let alice: number;
    let bob: number;
    let keys = 0;

    before(async () => {
      ctx = await createTestContext(dialect, { accessTokens: tokens });
      c = clanClient(ctx.app, tokens, ctx, ctx.key);
      [alice, bob] = [(await ctx.makeUser()).id, (await ctx.makeUser()).id];
      tokens.tokens.set(
        'alice',
        userToken(['economy:read', 'economy:transfer'], { userId: alice, tier: 'partner' }),
      );
      await economyService(economyRepo(ctx.testDb.db), Date.now).grant(alice, 100, 'test coins');
    });
    after(() => ctx.close());

    /** Asserts a 400 problem naming `field` in its `errors`, whose reason matches `reason`. */
    function refused(res: LightMyRequestResponse, field: string, reason: RegExp, code = 'invalid_body') {
      assert.equal(res.statusCode, 400, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const problem = res.json<Problem>();
      assert.equal(problem.code, code, res.body);
      const named = problem.errors?.find((e) => e.name === field);
      assert.ok(named, `${field} is not named: ${res.body}`);
      assert.equal(named.in, 'body');
      assert.match(named.reason, reason, res.body);
    }

    const balance = async (user: 'alice') =>
      (
        await ctx.inject({
          method: 'GET',
          url: '/v1/economy/balance',
          headers: { authorization: `Bearer ${user}` },
        })
      ).json<{ data: { balance: number } }>().data.balance;
    const transfer = (body: unknown) =>
      ctx.inject({
        method: 'POST',
        url: '/v1/economy/transfer',
        headers: { authorization: 'Bearer alice', 'idempotency-key': `strict-${++keys}` },
        payload: body as object,
      });

    it('moves no coin for an amount or recipient of the wrong JSON type', async () => {
      const cases: [unknown, string, RegExp, string][] = [
        [{ to_user_id: bob, amount: true }, 'amount', /whole number/, 'invalid_amount'],
        [{ to_user_id: bob, amount: [3] }, 'amount', /whole number/, 'invalid_amount'],
        [{ to_user_id: bob, amount: '5' }, 'amount', /whole number/, 'invalid_amount'],
        [{ to_user_id: String(bob), amount: 5 }, 'to_user_id', /^must be an integer/, 'invalid_body'],
        [{ to_user_id: bob, amount: 5, from_user_id: bob }, 'from_user_id', /not allowed/, 'invalid_body'],
      ];
      for (const [body, field, reason, code] of cases) refused(await transfer(body), field, reason, code);
      assert.equal(await balance('alice'), 100);
      assert.equal((await transfer({ to_user_id: bob, amount: 5 })).statusCode, 201);
      assert.equal(await balance('alice'), 95);
    });

    describe('clans', () => {
      let owner: Player;
      const clanCount = async () =>
        Number(
          (
            await ctx.testDb.db.kysely
              .selectFrom('clans')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );

      before(async () => {
        owner = await c.player();
      });

      it('creates no clan from a number as its name or with unknown fields', async () => {
        const before = await clanCount();
        const base = { name: 'Night Owls', tag: 'OWL', game: 'cs2' };
        refused(await c.call('POST', '/clans', owner, { ...base, name: 12345 }), 'name', /^must be a string/);
        refused(
          await c.call('POST', '/clans', owner, { ...base, owner_id: owner.id, is_verified: true }),
          'owner_id',
          /not allowed/,
        );
        assert.equal(await clanCount(), before);
      });

      it('changes no setting from a string or an array for a number, or from only an unknown field', async () => {
        const clan = await c.makeClan();
        const put = (body: unknown) => c.call('PUT', `/clans/${clan.id}/settings`, clan.owner, body);
        refused(await put({ max_members: '40' }), 'max_members', /^must be an integer from 2 to 100/);
        refused(await put({ max_members: [45] }), 'max_members', /^must be an integer from 2 to 100/);
        refused(await put({ is_verified: true }), 'is_verified', /not allowed/);
        const detail = await c.detail(clan.id);
        assert.equal(detail.max_members, 50);
        assert.equal(detail.updated_at, detail.created_at);
        assert.equal((await put({ max_members: 40 })).statusCode, 200);
        assert.equal((await c.detail(clan.id)).max_members, 40);
      });
    });

    it('refuses unknown fields on the portal JSON routes and ingest events (they were dropped)', async () => {
      const session: PortalSession = await signUp(ctx);
      refused(await session.call('POST', '/keys', { name: 'bot', tier: 'partner' }), 'tier', /not allowed/);
      const listed = (await session.call('GET', '/my-keys')).json<{ keys: unknown[] }>();
      assert.deepEqual(listed.keys, []);

      const server = await registerServer(ctx.testDb.db, 'rust');
      const res = await ctx.inject({
        method: 'POST',
        url: '/api-platform/ingest/events',
        headers: { authorization: `Bearer ${server.token}` },
        payload: { events: [], server_id: 1 },
      });
      refused(res, 'server_id', /not allowed/);
      assert.equal((await postEvents(ctx, server.token, [{ type: 'kill' }])).statusCode, 200);
    });

    it('keeps converting query and path parameters by their schema', async () => {
      const res = await c.call('GET', '/clans?per_page=2&page=1', ctx.key);
      assert.equal(res.statusCode, 200, res.body);
      const { meta } = res.json<{ meta: { page: unknown; per_page: unknown } }>();
      assert.deepEqual([meta.page, meta.per_page], [1, 2]);
      const clan = await c.makeClan();
      assert.equal(
        (await c.call('GET', `/clans/${clan.id}`, ctx.key)).json<{ data: ClanDetailBody }>().data.id,
        clan.id,
      );
    });

    it('caps every portal form at 16 KiB: 200 KB posted to sign-out is refused and signs nobody out', async () => {
      const session = await signUp(ctx);
      const post = (contentType: string, payload: string) =>
        ctx.inject({
          method: 'POST',
          url: `${PORTAL}/sign-out`,
          headers: { cookie: session.cookie, 'content-type': contentType },
          payload,
        });
      const big = 'a'.repeat(200_000);
      const asForm = await post(FORM['content-type'], `_csrf=${session.csrf}&x=${big}`);
      assert.equal(asForm.statusCode, 413, asForm.body);
      assert.match(String(asForm.headers['content-type']), /^application\/problem\+json/);
      const asJson = await post('application/json', JSON.stringify({ _csrf: session.csrf, x: big }));
      assert.equal(asJson.statusCode, 415, asJson.body);
      assert.equal((await session.call('GET', '/session')).statusCode, 200, 'still signed in');
    });

    describe('sign-up with a number as the password', () => {
      const accounts = async () =>
        Number(
          (
            await ctx.testDb.db.kysely
              .selectFrom('users')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );

      it('is a 400 naming the password on the JSON route, and creates no account', async () => {
        const before = await accounts();
        const res = await ctx.inject({
          method: 'POST',
          url: `${PORTAL}/accounts`,
          payload: { username: 'valid_name', password: 12345678901234567000 },
        });
        refused(res, 'password', /^must be a string/);
        assert.ok(!res.body.includes('1234567890'), 'the password is not echoed');
        assert.equal(await accounts(), before);
      });

      it('is refused by the sign-up form as JSON (it was a 500): forms read urlencoded text only', async () => {
        const page = await ctx.inject({ method: 'GET', url: `${PORTAL}/sign-up` });
        const cookie = String(page.headers['set-cookie']).split(';')[0] ?? '';
        const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
        const before = await accounts();
        const res = await ctx.inject({
          method: 'POST',
          url: `${PORTAL}/sign-up`,
          headers: { cookie },
          payload: { _csrf: csrf, username: 'valid_name', password: 12345678901234567000 },
        });
        assert.equal(res.statusCode, 415, res.body);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.equal(await accounts(), before);
        // the same fields as a form are text: a password of digits is a password
        const form = await ctx.inject({
          method: 'POST',
          url: `${PORTAL}/sign-up`,
          headers: { cookie, ...FORM },
          payload: new URLSearchParams({
            _csrf: csrf,
            username: 'valid_name',
            password: '12345678901234567000',
          }).toString(),
        });
        assert.equal(form.statusCode, 303, form.body);
        assert.equal(form.headers.location, `${PORTAL}/keys`);
        assert.equal(await accounts(), before + 1);
      });
    });
  });
}
