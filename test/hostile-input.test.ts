import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Problem } from '../src/http/problem.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { registerServer } from './helpers/ingest.js';
import { PORTAL, signUp } from './helpers/portal.js';
import { rawRequest, type RawResponse } from './helpers/raw-http.js';

const V1 = '/api-platform/v1';
const HUGE = '9'.repeat(309);

function assertProblem(res: LightMyRequestResponse, status: number, code: string, what: string): Problem {
  assert.equal(res.statusCode, status, `${what} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, what);
  const problem = json<Problem>(res);
  assert.equal(problem.code, code, what);
  assert.equal(problem.status, status, what);
  assert.equal(problem.type, `/api-platform/problems/${code}`, what);
  assert.equal(problem.instance, res.headers['x-request-id'], what);
  return problem;
}

for (const dialect of testDialects()) {
  describe(`hostile input gets a 4xx problem, never a 5xx (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    // every integer query parameter of the published API, and the path ids
    const INTEGER_PARAMS: [path: string, name: string][] = [
      ['/leaderboards?limit=', 'limit'],
      ['/forum/threads?limit=', 'limit'],
      ['/forum/threads?offset=', 'offset'],
      ['/forum/threads?category_id=', 'category_id'],
      ['/forum/threads/1/posts?limit=', 'limit'],
      ['/forum/threads/1/posts?offset=', 'offset'],
      ['/killboard/feed?limit=', 'limit'],
      ['/killboard/top-frag?limit=', 'limit'],
      ['/stats/elo?limit=', 'limit'],
    ];

    it('refuses integers of 16 to 309+ digits, either sign, with a 400 naming the parameter', async () => {
      for (const [path, name] of INTEGER_PARAMS) {
        for (const value of [HUGE, `-${HUGE}`, '9007199254740993', '1'.repeat(40)]) {
          const problem = assertProblem(await ctx.get(path + value), 400, 'invalid_parameter', path);
          assert.equal(problem.errors?.[0]?.name, name, path);
          // the value is quoted, cut short
          assert.ok(problem.detail.length < 300, problem.detail);
        }
      }
    });

    it('refuses a path id of 150 digits with a 400 naming it, and a segment over 256 characters with 414', async () => {
      for (const path of ['/users/', '/forum/threads/']) {
        const suffix = path === '/forum/threads/' ? '/posts' : '';
        const long = assertProblem(
          await ctx.get(`${path}${'1'.repeat(150)}${suffix}`),
          400,
          'invalid_parameter',
          path,
        );
        assert.equal(long.errors?.[0]?.name, 'id');
        assertProblem(await ctx.get(`${path}${'1'.repeat(257)}${suffix}`), 414, 'uri_too_long', path);
      }
    });

    it('answers a path that is not valid percent-encoding with a 400 problem that does not repeat it', async () => {
      for (const url of [`${V1}/users/%ZZ`, `${V1}/users/%E0%A4%A`, '/api-platform/ingest/logs/%ZZsecret']) {
        const res = await ctx.inject({ method: 'GET', url, headers: { 'x-api-key': ctx.key } });
        const problem = assertProblem(res, 400, 'invalid_parameter', url);
        assert.ok(!problem.detail.includes('secret'));
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
      }
    });

    it('refuses a body of 5,000 nested brackets on every JSON route, signed in or not, before parsing it', async () => {
      const session = await signUp(ctx);
      const server = await registerServer(ctx.testDb.db, 'rust');
      const routes: [url: string, headers: Record<string, string>][] = [
        [`${PORTAL}/accounts`, {}],
        [`${PORTAL}/session`, {}],
        [`${PORTAL}/keys`, { cookie: session.cookie, 'x-csrf-token': session.csrf }],
        ['/api-platform/ingest/events', { authorization: `Bearer ${server.token}` }],
      ];
      for (const [url, headers] of routes) {
        for (const payload of [
          '['.repeat(5000) + ']'.repeat(5000),
          '['.repeat(5000),
          '{"a":'.repeat(33) + '1' + '}'.repeat(33),
        ]) {
          const res = await ctx.inject({
            method: 'POST',
            url,
            headers: { 'content-type': 'application/json', ...headers },
            payload,
          });
          const problem = assertProblem(res, 400, 'invalid_body', url);
          assert.match(problem.detail, /more than 32 levels deep/);
        }
      }
      // brackets inside strings are not nesting
      const res = await ctx.inject({
        method: 'POST',
        url: `${PORTAL}/keys`,
        headers: { 'content-type': 'application/json', cookie: session.cookie, 'x-csrf-token': session.csrf },
        payload: JSON.stringify({ name: '[[[[{{{{"\\'.repeat(10) }),
      });
      assert.equal(res.statusCode, 201, res.body);
    });

    it('sends nosniff, a referrer policy and framing refusal on every kind of response', async () => {
      const user = await ctx.makeUser();
      const answers: [string, LightMyRequestResponse][] = [
        ['json', await ctx.get(`/users/${user.id}`)],
        ['problem', await ctx.get('/users/0')],
        ['404', await ctx.inject({ method: 'GET', url: '/nowhere' })],
        ['openapi', await ctx.inject({ method: 'GET', url: `${V1}/openapi.json` })],
        ['docs page', await ctx.inject({ method: 'GET', url: '/api-platform/docs' })],
        ['portal page', await ctx.inject({ method: 'GET', url: `${PORTAL}/sign-in` })],
        ['avatar', await ctx.inject({ method: 'GET', url: `/avatars/${user.id}.png` })],
        ['problem page', await ctx.inject({ method: 'GET', url: '/api-platform/problems/bad_request' })],
      ];
      for (const [what, res] of answers) {
        assert.ok(res.statusCode < 500, `${what}: ${res.statusCode}`);
        assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
        assert.equal(res.headers['x-frame-options'], 'DENY', what);
        assert.match(String(res.headers['referrer-policy']), /^(no-referrer|same-origin)$/, what);
        if (String(res.headers['content-type']).startsWith('text/html'))
          assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/, what);
      }
    });

    it('never echoes a password, even one that breaks the schema', async () => {
      const password = 'Hunter2-correct-horse-'.repeat(60);
      for (const url of [`${PORTAL}/accounts`, `${PORTAL}/session`]) {
        const res = await ctx.inject({
          method: 'POST',
          url,
          payload: { username: 'somebody', password },
          remoteAddress: '198.51.100.77',
        });
        assertProblem(res, 400, 'invalid_body', url);
        assert.ok(!res.body.includes('Hunter2'), res.body);
        assert.match(res.body, /'password' must be a string of 1 to 1024 characters/);
      }
    });
  });
}

