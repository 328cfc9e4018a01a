import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import type { CreatedKeyBody, KeyBody } from '../src/modules/portal/schemas.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { FORM, followForm, hiddenCsrf, PORTAL, signUp, type PortalSession } from './helpers/portal.js';

const V1 = '/api-platform/v1';
const APP = 'https://app.example.com';
const EVIL = 'https://evil.example';

for (const dialect of testDialects()) {
  describe(`CORS: browsers may call the API, keys may be held to origins (${dialect})`, () => {
    let ctx: TestContext;
    let session: PortalSession;
    let key: CreatedKeyBody;
    before(async () => {
      ctx = await createTestContext(dialect);
      session = await signUp(ctx);
      key = json<CreatedKeyBody>(await session.call('POST', '/keys', { name: 'web app' }));
    });
    after(() => ctx.close());

    const api = (path: string, headers: Record<string, string>) =>
      ctx.inject({ method: 'GET', url: V1 + path, headers });

    it('answers preflights on the published API and /v1 for any origin, without a credential', async () => {
      for (const url of [`${V1}/leaderboards`, `${V1}/users/1`, '/v1/tournaments', '/v1/events/stream']) {
        const res = await ctx.inject({
          method: 'OPTIONS',
          url,
          headers: {
            origin: EVIL,
            'access-control-request-method': 'GET',
            'access-control-request-headers': 'x-api-key',
          },
        });
        assert.equal(res.statusCode, 204, url);
        assert.equal(res.headers['access-control-allow-origin'], '*');
        assert.match(String(res.headers['access-control-allow-headers']), /x-api-key/);
        assert.match(String(res.headers['access-control-allow-headers']), /authorization/);
        // what the client library sends: a key per call, resuming the stream
        for (const name of ['idempotency-key', 'if-none-match', 'last-event-id'])
          assert.match(String(res.headers['access-control-allow-headers']), new RegExp(name), name);
        assert.match(String(res.headers['access-control-allow-methods']), /GET/);
        assert.equal(res.headers['access-control-max-age'], '7200');
        assert.equal(res.headers['access-control-allow-credentials'], undefined);
      }
    });

    it('lets a page read answers, refusals included, and the quota headers and request id', async () => {
      const ok = await api('/leaderboards?limit=1', { 'x-api-key': ctx.key, origin: APP });
      assert.equal(ok.statusCode, 200);
      assert.equal(ok.headers['access-control-allow-origin'], '*');
      const exposed = String(ok.headers['access-control-expose-headers']);
      for (const name of [
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'x-request-id',
        'retry-after',
      ])
        assert.ok(exposed.includes(name), `${name} not exposed: ${exposed}`);
      const missing = await api('/leaderboards', { origin: APP });
      assert.equal(missing.statusCode, 401);
      assert.equal(missing.headers['access-control-allow-origin'], '*');
      const bearer = await ctx.inject({
        method: 'GET',
        url: '/v1/tournaments',
        headers: { authorization: `Bearer ${ctx.key}`, origin: APP },
      });
      assert.equal(bearer.statusCode, 200, bearer.body);
      assert.equal(bearer.headers['access-control-allow-origin'], '*');
      // server-to-server calls carry no Origin and get no CORS headers
      const plain = await api('/leaderboards?limit=1', { 'x-api-key': ctx.key });
      assert.equal(plain.headers['access-control-allow-origin'], undefined);
    });

    it('keeps the portal same-origin: no preflight answer, no CORS headers', async () => {
      const preflight = await ctx.inject({
        method: 'OPTIONS',
        url: `${PORTAL}/session`,
        headers: { origin: EVIL, 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.statusCode, 405);
      assert.equal(preflight.headers['access-control-allow-origin'], undefined);
      const page = await ctx.inject({
        method: 'GET',
        url: `${PORTAL}/my-keys`,
        headers: { cookie: session.cookie, origin: EVIL },
      });
      assert.equal(page.headers['access-control-allow-origin'], undefined);
    });

    it('restricts a key to its allowed origins (JSON route), refusing other origins before the quota', async () => {
      // not shaped like an origin: refused by the published schema's pattern
      for (const origin of ['https://app.example.com/', 'ftp://x', '*']) {
        const bad = await session.call('PUT', `/keys/${key.key.id}/origins`, { origins: [APP, origin] });
        assert.equal(bad.statusCode, 400, bad.body);
        assert.equal(json<Problem>(bad).code, 'invalid_body');
        assert.equal(json<Problem>(bad).errors?.[0]?.name, 'origins.1', bad.body);
      }
      // shaped like one, but not as a browser writes it
      const unwritten = await session.call('PUT', `/keys/${key.key.id}/origins`, {
        origins: ['https://APP.example.com:443', 'http://localhost:80'],
      });
      assert.equal(unwritten.statusCode, 422, unwritten.body);
      const problem = json<Problem>(unwritten);
      assert.equal(problem.code, 'unprocessable');
      assert.equal(problem.errors?.length, 2, unwritten.body);
      assert.match(
        problem.detail,
        /write 'https:\/\/APP.example.com:443' as browsers send it: https:\/\/app.example.com/,
      );

      const set = await session.call('PUT', `/keys/${key.key.id}/origins`, {
        origins: [APP, 'http://localhost:5173'],
      });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(json<KeyBody>(set).key.allowed_origins, [APP, 'http://localhost:5173']);
      const listed = json<{ keys: KeyBody['key'][] }>(await session.call('GET', '/my-keys'));
      assert.deepEqual(listed.keys.find((k) => k.id === key.key.id)?.allowed_origins, [
        APP,
        'http://localhost:5173',
      ]);

      const allowed = await api('/leaderboards?limit=1', { 'x-api-key': key.secret, origin: APP });
      assert.equal(allowed.statusCode, 200);
      const used = Number(allowed.headers['x-ratelimit-used']);

      const refused = await api('/leaderboards?limit=1', { 'x-api-key': key.secret, origin: EVIL });
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.headers['access-control-allow-origin'], '*');
      const refusal = json<Problem>(refused);
      assert.equal(refusal.code, 'origin_not_allowed');
      assert.match(refusal.detail, /'https:\/\/evil.example' is not one of them/);
      assert.equal(refused.headers['x-ratelimit-used'], undefined);

      const bearer = await ctx.inject({
        method: 'GET',
        url: '/v1/tournaments',
        headers: { authorization: `Bearer ${key.secret}`, origin: EVIL },
      });
      assert.equal(bearer.statusCode, 403);
      assert.equal(json<Problem>(bearer).code, 'origin_not_allowed');

      // a server (no Origin) is not a browser call; the refusals spent nothing
      const server = await api('/leaderboards?limit=1', { 'x-api-key': key.secret });
      assert.equal(server.statusCode, 200);
      assert.equal(Number(server.headers['x-ratelimit-used']), used + 1);

      const cleared = await session.call('PUT', `/keys/${key.key.id}/origins`, { origins: [] });
      assert.deepEqual(json<KeyBody>(cleared).key.allowed_origins, []);
      assert.equal(
        (await api('/leaderboards?limit=1', { 'x-api-key': key.secret, origin: EVIL })).statusCode,
        200,
      );
    });

    it('needs the session and its CSRF token to change origins, and the key must be the caller’s', async () => {
      const noCsrf = await session.call(
        'PUT',
        `/keys/${key.key.id}/origins`,
        { origins: [APP] },
        { 'x-csrf-token': 'x' },
      );
      assert.equal(noCsrf.statusCode, 403);
      const other = await signUp(ctx);
      const foreign = await other.call('PUT', `/keys/${key.key.id}/origins`, { origins: [EVIL] });
      assert.equal(foreign.statusCode, 404);
      assert.equal(json<Problem>(foreign).code, 'key_not_found');
    });

    it('sets origins from the portal page (post/redirect/get)', async () => {
      const form = await ctx.inject({
        method: 'GET',
        url: `${PORTAL}/keys/${key.key.id}/origins`,
        headers: { cookie: session.cookie },
      });
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /<textarea id="origins" name="origins"/);
      const keysPage = await ctx.inject({
        method: 'GET',
        url: `${PORTAL}/keys`,
        headers: { cookie: session.cookie },
      });
      assert.ok(
        keysPage.body.includes(`${PORTAL}/keys/${key.key.id}/origins`),
        'no Origins link on the key list',
      );

      const post = (origins: string) =>
        ctx.inject({
          method: 'POST',
          url: `${PORTAL}/keys/${key.key.id}/origins`,
          headers: { cookie: session.cookie, ...FORM },
          payload: new URLSearchParams({ _csrf: hiddenCsrf(form), origins }).toString(),
        });
      const refused = await followForm(ctx, await post('not an origin'), session.cookie);
      assert.match(refused.body, /is not an origin/);
      // what was typed is offered again
      assert.match(refused.body, /<textarea[^>]*>\s*not an origin<\/textarea>/);

      const saved = await followForm(
        ctx,
        await post(`${APP}\r\n\r\nhttp://localhost:5173\n`),
        session.cookie,
      );
      assert.match(
        saved.body,
        /Saved: only https:\/\/app.example.com, http:\/\/localhost:5173 may use this key/,
      );
      const refusedCall = await api('/leaderboards?limit=1', { 'x-api-key': key.secret, origin: EVIL });
      assert.equal(refusedCall.statusCode, 403);
    });
  });
}
