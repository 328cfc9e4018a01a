import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prefersJson, type ProblemDoc } from '../src/http/docs/pages.js';
import { ERRORS, type Problem } from '../src/http/problem.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';

describe('problem type pages, docs routes and the service index', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite');
  });
  after(() => ctx.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    ctx.inject({ method: 'GET', url, headers });

  it('explains a code in HTML, without a key', async () => {
    const res = await get('/api-platform/problems/user_not_found', { accept: 'text/html,*/*;q=0.8' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers.vary, 'Accept');
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    assert.ok(res.body.includes('<h1>User not found</h1>'));
    assert.ok(res.body.includes('<code>user_not_found</code> · HTTP 404'));
    assert.ok(res.body.includes('<h2>When it happens</h2><p>No hub user has the requested id.</p>'));
    assert.ok(res.body.includes('such as <code>user_id</code> in leaderboards'));
    assert.ok(!/<script/i.test(res.body));
  });

  it('answers JSON to a client that asks for it', async () => {
    const res = await get('/api-platform/problems/rate_limited', { accept: 'application/json' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const doc = json<ProblemDoc>(res);
    assert.deepEqual(Object.keys(doc), ['code', 'type', 'title', 'status', 'when', 'what_to_do', 'example']);
    assert.equal(doc.code, 'rate_limited');
    assert.equal(doc.type, '/api-platform/problems/rate_limited');
    assert.equal(doc.title, 'Rate limit exceeded');
    assert.equal(doc.status, 429);
    assert.match(doc.what_to_do, /Retry-After/);
    assert.equal(doc.example.code, 'rate_limited');
  });

  it('has a page for every error code, and every type URI the service sends resolves', async () => {
    for (const [code, { status, title }] of Object.entries(ERRORS)) {
      const res = await get(`/api-platform/problems/${code}`, { accept: 'application/json' });
      assert.equal(res.statusCode, 200, code);
      const doc = json<ProblemDoc>(res);
      assert.equal(doc.status, status);
      assert.equal(doc.title, title);
      assert.ok(doc.when.length > 20 && doc.what_to_do.length > 10, code);
    }
    const problem = json<Problem>(await ctx.get('/users/987654'));
    assert.equal(problem.code, 'user_not_found');
    assert.equal((await get(problem.type)).statusCode, 200);
  });

  it('lists every code on the index page', async () => {
    const html = await get('/api-platform/problems');
    assert.equal(html.statusCode, 200);
    for (const code of Object.keys(ERRORS))
      assert.ok(
        html.body.includes(`<a href="/api-platform/problems/${code}"><code>${code}</code></a>`),
        code,
      );
    const list = json<{ problems: ProblemDoc[] }>(
      await get('/api-platform/problems', { accept: 'application/json' }),
    );
    assert.deepEqual(
      list.problems.map((p) => p.code),
      Object.keys(ERRORS),
    );
  });

  it('answers an unknown code with a 404 problem', async () => {
    const res = await get('/api-platform/problems/no_such_code');
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    const problem = json<Problem>(res);
    assert.equal(problem.code, 'not_found');
    assert.equal(problem.detail, "There is no error code 'no_such_code'.");
    // An inherited property name is not a code either.
    assert.equal((await get('/api-platform/problems/toString')).statusCode, 404);
  });

  it('points the service root and the API base at the reference', async () => {
    for (const url of ['/', '/api-platform/v1']) {
      const browser = await get(url, { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
      assert.equal(browser.statusCode, 302, url);
      assert.equal(browser.headers.location, '/api-platform/docs/');
      for (const accept of ['application/json', '*/*']) {
        const client = await get(url, { accept });
        assert.equal(client.statusCode, 200, `${url} ${accept}`);
        assert.deepEqual(client.json(), {
          name: 'Gaming Hub API',
          version: '1.0.0',
          links: {
            api: '/api-platform/v1',
            openapi: '/api-platform/v1/openapi.json',
            docs: '/api-platform/docs/',
            problems: '/api-platform/problems',
          },
        });
      }
    }
  });

  it('serves a favicon so browsers do not log a 404', async () => {
    const res = await get('/favicon.ico');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/svg+xml');
  });

  it('ranks Accept ranges: JSON only when preferred over HTML', () => {
    assert.equal(prefersJson(undefined), false);
    assert.equal(prefersJson('*/*'), false);
    assert.equal(prefersJson('application/json'), true);
    assert.equal(prefersJson('application/problem+json'), true);
    assert.equal(prefersJson('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), false);
    assert.equal(prefersJson('text/html;q=0.5, application/json'), true);
    assert.equal(prefersJson('application/json;q=0.4, text/*;q=0.5'), false);
    assert.equal(prefersJson('application/*'), true);
  });
});
