import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Problem } from '../src/http/problem.js';
import type { TokenRotationResult } from '../src/modules/servers/plugin-routes.js';
import { serversRepo } from '../src/modules/servers/repo.js';
import { generateToken, hashToken } from '../src/modules/servers/tokens.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { postEvents, registerServer } from './helpers/ingest.js';

/**
 * Token rotation without downtime: after a rotation both tokens work for the overlap (24 h from the
 * plugin's route, what the operator chose from the CLI's repo call), then the old one is refused
 * with 401 invalid_server_token; removal revokes at once. Time is the app's injected clock.
 */
const BEAT = { players: 1, max_players: 10, map: 'world', version: '1.21.1', plugin: 'hub-sdk-test/1.0' };
const DAY = 24 * 3600 * 1000;

for (const dialect of testDialects()) {
  describe(`ingest token rotation (${dialect})`, () => {
    let ctx: TestContext;
    let clock = Date.UTC(2031, 5, 1, 8, 0, 0);

    before(async () => {
      ctx = await createTestContext(dialect, { now: () => clock });
    });
    after(() => ctx.close());

    const call = (method: 'POST', url: string, token: string, payload?: object) =>
      ctx.inject({
        method,
        url: `/api-platform/ingest${url}`,
        headers: { authorization: `Bearer ${token}` },
        ...(payload ? { payload } : {}),
      });
    const beat = (token: string) => call('POST', '/heartbeat', token, BEAT);
    const rotate = (token: string) => call('POST', '/token/rotate', token);
    const refused = (res: LightMyRequestResponse) => {
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(json<Problem>(res).code, 'invalid_server_token');
    };

    it('keeps the old token working for 24 h after a plugin rotates, then refuses it', async () => {
      const server = await registerServer(ctx.testDb.db, 'minecraft');
      const res = await rotate(server.token);
      assert.equal(res.statusCode, 200, res.body);
      const rotation = json<TokenRotationResult>(res);
      assert.match(rotation.token, /^[1-9]\d{31}$/);
      assert.notEqual(rotation.token, server.token);
      assert.equal(rotation.previous_valid_until, new Date(clock + DAY).toISOString());

      clock += DAY - 1;
      assert.equal((await beat(server.token)).statusCode, 200, 'old token, inside the overlap');
      assert.equal((await beat(rotation.token)).statusCode, 200, 'new token');
      // the old token may not rotate again: it is accepted, but no longer the current one
      const again = await rotate(server.token);
      assert.equal(again.statusCode, 409, again.body);
      assert.equal(json<Problem>(again).code, 'token_superseded');

      clock += 1;
      refused(await beat(server.token));
      refused(await postEvents(ctx, server.token, [{ type: 'player_session' }]));
      assert.equal((await beat(rotation.token)).statusCode, 200);
    });

    it('ends the old token at once with a zero overlap, and a rotation during an overlap ends the older one', async () => {
      const server = await registerServer(ctx.testDb.db, 'rust');
      const repo = serversRepo(ctx.testDb.db.kysely);
      const second = generateToken();
      assert.equal(await repo.rotateToken(server.id, hashToken(second), clock), true);
      refused(await beat(server.token));
      const third = generateToken();
      assert.equal(await repo.rotateToken(server.id, hashToken(third), clock + DAY), true);
      assert.equal((await beat(second)).statusCode, 200, 'the token just replaced has its overlap');
      const fourth = json<TokenRotationResult>(await rotate(third)).token;
      refused(await beat(second));
      assert.equal((await beat(third)).statusCode, 200);
      assert.equal((await beat(fourth)).statusCode, 200);
    });

    it('revokes every token of a removed server at once, the overlapping one included', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const next = json<TokenRotationResult>(await rotate(server.token)).token;
      assert.equal((await beat(server.token)).statusCode, 200);
      await serversRepo(ctx.testDb.db.kysely).remove(server.id, clock);
      refused(await beat(server.token));
      refused(await beat(next));
      refused(await rotate(next));
    });
  });
}
