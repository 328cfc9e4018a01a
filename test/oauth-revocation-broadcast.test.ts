import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { appsCommand } from '../src/commands/apps.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { directAppsFor } from './helpers/oauth.js';
import { instancesOnSharedRedis, sharedRedisUrl } from './helpers/redis.js';

/**
 * Two API instances on one database and one Redis: a token revoked through one of them, or an app
 * deleted by the operator's CLI, stops working on the other at once, although the other had the
 * token in its cache (which alone would trust it for 30 s).
 */
for (const dialect of testDialects()) {
  describe(`OAuth revocations reach every instance (${dialect})`, { skip: !sharedRedisUrl }, () => {
    let testDb: TestDb;
    let a: FastifyInstance;
    let b: FastifyInstance;

    before(async () => {
      testDb = await openTestDb(dialect);
      [a, b] = (await instancesOnSharedRedis(testDb, 2)) as [FastifyInstance, FastifyInstance];
    });
    after(async () => {
      await Promise.all([a.close(), b.close()]);
      await testDb.drop();
    });

    const appToken = async () => {
      const owner = await factories(testDb.db).makeUser();
      const { app, secret } = await directAppsFor(testDb.db, a).create(owner.id, {
        name: 'Scoreboard',
        kind: 'confidential',
        redirect_uris: ['http://127.0.0.1:9/callback'],
      });
      const basic = Buffer.from(`${app.client_id}:${secret ?? ''}`).toString('base64');
      const res = await a.inject({
        method: 'POST',
        url: '/api-platform/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
        payload: 'grant_type=client_credentials&scope=servers%3Aread',
      });
      assert.equal(res.statusCode, 200, res.body);
      return { app, basic, token: res.json<{ access_token: string }>().access_token };
    };

    const status = async (on: FastifyInstance, token: string) =>
      (await on.inject({ method: 'GET', url: '/v1/servers', headers: { authorization: `Bearer ${token}` } }))
        .statusCode;

    /** The other instance refuses the token within a bound far below the cache's 30 s. */
    const refusedSoon = async (token: string) => {
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline) {
        if ((await status(b, token)) === 401) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.fail(
        `the other instance still accepts the revoked token after 3 s (a: ${await status(a, token)})`,
      );
    };

    test('a token revoked (RFC 7009) through one instance is refused by the other', async () => {
      const { basic, token } = await appToken();
      assert.equal(await status(b, token), 200); // now in b's cache
      const revoked = await a.inject({
        method: 'POST',
        url: '/api-platform/oauth/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
        payload: `token=${token}`,
      });
      assert.equal(revoked.statusCode, 200);
      await refusedSoon(token);
    });

    test('an app deleted with `hub apps delete` is refused by a running instance', async () => {
      const { app, token } = await appToken();
      assert.equal(await status(b, token), 200);
      await appsCommand(testDb.db, ['delete', String(app.id)], { REDIS_URL: sharedRedisUrl ?? '' });
      await refusedSoon(token);
    });
  });
}
