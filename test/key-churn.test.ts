import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProblemError, type Problem } from '../src/http/problem.js';
import { KEY_CREATIONS_PER_DAY } from '../src/modules/portal/keys-service.js';
import type { CreatedKeyBody, MyKeysBody } from '../src/modules/portal/schemas.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { directKeysService, followForm, PORTAL, signUp, type PortalSession } from './helpers/portal.js';

const HOUR = 3_600_000;

// A free account that used up its quota must not get fresh quota without end by revoking its key
// and making another: key creation itself is limited per account.
for (const dialect of testDialects()) {
  describe(`key churn (${dialect})`, () => {
    let ctx: TestContext;
    let clock = Date.UTC(2026, 3, 1, 9, 10);
    before(async () => {
      ctx = await createTestContext(dialect, { now: () => clock, usageFlushMs: HOUR });
    });
    after(() => ctx.close());

    const create = (session: PortalSession, name = 'churn') => session.call('POST', '/keys', { name });
    const createOk = async (session: PortalSession, name = 'churn') => {
      const res = await create(session, name);
      assert.equal(res.statusCode, 201, res.body);
      return json<CreatedKeyBody>(res);
    };
    const api = (secret: string) => ctx.get('/achievements', { 'x-api-key': secret });

    it('limits creation to 10 keys in 24 hours, revoked keys included, with 429 and Retry-After (the form: its page says so)', async () => {
      const session = await signUp(ctx);
      const first = clock;
      for (let i = 0; i < KEY_CREATIONS_PER_DAY; i++) {
        const { key } = await createOk(session, `k${i}`);
        assert.equal((await session.call('DELETE', `/keys/${key.id}`)).statusCode, 200);
        clock += 60_000;
      }
      const over = await create(session, 'eleventh');
      assert.equal(over.statusCode, 429);
      const problem = json<Problem>(over);
      assert.equal(problem.code, 'key_creation_limited');
      assert.match(problem.detail, /10 keys in 24 hours, revoked ones included/);
      assert.equal(Number(over.headers['retry-after']), (first + 24 * HOUR - clock) / 1000);
      // the web form is held to the same limit
      const keysPage = await ctx.inject({
        method: 'GET',
        url: `${PORTAL}/keys`,
        headers: { cookie: session.cookie },
      });
      assert.equal(keysPage.statusCode, 200);
      const form = await ctx.inject({
        method: 'POST',
        url: `${PORTAL}/keys/new`,
        headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ name: 'by form', _csrf: session.csrf }).toString(),
      });
      const shown = await followForm(ctx, form, session.cookie);
      assert.match(shown.body, /10 keys in 24 hours/);
      // a rolling day: once the first creation is 24 hours old, one more place opens
      clock = first + 24 * HOUR - 1;
      assert.equal((await create(session)).statusCode, 429);
      clock = first + 24 * HOUR;
      await createOk(session);
      assert.equal((await create(session)).statusCode, 429);
    });

    it('holds the limit under concurrent creations', async () => {
      const { service, account } = await directKeysService(ctx, () => clock);
      for (let i = 0; i < 5; i++) {
        const { key } = await service.create(account, `k${i}`);
        await service.revoke(account, key.id);
      }
      const racing = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => service.create(account, `race ${i}`)),
      );
      assert.equal(racing.filter((r) => r.status === 'fulfilled').length, KEY_CREATIONS_PER_DAY - 5);
      for (const r of racing.filter((r) => r.status === 'rejected')) {
        assert.ok(r.reason instanceof ProblemError && r.reason.code === 'key_creation_limited');
      }
    });

    it('bounds churn: quotas stay per key (SPEC), and revoking a spent key buys at most the creation limit', async () => {
      clock = Date.UTC(2026, 3, 2, 14, 0);
      const session = await signUp(ctx);
      const spent = await createOk(session, 'spent');
      for (let i = 0; i < 100; i++) assert.equal((await api(spent.secret)).statusCode, 200);
      const over = await api(spent.secret);
      assert.equal(over.statusCode, 429);
      assert.match(json<Problem>(over).detail, /^This key's free tier allows 100 requests per hour/);
      assert.equal((await session.call('DELETE', `/keys/${spent.key.id}`)).statusCode, 200);
      // each new key has a quota of its own, but the account can make only so many a day
      let made = 1;
      while ((await create(session)).statusCode === 201) made++;
      assert.equal(made, KEY_CREATIONS_PER_DAY);
      const listed = json<MyKeysBody>(await session.call('GET', '/my-keys')).keys;
      assert.deepEqual(
        listed.filter((k) => k.revoked).map((k) => k.requests_this_hour),
        [101],
        "the spent key's count this hour is the one the API enforced",
      );
    });
  });
}
