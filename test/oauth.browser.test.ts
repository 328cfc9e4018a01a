import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { buildApp } from '../src/app.js';
import { browserSkipReason, launchChromium } from './helpers/browser.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { directAppsFor, REDIRECT_URI } from './helpers/oauth.js';
import { GOOD_PASSWORD, mainOf, uniqueName } from './helpers/portal.js';
import { hashPassword } from '../src/modules/accounts/password.js';

/**
 * Without Chromium (a machine without Debian's package) the same flow runs with a plain HTTP user
 * agent that follows redirects and submits the sign-in and consent forms, so openid-client's side
 * is still exercised; with Chromium a real browser clicks through the pages.
 */
class FormAgent {
  private readonly cookies = new Map<string, string>();
  private async get(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      if (/max-age=0/i.test(c)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  }

  async run(
    start: URL,
    signIn: { username: string; password: string } | undefined,
    redirectUri: string,
  ): Promise<URL> {
    let res = await this.get(start.href);
    for (let step = 0; step < 20; step++) {
      const location = res.headers.get('location');
      if (location) {
        const next = new URL(location, res.url || start);
        if (next.href.startsWith(redirectUri)) return next;
        res = await this.get(next.href);
        continue;
      }
      const page = mainOf(await res.text());
      assert.equal(res.status, 200, page.slice(0, 300));
      const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1] ?? '';
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
      const fields: Record<string, string> = action.endsWith('/sign-in')
        ? { _csrf: csrf, username: signIn?.username ?? '', password: signIn?.password ?? '' }
        : { _csrf: csrf, decision: 'allow' };
      if (!action.endsWith('/sign-in')) assert.match(page, /See your hub profile/);
      res = await this.get(new URL(action, start).href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    }
    throw new Error('the flow did not come back to the app');
  }
}

/** A free port on 127.0.0.1: the issuer (the server's origin) is fixed before the app is built. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

// The whole flow through a relying-party library no one here wrote (openid-client) and a real
// browser: discovery, PKCE, sign-in and consent in Chromium, code exchange, @me, refresh rotation,
// reuse detection, revocation and introspection.
for (const dialect of testDialects()) {
  describe(`OAuth with openid-client, ${browserSkipReason ? 'an HTTP user agent' : 'Chromium'} (${dialect})`, () => {
    let testDb: TestDb;
    let app: FastifyInstance;
    let browser: Browser | undefined;
    let page: Page | undefined;
    const agent = new FormAgent();
    let issuer: string;
    let config: oidc.Configuration;
    const username = uniqueName('player');
    let userId: number;

    before(async () => {
      testDb = await openTestDb(dialect);
      const made = factories(testDb.db);
      const developer = await made.makeUser({ username: uniqueName('dev') });
      userId = (await made.makeUser({ username })).id;
      await testDb.db.kysely
        .updateTable('users')
        .set({ password_hash: await hashPassword(GOOD_PASSWORD) })
        .where('id', '=', userId)
        .execute();
      const port = await freePort();
      issuer = `http://127.0.0.1:${port}`;
      app = await buildApp({
        db: testDb.db,
        config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false },
        issuer,
      });
      await app.listen({ port, host: '127.0.0.1' });
      const { app: registered, secret } = await directAppsFor(testDb.db, app).create(developer.id, {
        name: 'Frag Tracker',
        kind: 'confidential',
        redirect_uris: [REDIRECT_URI],
      });
      config = await oidc.discovery(
        new URL(issuer),
        registered.client_id,
        undefined,
        oidc.ClientSecretBasic(secret ?? ''),
        // the test server is plain http on 127.0.0.1; openid-client refuses http unless told
        // eslint-disable-next-line @typescript-eslint/no-deprecated
        { execute: [oidc.allowInsecureRequests] },
      );
      if (!browserSkipReason) {
        browser = await launchChromium();
        page = await (await browser.newContext()).newPage();
      }
    });

    after(async () => {
      await browser?.close();
      await app.close();
      await testDb.drop();
    });

    /** Drives the browser from the authorization URL to the app's redirect URI; returns that URL. */
    async function throughBrowser(url: URL, signIn: boolean): Promise<URL> {
      if (!page)
        return agent.run(url, signIn ? { username, password: GOOD_PASSWORD } : undefined, REDIRECT_URI);
      let callback: string | undefined;
      await page.route(`${REDIRECT_URI}**`, async (route) => {
        callback = route.request().url();
        await route.fulfill({ status: 200, body: 'back in the app' });
      });
      await page.goto(url.href);
      if (signIn) {
        await page.getByLabel('Username').fill(username);
        await page.getByLabel('Password').fill(GOOD_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
      }
      await page.getByRole('button', { name: 'Allow' }).waitFor();
      assert.match(await page.locator('#requested-scopes').innerText(), /See your hub profile/);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${REDIRECT_URI}**`);
      await page.unroute(`${REDIRECT_URI}**`);
      assert.ok(callback, 'the browser came back to the app');
      return new URL(callback);
    }

    it('signs a user in, exchanges the code, reads @me, rotates, detects reuse, revokes, introspects', async () => {
      assert.equal(config.serverMetadata().issuer, issuer);
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid identify offline_access',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        prompt: 'consent',
      });
      const callback = await throughBrowser(url, true);
      const tokens = await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      assert.equal(tokens.claims()?.sub, String(userId));
      assert.equal(tokens.expires_in, 3600);
      assert.ok(tokens.refresh_token);

      const me = await oidc.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(`${issuer}/v1/users/@me`),
        'GET',
      );
      assert.equal(me.status, 200);
      const body = (await me.json()) as { data: { id: string; username: string } };
      assert.deepEqual([body.data.id, body.data.username], [String(userId), username]);

      const rotated = await oidc.refreshTokenGrant(config, tokens.refresh_token);
      assert.ok(rotated.refresh_token && rotated.refresh_token !== tokens.refresh_token);
      const info = await oidc.tokenIntrospection(config, rotated.access_token);
      assert.equal(info.active, true);
      assert.equal(info.sub, String(userId));

      await assert.rejects(
        oidc.refreshTokenGrant(config, tokens.refresh_token),
        (err: unknown) => err instanceof oidc.ResponseBodyError && err.error === 'invalid_grant',
      );
      assert.equal(
        (await oidc.tokenIntrospection(config, rotated.access_token)).active,
        false,
        'reuse revoked the grant',
      );
      const dead = await fetch(`${issuer}/v1/users/@me`, {
        headers: { authorization: `Bearer ${rotated.access_token}` },
      });
      assert.equal(dead.status, 401);

      // a new consent (the user is signed in to the hub now: no sign-in form), then RFC 7009
      const again = oidc.randomPKCECodeVerifier();
      const url2 = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'identify offline_access',
        code_challenge: await oidc.calculatePKCECodeChallenge(again),
        code_challenge_method: 'S256',
        state: 'second',
        prompt: 'consent',
      });
      const second = await oidc.authorizationCodeGrant(config, await throughBrowser(url2, false), {
        pkceCodeVerifier: again,
        expectedState: 'second',
      });
      const ok = await fetch(`${issuer}/v1/users/@me`, {
        headers: { authorization: `Bearer ${second.access_token}` },
      });
      assert.equal(ok.status, 200);
      await oidc.tokenRevocation(config, second.access_token);
      const revoked = await fetch(`${issuer}/v1/users/@me`, {
        headers: { authorization: `Bearer ${second.access_token}` },
      });
      assert.equal(revoked.status, 401);
    });
  });
}
