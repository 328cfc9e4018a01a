import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import {
  authorizationCode,
  directApps,
  exchangeCode,
  pkcePair,
  REDIRECT_URI,
  registerApp,
  requestAuthorization,
  tokenRequest,
  userTokens,
  type TokenSet,
} from './helpers/oauth.js';
import { FORM, mainOf, signUp, type PortalSession } from './helpers/portal.js';

interface Client {
  clientId: string;
  secret: string | undefined;
  id: number;
}

for (const dialect of testDialects()) {
  describe(`OAuth tokens: codes, refresh, revocation, introspection (${dialect})`, () => {
    let ctx: TestContext;
    let developer: PortalSession;
    let client: Client;
    let publicClient: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      developer = await signUp(ctx);
      client = await registerApp(ctx, developer.accountId);
      publicClient = await registerApp(ctx, developer.accountId, { kind: 'public', name: 'Phone app' });
    });
    after(() => ctx.close());

    const consentPage = (
      user: PortalSession,
      app: Client,
      scope: string,
      extra: Record<string, string> = {},
    ) => requestAuthorization(ctx, user, app, scope, extra);
    const codeFor = (user: PortalSession, app: Client, scope: string) =>
      authorizationCode(ctx, user, app, scope);
    const exchange = (app: Client, code: string, verifier: string, redirectUri = REDIRECT_URI) =>
      exchangeCode(ctx, app, code, verifier, redirectUri);
    // a new consent every time, so a refresh token is issued whatever the user granted before
    const tokensFor = (user: PortalSession, scope = 'identify offline_access', app = client) =>
      userTokens(ctx, user, app, scope, { prompt: 'consent' });

    const me = (token: string) =>
      ctx.inject({ method: 'GET', url: '/v1/users/@me', headers: { authorization: `Bearer ${token}` } });
    const refresh = (refreshToken: string, extra: Record<string, string> = {}, app = client) =>
      tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra });
    const errorOf = (res: { json: <T>() => T }) => res.json<{ error: string }>().error;

    test('a wrong code verifier, a reused code and another redirect URI are refused', async () => {
      const user = await signUp(ctx);
      const wrong = await codeFor(user, client, 'identify');
      const bad = await exchange(client, wrong.code, pkcePair().verifier);
      assert.equal(bad.statusCode, 400);
      assert.equal(errorOf(bad), 'invalid_grant');

      const { code, verifier } = await codeFor(user, client, 'identify');
      const other = await exchange(client, code, verifier, 'http://127.0.0.1:9/other');
      assert.equal(errorOf(other), 'invalid_grant');

      const fresh = await codeFor(user, client, 'identify');
      const first = await exchange(client, fresh.code, fresh.verifier);
      assert.equal(first.statusCode, 200);
      const token = first.json<TokenSet>().access_token;
      const again = await exchange(client, fresh.code, fresh.verifier);
      assert.equal(again.statusCode, 400);
      assert.equal(errorOf(again), 'invalid_grant');
      // a replayed code revokes what the first exchange issued
      assert.equal((await me(token)).statusCode, 401);
    });

    test('an unregistered redirect URI never redirects (no open redirect)', async () => {
      const user = await signUp(ctx);
      const { page } = await consentPage(user, client, 'identify', {
        redirect_uri: 'https://evil.example/cb',
      });
      assert.equal(page.statusCode, 400);
      assert.equal(page.headers.location, undefined);
      assert.match(page.body, /redirect_uri/);
    });

    test('an expired code is refused', async () => {
      const user = await signUp(ctx);
      const { code, verifier } = await codeFor(user, client, 'identify');
      // the code's own expiry (60 s) moved into the past, as if the app waited
      const row = await ctx.testDb.db.kysely
        .selectFrom('oauth_store')
        .select('payload')
        .where('model', '=', 'AuthorizationCode')
        .where('id', '=', code)
        .executeTakeFirstOrThrow();
      const payload = JSON.parse(row.payload) as { exp: number };
      payload.exp = Math.floor(Date.now() / 1000) - 5;
      await ctx.testDb.db.kysely
        .updateTable('oauth_store')
        .set({ payload: JSON.stringify(payload) })
        .where('model', '=', 'AuthorizationCode')
        .where('id', '=', code)
        .execute();
      const res = await exchange(client, code, verifier);
      assert.equal(res.statusCode, 400);
      assert.equal(errorOf(res), 'invalid_grant');
    });

    test('a wrong client secret is invalid_client', async () => {
      const user = await signUp(ctx);
      const { code, verifier } = await codeFor(user, client, 'identify');
      const res = await exchange({ ...client, secret: 'ghcs_wrong' }, code, verifier);
      assert.equal(res.statusCode, 401);
      assert.equal(errorOf(res), 'invalid_client');
    });

    test('refresh tokens rotate; reusing a spent one revokes the whole grant', async () => {
      const user = await signUp(ctx);
      const first = await tokensFor(user);
      assert.ok(first.refresh_token);
      const second = await refresh(first.refresh_token);
      assert.equal(second.statusCode, 200, second.body);
      const rotated = second.json<TokenSet>();
      assert.ok(rotated.refresh_token && rotated.refresh_token !== first.refresh_token);
      assert.equal((await me(rotated.access_token)).statusCode, 200);

      const reuse = await refresh(first.refresh_token);
      assert.equal(reuse.statusCode, 400);
      assert.equal(errorOf(reuse), 'invalid_grant');
      assert.equal((await me(rotated.access_token)).statusCode, 401, 'the grant died with the reuse');
      assert.equal(errorOf(await refresh(rotated.refresh_token)), 'invalid_grant');
    });

    test('a refresh cannot widen the scopes it was granted', async () => {
      const user = await signUp(ctx);
      const tokens = await tokensFor(user);
      const res = await refresh(tokens.refresh_token ?? '', { scope: 'identify stats:read' });
      assert.equal(res.statusCode, 400);
      assert.equal(errorOf(res), 'invalid_scope');
    });

    test('a revoked access token is 401 on the very next request (after being cached)', async () => {
      const user = await signUp(ctx);
      const tokens = await tokensFor(user);
      assert.equal((await me(tokens.access_token)).statusCode, 200);
      assert.equal((await me(tokens.access_token)).statusCode, 200);
      const res = await tokenRequest(
        ctx,
        client,
        { token: tokens.access_token },
        '/api-platform/oauth/revoke',
      );
      assert.equal(res.statusCode, 200);
      const after = await me(tokens.access_token);
      assert.equal(after.statusCode, 401);
      assert.equal(after.json<{ code: string }>().code, 'invalid_token');
    });

    test('introspection answers confidential clients only; a public one learns nothing', async () => {
      const user = await signUp(ctx);
      const tokens = await tokensFor(user);
      const res = await tokenRequest(
        ctx,
        client,
        { token: tokens.access_token },
        '/api-platform/oauth/introspect',
      );
      assert.equal(res.statusCode, 200);
      const body = res.json<{ active: boolean; sub: string; scope: string; client_id: string }>();
      assert.equal(body.active, true);
      assert.equal(body.sub, String(user.accountId));
      assert.equal(body.client_id, client.clientId);

      const pub = await tokensFor(user, 'identify offline_access', publicClient);
      const refused = await tokenRequest(
        ctx,
        publicClient,
        { token: pub.access_token },
        '/api-platform/oauth/introspect',
      );
      // a public client learns nothing: the token is reported inactive (RFC 7662 §2.2)
      assert.deepEqual(refused.json(), { active: false });
    });

    test('client_credentials: a confidential app gets an app token for public data, never a user route', async () => {
      const res = await tokenRequest(ctx, client, {
        grant_type: 'client_credentials',
        scope: 'servers:read',
      });
      assert.equal(res.statusCode, 200, res.body);
      const token = res.json<TokenSet>().access_token;
      const mine = await me(token);
      assert.equal(mine.statusCode, 403);
      assert.equal(mine.json<{ code: string }>().code, 'user_context_required');
      const refused = await tokenRequest(ctx, publicClient, { grant_type: 'client_credentials' });
      assert.equal(refused.statusCode, 400);
      assert.doesNotMatch(refused.body, /access_token/);
    });

    test('deleting an app kills its tokens, even cached ones', async () => {
      const owner = await signUp(ctx);
      const doomed = await registerApp(ctx, owner.accountId, { name: 'Doomed' });
      const user = await signUp(ctx);
      const tokens = await tokensFor(user, 'identify offline_access', doomed);
      assert.equal((await me(tokens.access_token)).statusCode, 200);
      await directApps(ctx).delete(owner.accountId, doomed.id);
      assert.equal((await me(tokens.access_token)).statusCode, 401);
      const res = await refresh(tokens.refresh_token ?? '', {}, doomed);
      assert.equal(errorOf(res), 'invalid_client');
    });

    test('the consent form without its token, or posted cross-site, changes nothing', async () => {
      const user = await signUp(ctx);
      const { jar, page } = await consentPage(user, client, 'identify stats:read');
      assert.equal(page.statusCode, 200);
      const action = /action="([^"]+\/consent)"/.exec(page.body)?.[1] ?? '';
      for (const [payload, headers] of [
        ['decision=allow', {}],
        ['decision=allow&_csrf=forged', {}],
        [
          `decision=allow&_csrf=${/name="_csrf" value="([^"]+)"/.exec(mainOf(page.body))?.[1] ?? ''}`,
          { 'sec-fetch-site': 'cross-site' },
        ],
      ] as const) {
        const res = await ctx.inject({
          method: 'POST',
          url: action,
          headers: { ...FORM, cookie: jar.header(), ...headers },
          payload,
        });
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json<{ code: string }>().code, 'csrf_failed');
      }
      const grants = await ctx.testDb.db.kysely
        .selectFrom('oauth_store')
        .select('id')
        .where('model', '=', 'Grant')
        .where('account_id', '=', String(user.accountId))
        .execute();
      assert.equal(grants.length, 0);
    });

    test("user A's token reads A, never B", async () => {
      const a = await signUp(ctx);
      const b = await signUp(ctx);
      const tokenA = (await tokensFor(a)).access_token;
      const tokenB = (await tokensFor(b)).access_token;
      const meA = await me(tokenA);
      const meB = await me(tokenB);
      assert.equal(meA.json<{ data: { id: string } }>().data.id, String(a.accountId));
      assert.equal(meB.json<{ data: { id: string } }>().data.id, String(b.accountId));
    });
  });
}
