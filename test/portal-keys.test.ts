import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProblemError, type Problem } from '../src/http/problem.js';
import { isWellFormedKey } from '../src/modules/keys/key-format.js';
import type { CreatedKeyBody, MyKeysBody, RevokedKeyBody } from '../src/modules/portal/schemas.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { directKeysService, PORTAL, signUp, type PortalSession } from './helpers/portal.js';

for (const dialect of testDialects()) {
  describe(`portal keys (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { usageFlushMs: 3_600_000 });
    });
    after(() => ctx.close());

    const create = async (session: PortalSession, name = 'my bot') => {
      const res = await session.call('POST', '/keys', { name });
      assert.equal(res.statusCode, 201, res.body);
      return json<CreatedKeyBody>(res);
    };
    const api = (secret: string, path = '/users/1') => ctx.get(path, { 'x-api-key': secret });
    /** Moves an account's keys a day and an hour into the past: out of the 24-hour creation limit. */
    const ageKeys = (userId: number) =>
      ctx.testDb.db.kysely
        .updateTable('api_keys')
        .set((eb) => ({ created_at: eb('created_at', '-', 25 * 3_600_000) }))
        .where('user_id', '=', userId)
        .execute();

    it('creates a key: the secret is returned once, works at once, and is never listed', async () => {
      const session = await signUp(ctx);
      const created = await create(session, '  my bot  ');
      assert.ok(isWellFormedKey(created.secret));
      assert.deepEqual(created.key, {
        id: created.key.id,
        name: 'my bot',
        prefix: created.secret.slice(0, 10),
        tier: 'free',
        quota: 100,
        created: created.key.created,
        last_used: null,
        requests_this_hour: 0,
        revoked: false,
        revoked_at: null,
        allowed_origins: [],
      });
      const user = await ctx.makeUser();
      const call = await api(created.secret, `/users/${user.id}`);
      assert.equal(call.statusCode, 200);
      assert.equal(call.headers['x-ratelimit-limit'], '100');

      const list = await session.call('GET', '/my-keys');
      assert.equal(list.statusCode, 200);
      assert.ok(!list.body.includes(created.secret), 'the secret must never be listed');
      assert.ok(!list.body.includes(created.secret.slice(10)));
      const [listed] = json<MyKeysBody>(list).keys;
      assert.equal(listed?.id, created.key.id);
      assert.equal(listed.requests_this_hour, 1);
      // the stored row holds only the hash
      const row = await ctx.testDb.db.kysely
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', created.key.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.tier, null, 'portal keys follow their owner');
      assert.equal(row.user_id, session.accountId);
      assert.ok(!JSON.stringify(row).includes(created.secret.slice(10)));
    });

    it('lists only the caller\u2019s keys, newest first', async () => {
      const alice = await signUp(ctx);
      const bob = await signUp(ctx);
      const a1 = await create(alice, 'first');
      const a2 = await create(alice, 'second');
      await create(bob, 'bobs');
      const keys = json<MyKeysBody>(await alice.call('GET', '/my-keys')).keys;
      assert.deepEqual(
        keys.map((k) => [k.id, k.name]),
        [
          [a2.key.id, 'second'],
          [a1.key.id, 'first'],
        ],
      );
    });

    it('requires a session (401) and the CSRF token on writes (403)', async () => {
      assert.equal(
        json<Problem>(await ctx.inject({ method: 'GET', url: `${PORTAL}/my-keys` })).code,
        'unauthenticated',
      );
      const noSession = await ctx.inject({ method: 'POST', url: `${PORTAL}/keys`, payload: { name: 'x' } });
      assert.equal(noSession.statusCode, 401);
      const session = await signUp(ctx);
      const missing = await ctx.inject({
        method: 'POST',
        url: `${PORTAL}/keys`,
        headers: { cookie: session.cookie },
        payload: { name: 'x' },
      });
      assert.equal(missing.statusCode, 403);
      assert.equal(json<Problem>(missing).code, 'csrf_failed');
      const other = await signUp(ctx);
      for (const token of ['wrong', other.csrf, session.csrf.slice(0, -1)]) {
        const res = await session.call('POST', '/keys', { name: 'x' }, { 'x-csrf-token': token });
        assert.equal(res.statusCode, 403, token);
      }
      const crossOrigin = await session.call(
        'POST',
        '/keys',
        { name: 'x' },
        { origin: 'https://evil.example' },
      );
      assert.equal(crossOrigin.statusCode, 403);
      const { id } = await create(session).then((c) => c.key);
      const deleteNoToken = await ctx.inject({
        method: 'DELETE',
        url: `${PORTAL}/keys/${id}`,
        headers: { cookie: session.cookie },
      });
      assert.equal(deleteNoToken.statusCode, 403);
      assert.equal(
        json<MyKeysBody>(await session.call('GET', '/my-keys')).keys.length,
        1,
        'nothing was created',
      );
    });

    it('validates the name: 1 to 100 characters; malformed and oversized bodies are problems', async () => {
      const session = await signUp(ctx);
      assert.equal((await session.call('POST', '/keys', { name: '' })).statusCode, 400);
      assert.equal((await session.call('POST', '/keys', { name: 'n'.repeat(101) })).statusCode, 400);
      assert.equal((await session.call('POST', '/keys', {})).statusCode, 400);
      assert.equal((await session.call('POST', '/keys', { name: 'n'.repeat(100) })).statusCode, 201);
      assert.equal((await session.call('POST', '/keys', { name: 'n' })).statusCode, 201);
      const big = await session.call('POST', '/keys', { name: 'n'.repeat(20_000) });
      assert.equal(big.statusCode, 413);
      assert.equal(json<Problem>(big).code, 'payload_too_large');
      const bad = await ctx.inject({
        method: 'POST',
        url: `${PORTAL}/keys`,
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
        payload: '{"name":',
      });
      assert.equal(bad.statusCode, 400);
      assert.match(String(bad.headers['content-type']), /^application\/problem\+json/);
    });

    it('caps active keys at 10 with 409 key_limit_reached; revoking one frees a slot', async () => {
      const session = await signUp(ctx);
      const ids: number[] = [];
      for (let i = 0; i < 10; i++) ids.push((await create(session, `k${i}`)).key.id);
      await ageKeys(session.accountId);
      const over = await session.call('POST', '/keys', { name: 'eleventh' });
      assert.equal(over.statusCode, 409);
      assert.equal(json<Problem>(over).code, 'key_limit_reached');
      assert.match(json<Problem>(over).detail, /10 active keys/);
      assert.equal((await session.call('DELETE', `/keys/${ids[0]}`)).statusCode, 200);
      assert.equal((await session.call('POST', '/keys', { name: 'eleventh' })).statusCode, 201);
      assert.equal((await session.call('POST', '/keys', { name: 'twelfth' })).statusCode, 409);
    });

    it('holds the cap under concurrent creations: of five racing for the last slot, one wins', async () => {
      const { service, account } = await directKeysService(ctx);
      for (let i = 0; i < 9; i++) await service.create(account, `k${i}`);
      await ageKeys(account.id);
      const racing = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => service.create(account, `race ${i}`)),
      );
      assert.equal(racing.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of racing.filter((r) => r.status === 'rejected')) {
        assert.ok(r.reason instanceof ProblemError && r.reason.code === 'key_limit_reached');
      }
      assert.equal((await service.list(account)).filter((k) => !k.revoked).length, 10);
    });

    it('revokes: the very next API call is 401; another account\u2019s key id is 404, like an unknown one', async () => {
      const alice = await signUp(ctx);
      const mallory = await signUp(ctx);
      const { key, secret } = await create(alice);
      assert.equal((await api(secret, `/users/${alice.accountId}`)).statusCode, 200);
      for (const path of [`/keys/${key.id}`, `/keys/${key.id}/usage`]) {
        const method = path.endsWith('usage') ? 'GET' : 'DELETE';
        const stolen = await mallory.call(method, path);
        assert.equal(stolen.statusCode, 404, path);
        const unknown = await mallory.call(method, path.replace(String(key.id), '2147483647'));
        assert.equal(unknown.statusCode, 404);
        const strip = (p: Problem) => ({ ...p, instance: '', detail: p.detail.replace(/\d+/, 'N') });
        assert.deepEqual(strip(json<Problem>(stolen)), strip(json<Problem>(unknown)));
        assert.equal(json<Problem>(stolen).code, 'key_not_found');
      }
      assert.notEqual((await api(secret)).statusCode, 401, 'mallory could not revoke it');

      const revoked = await alice.call('DELETE', `/keys/${key.id}`);
      assert.equal(revoked.statusCode, 200);
      const body = json<RevokedKeyBody>(revoked);
      assert.equal(body.key.revoked, true);
      assert.ok(body.key.revoked_at);
      const next = await api(secret);
      assert.equal(next.statusCode, 401);
      assert.equal(json<Problem>(next).code, 'invalid_api_key');
      // revoking again is harmless and returns the same record
      const again = await alice.call('DELETE', `/keys/${key.id}`);
      assert.equal(json<RevokedKeyBody>(again).key.revoked_at, body.key.revoked_at);
      for (const bad of ['0', 'abc', '2147483648']) {
        assert.equal((await alice.call('DELETE', `/keys/${bad}`)).statusCode, 400, bad);
      }
    });

    it('the tier follows the owner: a plan change shows in x-ratelimit-limit on the next request', async () => {
      const session = await signUp(ctx);
      const { secret } = await create(session);
      const limitNow = async () => (await api(secret)).headers['x-ratelimit-limit'];
      const plan = (changes: { subscription?: 'none' | 'active' | 'premium'; is_partner?: number }) =>
        ctx.testDb.db.kysely.updateTable('users').set(changes).where('id', '=', session.accountId).execute();
      assert.equal(await limitNow(), '100');
      await plan({ subscription: 'active' });
      assert.equal(await limitNow(), '1000');
      await plan({ subscription: 'premium' });
      assert.equal(await limitNow(), '10000');
      await plan({ is_partner: 1 });
      assert.equal(await limitNow(), '50000');
      await plan({ subscription: 'none', is_partner: 0 });
      assert.equal(await limitNow(), '100');
      await plan({ subscription: 'premium' });
      const [listed] = json<MyKeysBody>(await session.call('GET', '/my-keys')).keys;
      assert.equal(listed?.tier, 'premium');
      assert.equal(listed.quota, 10000);
      assert.equal(listed.requests_this_hour, 5);
    });
  });
}
