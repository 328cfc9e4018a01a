import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Problem } from '../src/http/problem.js';
import { setScryptCost } from '../src/modules/accounts/password.js';
import { THROTTLE_LIMITS } from '../src/modules/accounts/throttle.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import {
  followForm,
  GOOD_PASSWORD,
  PORTAL,
  signIn,
  signUp,
  TEST_SCRYPT,
  uniqueName,
} from './helpers/portal.js';
import { instancesOnSharedRedis, sharedRedisUrl } from './helpers/redis.js';

const statuses = (responses: LightMyRequestResponse[]) =>
  responses.map((r) => r.statusCode).sort((a, b) => a - b);
const count = (responses: LightMyRequestResponse[], status: number) =>
  responses.filter((r) => r.statusCode === status).length;

const signUpFrom = (app: { inject: TestContext['inject'] }, address: string, username = uniqueName('Sup')) =>
  app.inject({
    method: 'POST',
    url: `${PORTAL}/accounts`,
    payload: { username, password: GOOD_PASSWORD },
    remoteAddress: address,
  });

for (const dialect of testDialects()) {
  describe(`sign-in and sign-up throttles in one instance (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('40 concurrent wrong sign-ins for one account: at most 5 reach the password check, the rest are 429', async () => {
      const username = uniqueName('Par');
      await signUp(ctx, username);
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, i) => signIn(ctx, username, `parallel-guess-${i}`, {}, '10.20.0.1')),
      );
      assert.equal(count(responses, 401), THROTTLE_LIMITS.account, JSON.stringify(statuses(responses)));
      assert.equal(count(responses, 429), 40 - THROTTLE_LIMITS.account);
      const refused = responses.find((r) => r.statusCode === 429);
      assert.ok(refused);
      assert.equal(json<Problem>(refused).code, 'too_many_attempts');
      assert.ok(Number(refused.headers['retry-after']) > 850, String(refused.headers['retry-after']));
      // the right password is refused too until the window moves
      assert.equal((await signIn(ctx, username, GOOD_PASSWORD, {}, '10.20.0.2')).statusCode, 429);
    });

    it('a success gives the address its place back: 30 good sign-ins from one address all pass', async () => {
      const username = uniqueName('Nat');
      await signUp(ctx, username);
      for (let i = 0; i < 30; i++) {
        const res = await signIn(ctx, username, GOOD_PASSWORD, {}, '10.21.0.1');
        assert.equal(res.statusCode, 200, `sign-in ${i + 1}`);
      }
    });

    it('limits sign-ups to 5 per address per hour; rule violations do not count; other addresses are apart', async () => {
      const address = '10.22.0.1';
      for (let i = 0; i < 3; i++) {
        const weak = await ctx.inject({
          method: 'POST',
          url: `${PORTAL}/accounts`,
          payload: { username: uniqueName('Weak'), password: 'short' },
          remoteAddress: address,
        });
        assert.equal(weak.statusCode, 422);
      }
      const taken = uniqueName('Taken');
      for (let i = 0; i < THROTTLE_LIMITS.signUp - 1; i++) {
        assert.equal((await signUpFrom(ctx, address, i === 0 ? taken : undefined)).statusCode, 201);
      }
      // a taken name takes a place too: probing which names exist is limited as well
      assert.equal((await signUpFrom(ctx, address, taken.toUpperCase())).statusCode, 409);
      const sixth = await signUpFrom(ctx, address);
      assert.equal(sixth.statusCode, 429);
      const problem = json<Problem>(sixth);
      assert.equal(problem.code, 'too_many_attempts');
      assert.match(problem.detail, /Too many accounts were created from your network\. Wait 60 minute/);
      const retryAfter = Number(sixth.headers['retry-after']);
      assert.ok(retryAfter > 3500 && retryAfter <= 3600, `retry-after ${retryAfter}`);
      assert.equal(sixth.headers['set-cookie'], undefined);
      assert.equal((await signUpFrom(ctx, '10.22.0.2')).statusCode, 201);
    });

    it('counts IPv6 sign-ups by their /64', async () => {
      for (let i = 1; i <= THROTTLE_LIMITS.signUp; i++) {
        assert.equal((await signUpFrom(ctx, `2001:db8:22:1::${i.toString(16)}`)).statusCode, 201);
      }
      assert.equal((await signUpFrom(ctx, '2001:db8:22:1:ffff:ffff:ffff:ffff')).statusCode, 429);
      assert.equal((await signUpFrom(ctx, '2001:db8:22:2::1')).statusCode, 201);
    });

    it('the sign-up form is throttled by the same limit, and says so on the page it redirects to', async () => {
      const address = '10.23.0.1';
      for (let i = 0; i < THROTTLE_LIMITS.signUp; i++) {
        assert.equal((await signUpFrom(ctx, address)).statusCode, 201);
      }
      const page = await ctx.inject({ method: 'GET', url: `${PORTAL}/sign-up`, remoteAddress: address });
      const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
      const cookie = String(page.headers['set-cookie']).split(';')[0] ?? '';
      const form = await ctx.inject({
        method: 'POST',
        url: `${PORTAL}/sign-up`,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          username: uniqueName('Form'),
          password: GOOD_PASSWORD,
          _csrf: token,
        }).toString(),
        remoteAddress: address,
      });
      const shown = await followForm(ctx, form, cookie);
      assert.match(shown.body, /Too many accounts were created from your network/);
    });
  });
}

// Scale-out: the throttles hold across API instances that share one Redis.
for (const dialect of testDialects()) {
  describe(
    `sign-in throttle shared by three API instances through Redis (${dialect})`,
    { skip: !sharedRedisUrl && 'TEST_REDIS_URL is not set' },
    () => {
      let testDb: TestDb;
      let apps: FastifyInstance[];
      before(async () => {
        testDb = await openTestDb(dialect);
        apps = await instancesOnSharedRedis(testDb, 3);
      });
      after(async () => {
        for (const app of apps) await app.close();
        await testDb.drop();
      });
      const instance = (i: number): FastifyInstance => {
        const app = apps[i % apps.length];
        assert.ok(app);
        return app;
      };
      const signInVia = (app: FastifyInstance, username: string, password: string, address: string) =>
        app.inject({
          method: 'POST',
          url: `${PORTAL}/session`,
          payload: { username, password },
          remoteAddress: address,
        });

      it('15 wrong passwords round-robin over 3 instances: 401 five times, then 429', async () => {
        const username = uniqueName('Round');
        assert.equal((await signUpFrom(instance(0), '10.30.0.1', username)).statusCode, 201);
        const seen: number[] = [];
        for (let i = 0; i < 15; i++) {
          seen.push((await signInVia(instance(i), username, `round-robin-${i}`, '10.30.0.2')).statusCode);
        }
        assert.deepEqual(seen, [...Array<number>(5).fill(401), ...Array<number>(10).fill(429)]);
      });

      it('40 concurrent wrong sign-ins spread over 3 instances: at most 5 reach the password check', async () => {
        // A password check far slower than a Redis round trip, as in production: every attempt is
        // in flight before the first one's hash is done, so only reservations can hold the line.
        setScryptCost({ N: 16384, r: 8, p: 1 });
        after(() => setScryptCost(TEST_SCRYPT));
        const username = uniqueName('Spread');
        assert.equal((await signUpFrom(instance(1), '10.31.0.1', username)).statusCode, 201);
        const responses = await Promise.all(
          Array.from({ length: 40 }, (_, i) => signInVia(instance(i), username, `spread-${i}`, '10.31.0.2')),
        );
        assert.equal(count(responses, 401), THROTTLE_LIMITS.account, JSON.stringify(statuses(responses)));
        assert.equal(count(responses, 429), 40 - THROTTLE_LIMITS.account);
      });

      it('sign-ups from one address are counted across instances', async () => {
        const seen: number[] = [];
        for (let i = 0; i <= THROTTLE_LIMITS.signUp; i++) {
          seen.push((await signUpFrom(instance(i), '10.32.0.1')).statusCode);
        }
        assert.deepEqual(seen, [...Array<number>(THROTTLE_LIMITS.signUp).fill(201), 429]);
      });
    },
  );
}
