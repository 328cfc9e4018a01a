import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UserBody, UserStatsBody } from '../src/modules/users/routes.js';
import type { Problem } from '../src/http/problem.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';

for (const dialect of testDialects()) {
  describe(`users (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('returns the public profile with exactly the documented fields', async () => {
      const user = await ctx.makeUser({
        username: 'NovaStrike',
        total_xp: 4600,
        achievements_count: 3,
        joined_at: Date.UTC(2025, 4, 6, 7, 8, 9),
      });
      const res = await ctx.get(`/users/${user.id}`);
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const body = json<UserBody>(res);
      assert.deepEqual(Object.keys(body), ['user']);
      assert.deepEqual(body.user, {
        id: user.id,
        username: 'NovaStrike',
        avatar: body.user.avatar,
        level: 10,
        achievements_count: 3,
        joined: '2025-05-06T07:08:09.000Z',
      });
      assert.match(body.user.avatar, /^\/avatars\//);
    });

    it('computes stats from XP and activity', async () => {
      const user = await ctx.makeUser({ total_xp: 4600, achievements_count: 2 });
      const res = await ctx.get(`/users/${user.id}/stats`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json<UserStatsBody>(res), {
        stats: { xp: 100, level: 10, total_xp: 4600, achievements: 2, forum_posts: 0, tournaments_played: 0 },
      });
    });

    it('answers 404 problem for an unknown user, 400 for a malformed id', async () => {
      const missing = await ctx.get('/users/999999');
      assert.equal(missing.statusCode, 404);
      assert.match(String(missing.headers['content-type']), /^application\/problem\+json/);
      const problem = json<Problem>(missing);
      assert.equal(problem.code, 'user_not_found');
      assert.equal(problem.type, '/api-platform/problems/user_not_found');
      assert.equal(problem.status, 404);
      assert.equal(problem.instance, missing.headers['x-request-id']);

      for (const bad of ['abc', '0', '-1', '1.5', '99999999999', '0x1', '1e0', '%201']) {
        const res = await ctx.get(`/users/${bad}`);
        assert.equal(res.statusCode, 400, bad);
        const p = json<Problem>(res);
        assert.equal(p.code, 'invalid_parameter');
        assert.equal(p.errors?.[0]?.name, 'id');
        assert.equal(p.errors[0].in, 'path');
        assert.match(p.detail, /id/);
      }
      const stats = await ctx.get('/users/999999/stats');
      assert.equal(stats.statusCode, 404);
    });
  });
}
