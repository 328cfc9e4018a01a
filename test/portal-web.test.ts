import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import {
  cookieNamed,
  FORM,
  GOOD_PASSWORD,
  hiddenCsrf,
  PORTAL,
  setCookies,
  signUp,
  uniqueName,
} from './helpers/portal.js';

for (const dialect of testDialects()) {
  describe(`portal web pages (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    const get = (path: string, cookie = '') =>
      ctx.inject({ method: 'GET', url: `${PORTAL}${path}`, headers: cookie ? { cookie } : {} });
    const post = (
      path: string,
      cookie: string,
      body: Record<string, string>,
      headers: Record<string, string> = {},
    ) =>
      ctx.inject({
        method: 'POST',
        url: `${PORTAL}${path}`,
        headers: { ...FORM, cookie, ...headers },
        payload: new URLSearchParams(body).toString(),
      });

    /** A form's 303, followed as a browser does. */
    const follow = async (res: LightMyRequestResponse, cookie: string) => {
      assert.equal(res.statusCode, 303, res.body);
      const page = await ctx.inject({
        method: 'GET',
        url: String(res.headers.location),
        headers: { cookie },
      });
      assert.equal(page.statusCode, 200);
      return page;
    };

    it('serves pages with CSP, no-store and nosniff; signed-out visitors are sent to sign-in', async () => {
      const page = await get('/sign-in');
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.match(String(page.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.equal(page.headers['x-frame-options'], 'DENY');
      assert.match(page.body, /<label for="username">Username<\/label>/);
      assert.match(page.body, /href="\/api-platform\/docs"/);
      assert.match(page.body, /under construction/);
      for (const path of ['/', '/keys', '/keys/1', '/keys/1/revoke']) {
        const res = await get(path);
        assert.equal(res.statusCode, 303, path);
        assert.equal(res.headers.location, `${PORTAL}/sign-in`);
      }
      // The stylesheet and script have content-hashed names: cached for a year, compressed.
      const css = /href="\/api-platform\/developer(\/assets\/portal\.[\w-]{16}\.css)"/.exec(page.body)?.[1];
      const js = /src="\/api-platform\/developer(\/assets\/portal\.[\w-]{16}\.js)"/.exec(page.body)?.[1];
      assert.ok(css && js, 'the page links its hashed assets');
      const style = await ctx.inject({
        method: 'GET',
        url: `${PORTAL}${css}`,
        headers: { 'accept-encoding': 'br' },
      });
      assert.equal(style.statusCode, 200);
      assert.match(String(style.headers['content-type']), /^text\/css/);
      assert.equal(style.headers['content-encoding'], 'br');
      assert.equal(style.headers['cache-control'], 'public, max-age=31536000, immutable');
      const again = await ctx.inject({
        method: 'GET',
        url: `${PORTAL}${css}`,
        headers: { 'if-none-match': String(style.headers.etag) },
      });
      assert.equal(again.statusCode, 304);
      assert.match((await get(js)).body, /clipboard/);
      for (const gone of ['/assets/portal.css', '/assets/other.js'])
        assert.equal((await get(gone)).statusCode, 404, gone);
    });

    it('sign-in and sign-up forms need the double-submit token; a wrong password shows an error', async () => {
      const username = uniqueName('Form');
      const page = await get('/sign-up');
      const formCookie = cookieNamed(page, 'hub_form_csrf') ?? '';
      assert.match(String(setCookies(page)[0]), /; HttpOnly; SameSite=Strict$/);
      const token = hiddenCsrf(page);
      assert.equal(formCookie, `hub_form_csrf=${token}`);

      const body = { username, password: GOOD_PASSWORD };
      assert.equal((await post('/sign-up', formCookie, body)).statusCode, 403, 'no token');
      assert.equal((await post('/sign-up', formCookie, { ...body, _csrf: 'x'.repeat(43) })).statusCode, 403);
      assert.equal((await post('/sign-up', '', { ...body, _csrf: token })).statusCode, 403, 'no cookie');
      const cross = await post(
        '/sign-up',
        formCookie,
        { ...body, _csrf: token },
        { 'sec-fetch-site': 'cross-site' },
      );
      assert.equal(cross.statusCode, 403);

      const weak = await follow(
        await post('/sign-up', formCookie, { username, password: 'short', _csrf: token }),
        formCookie,
      );
      assert.match(weak.body, /Password must be 10 to 128 characters\./);

      // a U+0000 in a field: refused as a malformed form body is (a problem), and no account is made
      // (PostgreSQL's text cannot hold one: it was a 500 there)
      const nul = await post('/sign-up', formCookie, {
        username: `${username}\u0000`,
        password: GOOD_PASSWORD,
        _csrf: token,
      });
      assert.equal(nul.statusCode, 400, nul.body.slice(0, 300));
      const refused = nul.json<{ code: string; detail: string }>();
      assert.equal(refused.code, 'invalid_body');
      assert.match(refused.detail, /"username" holds U\+0000/);
      assert.equal(cookieNamed(nul, 'hub_session'), undefined);

      const created = await post('/sign-up', formCookie, { ...body, _csrf: token });
      assert.equal(created.statusCode, 303);
      assert.equal(created.headers.location, `${PORTAL}/keys`);
      assert.ok(cookieNamed(created, 'hub_session'));

      const wrong = await post('/sign-in', formCookie, { username, password: 'wrong-one-123', _csrf: token });
      assert.equal(cookieNamed(wrong, 'hub_session'), undefined);
      assert.match(
        (await follow(wrong, formCookie)).body,
        /role="alert"[^>]*>\s*The username or password is incorrect\./,
      );
      const ok = await post('/sign-in', formCookie, { username, password: GOOD_PASSWORD, _csrf: token });
      assert.equal(ok.statusCode, 303);
    });

    it('key forms need the session token; names are escaped; revoke goes through a confirmation page', async () => {
      const session = await signUp(ctx);
      const keys = await get('/keys', session.cookie);
      assert.equal(hiddenCsrf(keys), session.csrf);
      const evil = '<script>alert(1)</script>';
      assert.equal((await post('/keys/new', session.cookie, { name: evil })).statusCode, 403);
      assert.equal((await post('/keys/new', session.cookie, { name: evil, _csrf: 'nope' })).statusCode, 403);
      const nameless = await post('/keys/new', session.cookie, { name: '  ', _csrf: session.csrf });
      assert.match((await follow(nameless, session.cookie)).body, /Give the key a name/);
      const created = await follow(
        await post('/keys/new', session.cookie, { name: evil, _csrf: session.csrf }),
        session.cookie,
      );
      assert.ok(!created.body.includes(evil));
      assert.match(created.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      assert.match(created.body, /Copy this key now\./);
      const secret = /value="(ghk_[0-9A-Za-z]{38})"/.exec(created.body)?.[1] ?? '';
      assert.ok(secret);
      const list = await get('/keys', session.cookie);
      assert.ok(!list.body.includes(secret) && !list.body.includes(evil));
      const id = /href="\/api-platform\/developer\/keys\/(\d+)\/revoke"/.exec(list.body)?.[1] ?? '';

      const confirm = await get(`/keys/${id}/revoke`, session.cookie);
      assert.equal(confirm.statusCode, 200);
      assert.match(confirm.body, /cannot be undone/);
      assert.notEqual((await ctx.get('/users/1', { 'x-api-key': secret })).statusCode, 401, 'still active');
      assert.equal((await post(`/keys/${id}/revoke`, session.cookie, {})).statusCode, 403);
      const other = await signUp(ctx);
      const stolen = await post(`/keys/${id}/revoke`, other.cookie, { _csrf: other.csrf });
      assert.equal(stolen.statusCode, 404);
      assert.equal((await get(`/keys/${id}`, other.cookie)).statusCode, 404);
      const revoked = await post(`/keys/${id}/revoke`, session.cookie, { _csrf: session.csrf });
      assert.match((await follow(revoked, session.cookie)).body, /The key “&lt;script&gt;.*” was revoked\./);
      assert.equal((await ctx.get('/users/1', { 'x-api-key': secret })).statusCode, 401);
      for (const bad of ['0', 'abc', '99999999999']) {
        assert.equal((await get(`/keys/${bad}`, session.cookie)).statusCode, 404, bad);
      }
    });

    it('the usage page draws the chart with the quota line and the totals', async () => {
      const session = await signUp(ctx);
      const created = await follow(
        await post('/keys/new', session.cookie, { name: 'chart', _csrf: session.csrf }),
        session.cookie,
      );
      const secret = /value="(ghk_[0-9A-Za-z]{38})"/.exec(created.body)?.[1] ?? '';
      const user = await ctx.makeUser();
      for (let i = 0; i < 3; i++) await ctx.get(`/users/${user.id}`, { 'x-api-key': secret });
      await ctx.get('/users/2147483647', { 'x-api-key': secret });
      const id = firstKeyId(await session.call('GET', '/my-keys'));
      const usage = await get(`/keys/${id}`, session.cookie);
      assert.equal(usage.statusCode, 200);
      assert.match(usage.body, /data-total="4"/);
      assert.match(usage.body, /class="quota"/);
      assert.match(usage.body, /quota 100\/h/);
      assert.equal((usage.body.match(/<g class="bar">/g) ?? []).length, 1);
      assert.match(usage.body, /class="s-2xx"/);
      assert.match(usage.body, /class="s-4xx"/);
      assert.ok(!usage.body.includes('http://') && !usage.body.includes('https://'), 'no external resources');
    });

    it('signs out through the form, with the token', async () => {
      const session = await signUp(ctx);
      assert.equal((await post('/sign-out', session.cookie, {})).statusCode, 403);
      const out = await post('/sign-out', session.cookie, { _csrf: session.csrf });
      assert.equal(out.statusCode, 303);
      assert.match(String(cookieNamed(out, 'hub_session')), /^hub_session=$/);
      assert.equal((await get('/keys', session.cookie)).statusCode, 303);
    });
  });
}

function firstKeyId(res: LightMyRequestResponse): number {
  return res.json<{ keys: { id: number }[] }>().keys[0]?.id ?? 0;
}
