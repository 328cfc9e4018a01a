import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import {
  authorizationCode,
  callbackParams,
  exchangeCode,
  openAuthorization,
  REDIRECT_URI,
  registerApp,
  type TokenSet,
} from './helpers/oauth.js';
import { signUp, type PortalSession } from './helpers/portal.js';
import type { MeBody } from '../src/modules/users/me-route.js';

for (const dialect of testDialects()) {
  describe(`OAuth authorization code flow (${dialect})`, () => {
    let ctx: TestContext;
    let developer: PortalSession;
    let client: { clientId: string; secret: string | undefined; id: number };

    before(async () => {
      ctx = await createTestContext(dialect);
      developer = await signUp(ctx);
      client = await registerApp(ctx, developer.accountId);
    });
    after(() => ctx.close());

    const codeFor = (user: PortalSession, scope: string, extra: Record<string, string> = {}) =>
      authorizationCode(ctx, user, client, scope, extra);
    const exchange = (code: string, verifier: string) => exchangeCode(ctx, client, code, verifier);
    const me = (token: string) =>
      ctx.inject({ method: 'GET', url: '/v1/users/@me', headers: { authorization: `Bearer ${token}` } });

    test('metadata is published at both well-known paths, S256 the only PKCE method', async () => {
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        const res = await ctx.inject({ method: 'GET', url: path });
        assert.equal(res.statusCode, 200);
        const meta = res.json<Record<string, unknown>>();
        assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
        assert.deepEqual(meta.response_types_supported, ['code']);
        assert.equal(meta.token_endpoint, 'http://localhost/api-platform/oauth/token');
        assert.ok(!(meta.grant_types_supported as string[]).includes('implicit'));
        assert.ok(!(meta.grant_types_supported as string[]).includes('password'));
      }
    });

    test('consent lists the scopes in plain words; the code comes back with the state and reads @me', async () => {
      const user = await signUp(ctx);
      const { code, state, verifier, consent } = await codeFor(user, 'openid identify');
      assert.equal(consent.statusCode, 200);
      assert.match(consent.body, /Authorize Frag Tracker\?/);
      assert.match(consent.body, /See your hub profile: username, avatar, level and when you joined/);
      // its form posts with a same-origin Origin, and nothing stops the redirect back to the app
      assert.equal(consent.headers['referrer-policy'], 'same-origin');
      assert.equal(consent.headers['cache-control'], 'no-store');
      const csp = String(consent.headers['content-security-policy']);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /form-action/);
      assert.equal(state, 'st-123');
      const tokens = await exchange(code, verifier);
      assert.equal(tokens.statusCode, 200, tokens.body);
      const set = tokens.json<TokenSet>();
      assert.equal(set.expires_in, 3600);
      assert.ok(set.id_token, 'openid asked: an id_token');
      const claims = JSON.parse(Buffer.from(set.id_token.split('.')[1] ?? '', 'base64url').toString()) as {
        sub: string;
      };
      assert.equal(claims.sub, String(user.accountId));
      const profile = await me(set.access_token);
      assert.equal(profile.statusCode, 200, profile.body);
      assert.equal(profile.json<MeBody>().data.id, String(user.accountId));
      assert.equal(profile.json<MeBody>().data.username, user.username);
      assert.doesNotMatch(profile.body, /password|hash|csrf/i);
    });

    test('the consent page header shows the signed-in account and its sign-out, not "Sign in / Sign up"', async () => {
      const user = await signUp(ctx);
      const { consent } = await codeFor(user, 'identify');
      assert.equal(consent.statusCode, 200);
      assert.match(consent.body, /Signed in as <strong>/);
      const header = /<header class="top">([\s\S]*?)<\/header>/.exec(consent.body)?.[1] ?? '';
      assert.match(header, /action="\/api-platform\/developer\/sign-out"/);
      assert.match(header, new RegExp(`Sign out <span class="muted">\\(${user.username}\\)</span>`));
      assert.match(header, new RegExp(`name="_csrf" value="${user.csrf}"`), "the portal session's own token");
      assert.doesNotMatch(header, /Sign in|Sign up/);
    });

    test('a remembered grant asks again only for new scopes', async () => {
      const user = await signUp(ctx);
      await codeFor(user, 'identify');
      const again = await codeFor(user, 'identify');
      assert.equal(again.consent.statusCode, 303, 'granted scopes: straight back to the app');
      const more = await codeFor(user, 'identify stats:read');
      assert.equal(more.consent.statusCode, 200);
      assert.match(more.consent.body, /id="requested-scopes">\s*<li data-scope="stats:read">/);
      assert.doesNotMatch(
        more.consent.body,
        /id="requested-scopes">[^]*data-scope="identify"[^]*You already/,
      );
    });

    test('PKCE missing or plain is refused', async () => {
      const user = await signUp(ctx);
      const base = {
        client_id: client.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        scope: 'identify',
        state: 's',
      };
      const missing = callbackParams((await openAuthorization(ctx, user, base)).page);
      assert.equal(missing.get('error'), 'invalid_request');
      assert.match(missing.get('error_description') ?? '', /PKCE/);
      const plain = callbackParams(
        (
          await openAuthorization(ctx, user, {
            ...base,
            code_challenge: 'a'.repeat(43),
            code_challenge_method: 'plain',
          })
        ).page,
      );
      assert.equal(plain.get('error'), 'invalid_request');
      assert.equal(plain.get('state'), 's');
    });

    test('a U+0000 in a client id, code, token or request uri is an OAuth error, never a 500', async () => {
      // (PostgreSQL's text cannot hold one: asking the store for such an id was a 500 there)
      const page = await ctx.inject({
        method: 'GET',
        url: '/api-platform/oauth/authorize?client_id=%00&response_type=code',
      });
      assert.equal(page.statusCode, 400, page.body.slice(0, 300));
      assert.match(page.body, /invalid_client|client is invalid/i);
      const forms: [string, string][] = [
        ['token', 'grant_type=authorization_code&code=%00&client_id=%00'],
        [
          'token',
          `grant_type=authorization_code&code=%00&code_verifier=${'a'.repeat(43)}&client_id=${client.clientId}&client_secret=${client.secret ?? ''}`,
        ],
        [
          'token',
          `grant_type=refresh_token&refresh_token=%00&client_id=${client.clientId}&client_secret=${client.secret ?? ''}`,
        ],
        ['par', 'client_id=%00&response_type=code'],
        ['introspect', `token=%00&client_id=${client.clientId}&client_secret=${client.secret ?? ''}`],
        ['revoke', `token=%00&client_id=${client.clientId}&client_secret=${client.secret ?? ''}`],
      ];
      for (const [endpoint, body] of forms) {
        const res = await ctx.inject({
          method: 'POST',
          url: `/api-platform/oauth/${endpoint}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: body,
        });
        const label = `${endpoint} ${body}: ${res.statusCode} ${res.body.slice(0, 300)}`;
        assert.ok(res.statusCode < 500, label);
        // an RFC 6749 error, or what RFC 7009 and 7662 answer for a token they do not know
        if (res.statusCode >= 400) assert.equal(typeof res.json<{ error: unknown }>().error, 'string', label);
        else if (endpoint === 'introspect') assert.deepEqual(res.json(), { active: false }, label);
        else assert.equal(endpoint, 'revoke', label);
      }
    });
  });
}