describe('client errors on a listening server: problem+json, Connection: close, timeouts', () => {
  let ctx: TestContext;
  let port: number;
  const HEADERS_MS = 400;
  const REQUEST_MS = 800;
  before(async () => {
    ctx = await createTestContext('sqlite', {
      timeouts: { REQUEST_HEADERS_TIMEOUT_MS: HEADERS_MS, REQUEST_TIMEOUT_MS: REQUEST_MS },
    });
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  after(() => ctx.close());

  const expectClosedProblem = (res: RawResponse, status: number, code: string, what: string) => {
    assert.equal(res.status, status, `${what}: ${res.status} ${res.body}`);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8', what);
    assert.equal(res.headers.connection, 'close', what);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
    assert.ok(res.closed, `${what}: the connection stays open`);
    const problem = JSON.parse(res.body) as Problem;
    assert.equal(problem.code, code, what);
    assert.equal(problem.status, status, what);
    assert.equal(problem.instance, res.headers['x-request-id'], what);
    assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body), what);
    return problem;
  };

  it('answers headers over 16 KiB with 431', async () => {
    const res = await rawRequest(port, `GET / HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectClosedProblem(res, 431, 'headers_too_large', '431');
  });

  it('answers what the HTTP parser refuses with 400 bad_request', async () => {
    for (const request of [
      'GET / HTTP/1.1\r\nHost a\r\n\r\n',
      'GET / HTTP/1.1\r\n\r\n',
      'BREW /\r\n\r\n',
      'POST /api-platform/developer/session HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: a\r\nX: a\u0000b\r\n\r\n',
    ]) {
      expectClosedProblem(await rawRequest(port, request), 400, 'bad_request', JSON.stringify(request));
    }
  });

  it('refuses two Host headers with 400 and closes', async () => {
    const res = await rawRequest(
      port,
      `GET ${V1}/leaderboards HTTP/1.1\r\nHost: a\r\nHost: b\r\nx-api-key: ${ctx.key}\r\n\r\n`,
    );
    const problem = expectClosedProblem(res, 400, 'bad_request', 'two hosts');
    assert.match(problem.detail, /2 Host headers/);
    const one = await rawRequest(
      port,
      `GET ${V1}/leaderboards?limit=1 HTTP/1.1\r\nHost: a\r\nx-api-key: ${ctx.key}\r\nConnection: close\r\n\r\n`,
    );
    assert.equal(one.status, 200);
  });

  it('answers 408 and closes when the headers stop arriving', async () => {
    const res = await rawRequest(port, `GET ${V1}/leaderboards HTTP/1.1\r\nHost: a\r\n`);
    expectClosedProblem(res, 408, 'request_timeout', 'slow headers');
    assert.ok(res.ms >= HEADERS_MS - 50 && res.ms < HEADERS_MS + 1500, `${res.ms} ms`);
  });

  it('answers 408 and closes when a body stops arriving', async () => {
    const res = await rawRequest(
      port,
      `POST ${PORTAL}/session HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"username":`,
    );
    expectClosedProblem(res, 408, 'request_timeout', 'slow body');
    assert.ok(res.ms >= REQUEST_MS - 50 && res.ms < REQUEST_MS + 1500, `${res.ms} ms`);
  });

  it('refuses an oversize portal form from its Content-Length, before reading the body', async () => {
    const res = await rawRequest(
      port,
      `POST ${PORTAL}/sign-in HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 200000\r\n\r\nusername=a`,
    );
    assert.equal(res.status, 413, res.body);
    assert.equal(res.headers.connection, 'close');
    assert.equal((JSON.parse(res.body) as Problem).code, 'payload_too_large');
    assert.ok(res.ms < REQUEST_MS, `${res.ms} ms: waited for the body`);
  });

  it('keeps a healthy keep-alive connection working', async () => {
    const res = await rawRequest(
      port,
      `GET ${V1}/leaderboards?limit=1 HTTP/1.1\r\nHost: a\r\nx-api-key: ${ctx.key}\r\n\r\n`,
      HEADERS_MS + 300,
    );
    assert.equal(res.status, 200);
    assert.equal(res.closed, false);
  });
});
