import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RouteOptions } from 'fastify';
import type { Problem } from '../src/http/problem.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { changedTables, snapshotTables } from './helpers/db-snapshot.js';
import { FORM, PORTAL, signUp, type PortalSession } from './helpers/portal.js';

/**
 * The forms of the portal's pages and of the OAuth sign-in and consent pages take exactly their
 * fields, like every JSON body: a field a form does not have is a 400 problem naming it, and changes
 * nothing. The forms are found in the route table (every hidden POST route), so a form added later
 * is held to the same rule. (The OAuth protocol endpoints are not among them: RFC 6749 §3.2 has them
 * ignore unknown parameters, see oauth-endpoints.test.ts.)
 */

describe('page forms refuse fields they do not have', () => {
  let ctx: TestContext;
  let session: PortalSession;
  const forms: string[] = [];

  before(async () => {
    ctx = await createTestContext('sqlite', {
      onRoute: (route: RouteOptions) => {
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        if (methods.includes('POST') && route.schema?.hide === true) forms.push(route.url);
      },
    });
    session = await signUp(ctx);
  });
  after(() => ctx.close());

  const post = (url: string, body: string) =>
    ctx.inject({
      method: 'POST',
      url: url.replace(/:[A-Za-z]+/g, '1'),
      headers: { ...FORM, cookie: session.cookie },
      payload: body,
    });

  it('finds the forms: the portal pages\u2019 and the authorization pages\u2019', () => {
    assert.ok(forms.length >= 15, forms.join(', '));
    assert.ok(forms.includes(`${PORTAL}/sign-up`) && forms.includes(`${PORTAL}/webhooks/new`), forms.join());
    assert.ok(forms.includes('/api-platform/oauth/interaction/:uid/consent'), forms.join());
  });

  it('answers a field a form does not have with a 400 problem naming it, and changes nothing', async () => {
    for (const url of forms) {
      const before = await snapshotTables(ctx.testDb);
      const res = await post(url, `_csrf=${session.csrf}&is_admin=1`);
      const label = `${url}: ${res.statusCode} ${res.body.slice(0, 300)}`;
      assert.equal(res.statusCode, 400, label);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/, label);
      const problem = res.json<Problem & { errors?: { name: string }[] }>();
      assert.ok(
        problem.errors?.some((e) => e.name === 'is_admin') ?? problem.detail.includes('is_admin'),
        label,
      );
      assert.deepEqual(
        changedTables(before, await snapshotTables(ctx.testDb)),
        [],
        `${label}: the database changed`,
      );
    }
  });

  it('still takes a form with exactly its fields', async () => {
    const res = await post(
      `${PORTAL}/keys/new`,
      new URLSearchParams({ _csrf: session.csrf, name: 'from the form' }).toString(),
    );
    assert.equal(res.statusCode, 303, res.body);
    const keys = await session.call('GET', '/my-keys');
    assert.ok(keys.body.includes('from the form'), keys.body.slice(0, 300));
  });
});
