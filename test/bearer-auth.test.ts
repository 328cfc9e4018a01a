import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';

import type { Problem } from '../src/http/problem.js';
import { keysRepo } from '../src/modules/keys/repo.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { pipelineApp } from './helpers/pipeline-app.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * The bearer step of the pipeline on routes declared the way /v1 routes declare themselves. The
 * access-token verifier is the authorization server's job; a table of tokens stands in for it
 * here, so the step's own rules (challenges, scopes, user context, quota subject) are tested alone.
 */
for (const dialect of testDialects()) {
  describe(`bearer step (${dialect})`, () => {
    let testDb: TestDb;
    let app: FastifyInstance;
    const tokens = new TokenTable();

    before(async () => {
      testDb = await openTestDb(dialect);
      app = await pipelineApp(testDb.db, tokens, (routes) => {
        routes.get('/public', { config: { auth: 'bearer', scope: 'servers:read' } }, (request) => ({
          kind: request.principal?.kind,
        }));
        routes.get(
          '/me',
          { config: { auth: 'bearer', scope: 'identify', userContext: true } },
          (request) => ({
            user: request.principal?.userId,
          }),
        );
      });
    });
    after(async () => {
      await app.close();
      await testDb.drop();
    });

    const get = (url: string, authorization?: string) =>
      app.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });

    it('answers 401 missing_token with a bare Bearer challenge when no credential is sent', async () => {
      for (const header of [undefined, 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer    ']) {
        const res = await get('/public', header);
        assert.equal(res.statusCode, 401, String(header));
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="hub"');
        assert.equal(res.json<Problem>().code, 'missing_token');
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
      }
    });

    it('answers 401 invalid_token for unknown, expired, malformed and revoked credentials', async () => {
      tokens.tokens.set('tok-expired-q7', userToken(['servers:read'], { expiresAt: Date.now() - 1 }));
      const { id, secret } = await factories(testDb.db).makeKey({ tier: 'partner' });
      assert.equal((await get('/public', `Bearer ${secret}`)).statusCode, 200);
      assert.ok(await keysRepo(testDb.db.kysely).revoke(id, Date.now()));
      for (const token of ['tok-unknown-q7', 'tok-expired-q7', 'ghk_not-a-key', secret]) {
        const res = await get('/public', `Bearer ${token}`);
        assert.equal(res.statusCode, 401, token);
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="hub", error="invalid_token"');
        assert.equal(res.json<Problem>().code, 'invalid_token');
        assert.ok(!res.body.includes(token), 'the credential is not echoed');
      }
    });

    it('takes an API key as a bearer token in app context, with the public read scopes only', async () => {
      const { secret } = await factories(testDb.db).makeKey({ tier: 'premium' });
      const ok = await get('/public', `bearer ${secret}`);
      assert.equal(ok.statusCode, 200);
      assert.deepEqual(ok.json(), { kind: 'app' });
      assert.equal(ok.headers['x-ratelimit-limit'], '10000');
      const me = await get('/me', `Bearer ${secret}`);
      assert.equal(me.statusCode, 403);
      assert.equal(me.json<Problem>().code, 'user_context_required');
      assert.equal(me.headers['x-ratelimit-limit'], undefined, 'refused before the quota counts');
    });

    it('refuses a token without the route scope with 403 insufficient_scope naming it', async () => {
      tokens.tokens.set('no-identify', userToken(['servers:read']));
      const res = await get('/me', 'Bearer no-identify');
      assert.equal(res.statusCode, 403);
      assert.equal(
        res.headers['www-authenticate'],
        'Bearer realm="hub", error="insufficient_scope", scope="identify"',
      );
      assert.equal(res.json<Problem>().code, 'insufficient_scope');
    });

    it('refuses an app-only token on a user-context route and accepts a user token', async () => {
      tokens.tokens.set('app-only', userToken(['identify'], { userId: null }));
      assert.equal((await get('/me', 'Bearer app-only')).json<Problem>().code, 'user_context_required');
      tokens.tokens.set('user', userToken(['identify']));
      const res = await get('/me', 'Bearer user');
      assert.equal(res.statusCode, 200);
      assert.equal(res.json<{ user: number }>().user, 7);
    });

    it("spends the app owner's tier per (app, user) pair and answers 429 past it", async () => {
      // free tier: 100 per hour; two users of the same app have separate counters
      tokens.tokens.set('alice', userToken(['servers:read'], { userId: 11, appId: 5 }));
      tokens.tokens.set('bob', userToken(['servers:read'], { userId: 12, appId: 5 }));
      for (let i = 0; i < 100; i++) assert.equal((await get('/public', 'Bearer alice')).statusCode, 200);
      const over = await get('/public', 'Bearer alice');
      assert.equal(over.statusCode, 429);
      assert.match(over.json<Problem>().detail, /app's free tier allows 100 requests per hour/);
      assert.ok(Number(over.headers['retry-after']) >= 1);
      const other = await get('/public', 'Bearer bob');
      assert.equal(other.statusCode, 200);
      assert.equal(other.headers['x-ratelimit-remaining'], '99');
    });
  });
}
