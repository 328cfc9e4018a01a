import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import type { Problem } from '../src/http/problem.js';
import { setScryptCost } from '../src/modules/accounts/password.js';
import { MemoryThrottleStore } from '../src/modules/accounts/throttle.js';
import type { SessionBody } from '../src/modules/portal/schemas.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import {
  cookieOf,
  freshAddress,
  GOOD_PASSWORD,
  TEST_SCRYPT,
  PORTAL,
  sessionFrom,
  signIn,
  signUp,
  uniqueName,
} from './helpers/portal.js';

const signUpRaw = (ctx: TestContext, payload: unknown, headers: Record<string, string> = {}) =>
  ctx.inject({
    method: 'POST',
    url: `${PORTAL}/accounts`,
    payload: payload as object,
    headers,
    remoteAddress: freshAddress(),
  });

for (const dialect of testDialects()) {
  describe(`portal accounts and sessions (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { throttle: new MemoryThrottleStore() });
    });
    after(() => ctx.close());

    it('signs up: 201, account on the free tier, HttpOnly SameSite cookie without Secure over http', async () => {
      const username = uniqueName('Nova');
      const res = await signUpRaw(ctx, { username, password: GOOD_PASSWORD });
      assert.equal(res.statusCode, 201);
      const body = json<SessionBody>(res);
      assert.deepEqual(body.account, {
        id: body.account.id,
        username,
        subscription: 'none',
        partner: false,
        tier: 'free',
      });
      assert.match(body.csrf_token, /^[A-Za-z0-9_-]{43}$/);
      const cookie = String(res.headers['set-cookie']);
      assert.match(
        cookie,
        /^hub_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax$/,
      );
      assert.equal(res.headers['cache-control'], 'no-store');
      // the password hash is scrypt with a per-password salt, never the password
      const row = await ctx.testDb.db.kysely
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', body.account.id)
        .executeTakeFirstOrThrow();
      assert.match(String(row.password_hash), /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
      assert.ok(!String(row.password_hash).includes(GOOD_PASSWORD));
      const me = await sessionFrom(ctx, res).call('GET', '/session');
      assert.equal(me.statusCode, 200);
      assert.equal(json<SessionBody>(me).account.username, username);
    });

    it('over HTTPS (trusted proxy) the cookie is __Host- prefixed and Secure', async () => {
      const app = await buildApp({
        db: ctx.testDb.db,
        config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: true },
      });
      try {
        const res = await app.inject({
          method: 'POST',
          url: `${PORTAL}/accounts`,
          headers: { 'x-forwarded-proto': 'https' },
          payload: { username: uniqueName(), password: GOOD_PASSWORD },
        });
        assert.equal(res.statusCode, 201);
        assert.match(
          String(res.headers['set-cookie']),
          /^__Host-hub_session=[^;]+; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure$/,
        );
      } finally {
        await app.close();
      }
    });

    it('enforces the username and password rules with 422 naming the field', async () => {
      const cases: [string, string, string][] = [
        ['ab', GOOD_PASSWORD, 'username'],
        ['a'.repeat(33), GOOD_PASSWORD, 'username'],
        ['bad name', GOOD_PASSWORD, 'username'],
        ['okname1', '123456789', 'password'], // 9 characters: one short
        ['okname2', 'x1y2z3'.repeat(21) + 'abc', 'password'], // 129 characters: one long
        ['Quartz42', 'my-quartz42-key', 'password'], // contains the username, ignoring case
        ['okname3', 'aaaaabbbbbccc', 'password'], // 3 different characters
        ['okname4', 'password123', 'password'], // well-known
      ];
      for (const [username, password, field] of cases) {
        const res = await signUpRaw(ctx, { username, password });
        assert.equal(res.statusCode, 422, `${username} / ${password}`);
        const problem = json<Problem>(res);
        assert.equal(problem.code, 'unprocessable');
        assert.equal(problem.errors?.[0]?.name, field, `${username} / ${password}`);
        assert.equal(res.headers['set-cookie'], undefined);
      }
      // both sides of the bounds are accepted
      assert.equal(
        (await signUpRaw(ctx, { username: uniqueName('abc').slice(0, 32), password: 'q1w2e3r4t5' }))
          .statusCode,
        201,
      );
      assert.equal(
        (await signUpRaw(ctx, { username: 'x'.repeat(3), password: 'qA9-'.repeat(32) })).statusCode,
        201,
      );
    });

    it('refuses a taken username, ignoring case, with 409', async () => {
      const username = uniqueName('Taken');
      await signUp(ctx, username);
      const res = await signUpRaw(ctx, { username: username.toUpperCase(), password: GOOD_PASSWORD });
      assert.equal(res.statusCode, 409);
      assert.equal(json<Problem>(res).code, 'conflict');
    });

    it('rejects malformed, oversized and non-JSON bodies with problems', async () => {
      const malformed = await ctx.inject({
        method: 'POST',
        url: `${PORTAL}/accounts`,
        headers: { 'content-type': 'application/json' },
        payload: '{"username": "x",',
      });
      assert.equal(malformed.statusCode, 400);
      assert.match(String(malformed.headers['content-type']), /^application\/problem\+json/);
      assert.equal(json<Problem>(malformed).code, 'invalid_body');
      const missing = await signUpRaw(ctx, { username: uniqueName() });
      assert.equal(missing.statusCode, 400);
      assert.equal(json<Problem>(missing).errors?.[0]?.name, 'password');
      const wrongType = await signUpRaw(ctx, { username: { name: 'x' }, password: GOOD_PASSWORD });
      assert.equal(wrongType.statusCode, 400);
      const big = await signUpRaw(ctx, { username: uniqueName(), password: 'p'.repeat(20_000) });
      assert.equal(big.statusCode, 413);
      assert.equal(json<Problem>(big).code, 'payload_too_large');
      const form = await ctx.inject({
        method: 'POST',
        url: `${PORTAL}/accounts`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `username=${uniqueName()}&password=${GOOD_PASSWORD}`,
      });
      assert.equal(form.statusCode, 415);
    });

    it('signs in with a fresh session; unknown user and wrong password get the identical answer', async () => {
      const username = uniqueName('Sig');
      await signUp(ctx, username);
      const ok = await signIn(ctx, username.toLowerCase(), GOOD_PASSWORD, {}, '10.0.0.1');
      assert.equal(ok.statusCode, 200);
      assert.equal(json<SessionBody>(ok).account.username, username);

      const wrong = await signIn(ctx, username, 'not-the-password', {}, '10.0.0.1');
      const unknown = await signIn(ctx, uniqueName('ghost'), 'not-the-password', {}, '10.0.0.1');
      assert.equal(wrong.statusCode, 401);
      assert.equal(unknown.statusCode, 401);
      const strip = (p: Problem) => ({ ...p, instance: '' });
      assert.deepEqual(strip(json<Problem>(wrong)), strip(json<Problem>(unknown)));
      assert.equal(json<Problem>(wrong).detail, 'The username or password is incorrect.');
      assert.equal(wrong.headers['set-cookie'], undefined);
    });

    it('takes as long for an unknown username as for a wrong password (a scrypt runs either way)', async () => {
      // a cost where scrypt clearly dominates a database lookup, so skipping it would show
      setScryptCost({ N: 16384, r: 8, p: 1 });
      after(() => setScryptCost(TEST_SCRYPT));
      const username = uniqueName('Tim');
      await signUp(ctx, username);
      const time = async (name: string) => {
        const started = process.hrtime.bigint();
        const res = await signIn(ctx, name, 'wrong-password-1', {}, '10.0.0.2');
        assert.equal(res.statusCode, 401);
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 3; i++) {
        known.push(await time(username));
        unknown.push(await time(uniqueName('nobody')));
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1] ?? 0;
      const ratio = median(unknown) / median(known);
      // Without the dummy hash an unknown name skips the scrypt entirely; noise stays well inside 3x.
      assert.ok(ratio > 0.33 && ratio < 3, `unknown ${median(unknown)} ms vs known ${median(known)} ms`);
    });

    it('throttles per account: the 6th attempt within 15 minutes is 429 even with the right password', async () => {
      const username = uniqueName('Brute');
      await signUp(ctx, username);
      for (let i = 0; i < 5; i++) {
        const res = await signIn(ctx, username, `guess-number-${i}`, {}, `10.1.0.${i}`);
        assert.equal(res.statusCode, 401, `attempt ${i + 1}`);
      }
      const blocked = await signIn(ctx, username, GOOD_PASSWORD, {}, '10.1.0.99');
      assert.equal(blocked.statusCode, 429);
      const problem = json<Problem>(blocked);
      assert.equal(problem.code, 'too_many_attempts');
      assert.match(problem.detail, /Too many failed sign-in attempts\. Wait 15 minute/);
      const retryAfter = Number(blocked.headers['retry-after']);
      assert.ok(retryAfter > 890 && retryAfter <= 900, `retry-after ${retryAfter}`);
      assert.equal(blocked.headers['set-cookie'], undefined);
    });

    it('throttles per address: 20 failures over many accounts block the 21st attempt from that address', async () => {
      const address = '10.2.0.1';
      for (let i = 0; i < 20; i++) {
        const res = await signIn(ctx, uniqueName('spray'), 'sprayed-password', {}, address);
        assert.equal(res.statusCode, 401, `attempt ${i + 1}`);
      }
      const username = uniqueName('Victim');
      await signUp(ctx, username);
      assert.equal((await signIn(ctx, username, GOOD_PASSWORD, {}, address)).statusCode, 429);
      assert.equal((await signIn(ctx, username, GOOD_PASSWORD, {}, '10.2.0.2')).statusCode, 200);
    });

    it('refuses cross-site sign-in (Origin, Sec-Fetch-Site) with 403 csrf_failed', async () => {
      const username = uniqueName('Xs');
      await signUp(ctx, username);
      const crossSite: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
      ];
      for (const headers of crossSite) {
        const res = await signIn(ctx, username, GOOD_PASSWORD, headers, '10.3.0.1');
        assert.equal(res.statusCode, 403, JSON.stringify(headers));
        assert.equal(json<Problem>(res).code, 'csrf_failed');
      }
      const same = await signIn(
        ctx,
        username,
        GOOD_PASSWORD,
        { origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' },
        '10.3.0.1',
      );
      assert.equal(same.statusCode, 200);
    });

    it('session fixation: a planted session id is never honoured and is replaced on sign-in', async () => {
      const attacker = await signUp(ctx);
      const victimName = uniqueName('Victim');
      await signUp(ctx, victimName);
      // an invented id: not a session
      const invented = await ctx.inject({
        method: 'GET',
        url: `${PORTAL}/my-keys`,
        headers: { cookie: 'hub_session=attacker-chosen-value' },
      });
      assert.equal(invented.statusCode, 401);
      assert.equal(json<Problem>(invented).code, 'unauthenticated');
      // the attacker's own live session id planted in the victim's browser
      const res = await signIn(ctx, victimName, GOOD_PASSWORD, { cookie: attacker.cookie }, '10.4.0.1');
      assert.equal(res.statusCode, 200);
      const fresh = cookieOf(res);
      assert.notEqual(fresh, attacker.cookie);
      const planted = await attacker.call('GET', '/session');
      assert.equal(planted.statusCode, 401, 'the planted id must be dead after sign-in');
      const victim = await ctx.inject({
        method: 'GET',
        url: `${PORTAL}/session`,
        headers: { cookie: fresh },
      });
      assert.equal(json<SessionBody>(victim).account.username, victimName);
    });

    it('signs out: the session dies on the server and the cookie is cleared; CSRF is required', async () => {
      const session = await signUp(ctx);
      const noToken = await session.call('DELETE', '/session', undefined, { 'x-csrf-token': '' });
      assert.equal(noToken.statusCode, 403);
      assert.equal(json<Problem>(noToken).code, 'csrf_failed');
      const out = await session.call('DELETE', '/session');
      assert.equal(out.statusCode, 204);
      assert.match(
        String(out.headers['set-cookie']),
        /^hub_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/,
      );
      assert.equal((await session.call('GET', '/session')).statusCode, 401);
      assert.equal((await session.call('GET', '/my-keys')).statusCode, 401);
    });

    it('documents the portal routes under their own tag with the session scheme', async () => {
      const doc = json<{
        paths: Record<
          string,
          Record<string, { tags: string[]; security: object[]; servers?: { url: string }[] }>
        >;
        components: { securitySchemes: Record<string, { in: string; name: string }> };
      }>(await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }));
      const myKeys = doc.paths['/api-platform/developer/my-keys']?.get;
      assert.deepEqual(myKeys?.tags, ['Developer portal']);
      assert.deepEqual(myKeys.security, [{ session: [] }]);
      assert.equal(myKeys.servers, undefined, 'one server for the whole document');
      assert.deepEqual(doc.paths['/api-platform/developer/session']?.post?.security, []);
      assert.ok(doc.paths['/api-platform/developer/keys']?.post);
      assert.ok(doc.paths['/api-platform/developer/keys/{id}']?.delete);
      assert.equal(doc.components.securitySchemes.session?.in, 'cookie');
    });
  });
}

for (const dialect of testDialects()) {
  describe(`portal session lifetime (${dialect})`, () => {
    let ctx: TestContext;
    let clock = Date.UTC(2026, 5, 1, 12);
    before(async () => {
      ctx = await createTestContext(dialect, { now: () => clock });
    });
    after(() => ctx.close());

    it('expires sessions after 7 days and sweeps expired rows at the next sign-in', async () => {
      const session = await signUp(ctx);
      clock += 7 * 24 * 3_600_000 - 1;
      assert.equal((await session.call('GET', '/session')).statusCode, 200);
      clock += 1;
      assert.equal((await session.call('GET', '/session')).statusCode, 401);
      const count = async () =>
        Number(
          (
            await ctx.testDb.db.kysely
              .selectFrom('sessions')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      assert.equal(await count(), 1);
      await signUp(ctx);
      assert.equal(await count(), 1, 'the expired row is gone, the new one stays');
    });
  });
}
