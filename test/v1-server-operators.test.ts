import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import { formatEventId } from '../src/modules/events/event-id.js';
import type { EventsPageBody } from '../src/modules/events/v1-schemas.js';
import type { ServerOperatorRecord } from '../src/modules/servers/commands/operators-route.js';
import { serverCommandsRepo } from '../src/modules/servers/commands/repo.js';
import { serversRepo } from '../src/modules/servers/repo.js';
import type { MadeUser } from './helpers/factories.js';
import { json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { assertCatalogued, eventsAfter, lastEventId } from './helpers/events.js';
import { registerServer } from './helpers/ingest.js';
import { TokenTable, userToken } from './helpers/token-table.js';
import { createTestContext } from './helpers/context.js';

/**
 * GET /v1/servers/:id/operators: the owner and the operators of a server, private to them (the
 * same people who read its chat and send it commands), paged, and current after each grant; each
 * grant and revocation told to them as `server.operators_changed`.
 */
type Page = { data: ServerOperatorRecord[]; meta: { total: number; page: number; per_page: number } };
const GRANTED_AT = Date.UTC(2026, 10, 20, 18, 4, 11);

for (const dialect of testDialects()) {
  describe(`server operators (${dialect})`, () => {
    const tokens = new TokenTable();
    let ctx: TestContext;
    let owner: MadeUser;
    let ops: MadeUser[];
    let stranger: MadeUser;
    let server: number;
    let ownerless: number;

    before(async () => {
      ctx = await createTestContext(dialect, { accessTokens: tokens });
      owner = await ctx.makeUser();
      stranger = await ctx.makeUser();
      ops = [await ctx.makeUser(), await ctx.makeUser(), await ctx.makeUser()];
      const as = (user: MadeUser, scopes: ('servers:command' | 'servers:read' | 'chat:read')[]) =>
        userToken(scopes, { userId: user.id, tier: 'partner' });
      tokens.tokens.set('owner', as(owner, ['servers:command']));
      tokens.tokens.set('operator', as(ops[2] as MadeUser, ['servers:command']));
      tokens.tokens.set('stranger', as(stranger, ['servers:command']));
      tokens.tokens.set('owner-read', as(owner, ['servers:read', 'chat:read']));
      const repo = serverCommandsRepo(ctx.testDb.db.kysely);
      server = (await registerServer(ctx.testDb.db, 'cs2')).id;
      await repo.setChannel(server, 'rcon', owner.id);
      // granted out of id order, and the owner granted too: listed once, as the owner
      for (const user of [ops[2], ops[0], ops[1], owner] as MadeUser[])
        await repo.grant(server, user.id, GRANTED_AT);
      ownerless = (await registerServer(ctx.testDb.db, 'cs16')).id;
      await repo.grant(ownerless, (ops[2] as MadeUser).id, GRANTED_AT);
    });
    after(() => ctx.close());

    const get = (token: string, path: string) =>
      ctx.inject({ method: 'GET', url: `/v1${path}`, headers: { authorization: `Bearer ${token}` } });
    const page = async (token: string, path: string): Promise<Page> => {
      const res = await get(token, path);
      assert.equal(res.statusCode, 200, res.body);
      return json<Page>(res);
    };
    const problem = async (token: string, path: string, status: number, code: string) => {
      const res = await get(token, path);
      assert.equal(res.statusCode, status, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(json<Problem>(res).code, code);
    };
    const entry = (user: MadeUser, role: 'owner' | 'operator'): ServerOperatorRecord => ({
      user_id: user.id,
      username: user.username,
      role,
      granted_at: role === 'owner' ? null : new Date(GRANTED_AT).toISOString(),
    });

    it('lists the owner first, then the operators by user id, to the owner and to an operator', async () => {
      const [a, b, c] = ops as [MadeUser, MadeUser, MadeUser];
      const expected = [
        entry(owner, 'owner'),
        entry(a, 'operator'),
        entry(b, 'operator'),
        entry(c, 'operator'),
      ];
      for (const token of ['owner', 'operator']) {
        const body = await page(token, `/servers/${server}/operators`);
        assert.deepEqual(body.data, expected, token);
        assert.deepEqual(body.meta, { total: 4, page: 1, per_page: 25 });
      }
    });

    it('pages with page and per_page, the owner taking the first place', async () => {
      const [a, b, c] = ops as [MadeUser, MadeUser, MadeUser];
      const pages = await Promise.all(
        [1, 2, 3].map((n) => page('owner', `/servers/${server}/operators?per_page=2&page=${n}`)),
      );
      assert.deepEqual(
        pages.map((p) => p.data),
        [[entry(owner, 'owner'), entry(a, 'operator')], [entry(b, 'operator'), entry(c, 'operator')], []],
      );
      assert.ok(pages.every((p) => p.meta.total === 4));
      const single = await page('operator', `/servers/${server}/operators?per_page=1&page=2`);
      assert.deepEqual(single.data, [entry(a, 'operator')]);
      await problem('owner', `/servers/${server}/operators?per_page=101`, 400, 'invalid_parameter');
    });

    it('lists only the operators of a server without an owner', async () => {
      const body = await page('operator', `/servers/${ownerless}/operators`);
      assert.deepEqual(body.data, [entry(ops[2] as MadeUser, 'operator')]);
      assert.equal(body.meta.total, 1);
    });

    it('is private: strangers, API keys and tokens without servers:command are refused', async () => {
      await problem('stranger', `/servers/${server}/operators`, 403, 'server_operator_required');
      await problem('owner', `/servers/${ownerless}/operators`, 403, 'server_operator_required');
      await problem(ctx.key, `/servers/${server}/operators`, 403, 'user_context_required');
      await problem('owner-read', `/servers/${server}/operators`, 403, 'insufficient_scope');
      await problem('owner', '/servers/999999/operators', 404, 'server_not_found');
      await problem('owner', '/servers/abc/operators', 400, 'invalid_parameter');
    });

    it('shows a revocation on the next read, and a removed server is 404', async () => {
      const repo = serverCommandsRepo(ctx.testDb.db.kysely);
      const [a, b] = ops as [MadeUser, MadeUser];
      await repo.revoke(server, b.id, Date.now());
      const body = await page('owner', `/servers/${server}/operators`);
      assert.deepEqual(
        body.data.map((e) => e.user_id),
        [owner.id, a.id, (ops[2] as MadeUser).id],
      );
      await repo.grant(server, b.id, GRANTED_AT);
      await serversRepo(ctx.testDb.db.kysely).remove(ownerless, Date.now());
      await problem('operator', `/servers/${ownerless}/operators`, 404, 'server_not_found');
    });

    it('tells each grant and revocation to the owner, the operators and the user changed, once each', async () => {
      const repo = serverCommandsRepo(ctx.testDb.db.kysely);
      const newcomer = await ctx.makeUser();
      tokens.tokens.set('newcomer', userToken(['servers:command'], { userId: newcomer.id, tier: 'partner' }));
      const start = await lastEventId(ctx.testDb.db.kysely);
      assert.equal(await repo.grant(server, newcomer.id, GRANTED_AT), true);
      assert.equal(await repo.grant(server, newcomer.id, GRANTED_AT), false, 'granted already');
      assert.equal(await repo.revoke(server, newcomer.id, GRANTED_AT), true);
      assert.equal(await repo.revoke(server, newcomer.id, GRANTED_AT), false, 'revoked already');
      const told = await eventsAfter(ctx.testDb.db.kysely, start);
      assertCatalogued(told);
      const readers = [owner, ...ops, newcomer].map((u) => u.id).sort((a, b) => a - b);
      const data = (change: string) => ({ server_id: server, game: 'cs2', user_id: newcomer.id, change });
      assert.deepEqual(
        told.map((e) => [e.type, e.user_id, e.data]),
        [
          ...readers.map((id) => ['server.operators_changed', id, data('granted')]),
          ...readers.map((id) => ['server.operators_changed', id, data('revoked')]),
        ],
      );
      // each reads their own, through the channels: the owner, an operator, the user changed; nobody else
      const pulled = async (token: string) => {
        const res = await get(token, `/events?after=${formatEventId(start)}&types=server.operators_changed`);
        assert.equal(res.statusCode, 200, res.body);
        return json<EventsPageBody>(res).data.map((e) => e.data.change);
      };
      for (const token of ['owner', 'operator', 'newcomer'])
        assert.deepEqual(await pulled(token), ['granted', 'revoked'], token);
      assert.deepEqual(await pulled('stranger'), []);
      assert.deepEqual(await pulled('owner-read'), [], 'the event needs servers:command');
      assert.deepEqual(await pulled(ctx.key), [], 'never to an API key');
    });
  });
}
