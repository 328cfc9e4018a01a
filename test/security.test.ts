import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import { keysRepo } from '../src/modules/keys/repo.js';
import { generateKey } from '../src/modules/keys/key-format.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { dropTable, testDialects } from './helpers/db.js';

interface OpenApi {
  paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
}

/**
 * Every key-protected GET operation in the OpenAPI document, with path parameters filled in.
 * (Session-protected portal routes have their own tests.)
 */
async function protectedPaths(ctx: TestContext): Promise<string[]> {
  const doc = json<OpenApi>(await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }));
  return (
    Object.entries(doc.paths)
      .filter(([, ops]) => ops.get?.security?.some((scheme) => 'apiKey' in scheme))
      // the document writes full paths; the suite calls them under the published API's base
      .map(([path]) => path.replace(/^\/api-platform\/v1/, '').replace(/\{[^}]+\}/g, '1'))
  );
}

// The shared security suite: the same checks over every protected route (STYLE: Do 6).
for (const dialect of testDialects()) {
  describe(`security suite over every protected route (${dialect})`, () => {
    let ctx: TestContext;
    let paths: string[];
    before(async () => {
      ctx = await createTestContext(dialect);
      paths = await protectedPaths(ctx);
    });
    after(() => ctx.close());

    it('lists at least the published operations', () => {
      assert.ok(paths.length >= 2, `only ${paths.length} protected paths`);
    });

    const expect401 = async (path: string, headers: Record<string, string>, code: string) => {
      const res = await ctx.inject({ method: 'GET', url: `/api-platform/v1${path}`, headers });
      assert.equal(res.statusCode, 401, `${path} ${JSON.stringify(headers)}`);
      assert.equal(res.headers['www-authenticate'], 'ApiKey header="x-api-key"');
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(json<Problem>(res).code, code);
      assert.equal(res.headers['x-ratelimit-limit'], undefined);
    };

    it('rejects a missing key', async () => {
      for (const path of paths) await expect401(path, {}, 'missing_api_key');
    });

    it('rejects malformed, unknown and checksum-broken keys', async () => {
      const unknown = generateKey();
      const broken = unknown.slice(0, -1) + (unknown.endsWith('A') ? 'B' : 'A');
      for (const path of paths) {
        await expect401(path, { 'x-api-key': 'not-a-key' }, 'invalid_api_key');
        await expect401(path, { 'x-api-key': unknown }, 'invalid_api_key');
        await expect401(path, { 'x-api-key': broken }, 'invalid_api_key');
      }
    });

    it('rejects a revoked key on the very next request', async () => {
      const { id, secret } = await ctx.makeKey({ tier: 'partner' });
      const first = await ctx.get('/users/1', { 'x-api-key': secret });
      assert.notEqual(first.statusCode, 401);
      assert.ok(await keysRepo(ctx.testDb.db.kysely).revoke(id, Date.now()));
      for (const path of paths) await expect401(path, { 'x-api-key': secret }, 'invalid_api_key');
    });

    it('answers 429 with Retry-After once a key is over its quota', async () => {
      for (const path of paths) {
        const { secret } = await ctx.makeKey({ tier: 'free', quota: 1 });
        const first = await ctx.get(path, { 'x-api-key': secret });
        assert.notEqual(first.statusCode, 429, path);
        assert.equal(first.headers['x-ratelimit-limit'], '1');
        assert.equal(first.headers['x-ratelimit-remaining'], '0');
        const second = await ctx.get(path, { 'x-api-key': secret });
        assert.equal(second.statusCode, 429, path);
        const retryAfter = Number(second.headers['retry-after']);
        assert.ok(retryAfter >= 1 && retryAfter <= 3600, `retry-after ${retryAfter}`);
        assert.equal(json<Problem>(second).code, 'rate_limited');
      }
    });

    it('never echoes the key back and never leaks internals on errors', async () => {
      for (const path of paths) {
        const res = await ctx.get(path);
        assert.ok(!res.body.includes(ctx.key), path);
      }
    });
  });

  describe(`internal errors on every protected route (${dialect})`, () => {
    let ctx: TestContext;
    let paths: string[];
    before(async () => {
      ctx = await createTestContext(dialect);
      paths = await protectedPaths(ctx);
      // Every public read joins or reads users: each one now fails inside the database.
      await dropTable(ctx.testDb, 'users');
    });
    after(() => ctx.close());

    it('answers 500 internal_error with a generic detail: no SQL, no stack, no key', async () => {
      let failures = 0;
      for (const path of paths) {
        const res = await ctx.get(path);
        if (res.statusCode !== 500) continue;
        failures++;
        const problem = json<Problem>(res);
        assert.equal(problem.code, 'internal_error', path);
        assert.equal(problem.detail, 'The server could not complete the request; it has been logged.');
        assert.doesNotMatch(res.body, /users|table|relation|select|\.ts:|\bat /i, path);
        assert.ok(!res.body.includes(ctx.key), path);
      }
      assert.ok(failures >= 3, `only ${failures} routes failed without the users table`);
    });
  });
}
