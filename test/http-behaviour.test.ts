import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { keysCommand } from '../src/commands/keys.js';
import type { Problem } from '../src/http/problem.js';
import type { ServersBody } from '../src/modules/servers/routes.js';
import { contentFactories, type ContentFactories } from './helpers/content-factories.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { metricValue } from './helpers/metrics.js';

const V1 = '/api-platform/v1';
const HOUR = 3_600_000;
/** 10:15:00.250 UTC: 2699.75 s before the next hour, so every "seconds left" header rounds up to 2700 */
const T0 = Date.UTC(2026, 10, 21, 10, 15, 0, 250);
const NEXT_HOUR_S = Date.UTC(2026, 10, 21, 11) / 1000;

const remaining = (res: LightMyRequestResponse) => res.headers['x-ratelimit-remaining'];
const limitOf = (res: LightMyRequestResponse) => res.headers['x-ratelimit-limit'];

/** One GET per published read that this file exercises, filled in once the fixtures exist. */
async function seedReads(ctx: TestContext, content: ContentFactories): Promise<string[]> {
  const user = await ctx.makeUser({ total_xp: 300 });
  await content.makeTournament();
  await content.makeServer();
  const category = await content.makeCategory();
  const thread = await content.makeThread({ category_id: category.id, author_id: user.id });
  await content.makePost({ thread_id: thread.id, author_id: user.id });
  await content.makeAchievement();
  return [
    '/leaderboards',
    '/tournaments',
    '/servers',
    '/forum/threads',
    `/forum/threads/${thread.id}/posts`,
    '/achievements',
  ];
}

for (const dialect of testDialects()) {
  describe(`HTTP behaviour through the published reads (${dialect})`, () => {
    let ctx: TestContext;
    let content: ContentFactories;
    let reads: string[];
    before(async () => {
      ctx = await createTestContext(dialect);
      content = contentFactories(ctx.testDb.db);
      reads = await seedReads(ctx, content);
    });
    after(() => ctx.close());

    describe('ETag and conditional requests', () => {
      it('tags every 200 with a strong ETag', async () => {
        for (const path of reads) {
          const res = await ctx.get(path);
          assert.equal(res.statusCode, 200, path);
          assert.match(String(res.headers.etag), /^"[A-Za-z0-9_-]{27}"$/, path);
          // the same representation gets the same tag
          assert.equal((await ctx.get(path)).headers.etag, res.headers.etag, path);
        }
      });

      it('answers a matching If-None-Match with an empty 304 that does not use up the quota', async () => {
        const { secret } = await ctx.makeKey({ tier: 'free' });
        const as = { 'x-api-key': secret };
        for (const path of reads) {
          const first = await ctx.get(path, as);
          assert.equal(first.statusCode, 200);
          const etag = String(first.headers.etag);
          const before304 = Number(remaining(first));

          const notModified = await ctx.get(path, { ...as, 'if-none-match': etag });
          assert.equal(notModified.statusCode, 304, path);
          assert.equal(notModified.body, '', path);
          assert.equal(notModified.headers.etag, etag, path);
          assert.equal(remaining(notModified), String(before304), path);
          assert.equal(notModified.headers['x-ratelimit-used'], String(100 - before304), path);

          // weak comparison and lists both match, as RFC 9110 asks for If-None-Match
          const weak = await ctx.get(path, { ...as, 'if-none-match': `"nope", W/${etag}` });
          assert.equal(weak.statusCode, 304, path);
          assert.equal(remaining(weak), String(before304), path);

          const stale = await ctx.get(path, { ...as, 'if-none-match': '"something-else"' });
          assert.equal(stale.statusCode, 200, path);
          assert.equal(stale.body, first.body, path);
          assert.equal(remaining(stale), String(before304 - 1), path);
        }
      });

      it('sends the GET headers, ETag included, without a body for HEAD', async () => {
        for (const path of reads) {
          const get = await ctx.get(path);
          const head = await ctx.inject({
            method: 'HEAD',
            url: V1 + path,
            headers: { 'x-api-key': ctx.key },
          });
          assert.equal(head.statusCode, 200, path);
          assert.equal(head.body, '', path);
          assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)), path);
          assert.equal(head.headers.etag, get.headers.etag, path);
          assert.equal(head.headers['x-ratelimit-limit'], '50000', path);
        }
        const anonymous = await ctx.inject({ method: 'HEAD', url: `${V1}/leaderboards` });
        assert.equal(anonymous.statusCode, 401);
      });
    });

    describe('quotas per tier', () => {
      const cases = [
        ['free', '100'],
        ['authenticated', '1000'],
        ['premium', '10000'],
        ['partner', '50000'],
      ] as const;
      for (const [tier, limit] of cases) {
        it(`gives a ${tier} key ${limit} requests per hour`, async () => {
          const { secret } = await ctx.makeKey({ tier });
          const res = await ctx.get('/leaderboards', { 'x-api-key': secret });
          assert.equal(res.statusCode, 200);
          assert.equal(limitOf(res), limit);
          assert.equal(res.headers['ratelimit-policy'], `"hourly";q=${limit};w=3600`);
        });
      }

      it('follows the owner’s subscription on the very next request when the key has no tier', async () => {
        const owner = await ctx.makeUser({ subscription: 'active' });
        const { secret } = await ctx.makeKey({ tier: null, userId: owner.id });
        const as = { 'x-api-key': secret };
        const first = await ctx.get('/servers', as);
        assert.equal(limitOf(first), '1000');
        assert.equal(remaining(first), '999');

        await content.setSubscription(owner.id, 'premium');
        const upgraded = await ctx.get('/servers', as);
        assert.equal(limitOf(upgraded), '10000');
        // the count carries over: this is the key's second request this hour
        assert.equal(remaining(upgraded), '9998');
        assert.equal(upgraded.headers['x-ratelimit-used'], '2');

        await content.setSubscription(owner.id, 'none');
        assert.equal(limitOf(await ctx.get('/servers', as)), '100');

        const partner = await ctx.makeUser({ subscription: 'none', is_partner: 1 });
        const partnerKey = await ctx.makeKey({ tier: null, userId: partner.id });
        assert.equal(limitOf(await ctx.get('/servers', { 'x-api-key': partnerKey.secret })), '50000');
      });

      it('lets an operator’s quota override win over tier and subscription', async () => {
        const pinned = await ctx.makeKey({ tier: 'free', quota: 250 });
        assert.equal(limitOf(await ctx.get('/servers', { 'x-api-key': pinned.secret })), '250');

        const owner = await ctx.makeUser({ subscription: 'premium' });
        const owned = await ctx.makeKey({ tier: null, userId: owner.id, quota: 7 });
        const res = await ctx.get('/servers', { 'x-api-key': owned.secret });
        assert.equal(limitOf(res), '7');
        assert.equal(res.headers['ratelimit-policy'], '"hourly";q=7;w=3600');

        // the operator's path: `hub keys create --tier free --quota 250 --json`
        const printed: string[] = [];
        const log = console.log;
        console.log = (line: string) => printed.push(line);
        try {
          await keysCommand(ctx.testDb.db, ['create', '--tier', 'free', '--quota', '250', '--json']);
        } finally {
          console.log = log;
        }
        const created = JSON.parse(printed[0] ?? '{}') as { key: string; tier: string; quota: number };
        assert.equal(created.tier, 'free');
        assert.equal(created.quota, 250);
        const viaCli = await ctx.get('/servers', { 'x-api-key': created.key });
        assert.equal(viaCli.statusCode, 200);
        assert.equal(limitOf(viaCli), '250');
      });
    });

    describe('routing errors', () => {
      it('answers an unknown route with a 404 problem', async () => {
        for (const url of [`${V1}/nope`, `${V1}/leaderboards/extra`, `${V1}/forum/threads/1`]) {
          const res = await ctx.inject({ method: 'GET', url, headers: { 'x-api-key': ctx.key } });
          assert.equal(res.statusCode, 404, url);
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
          const problem = json<Problem>(res);
          assert.equal(problem.code, 'not_found');
          assert.equal(problem.type, '/api-platform/problems/not_found');
          assert.equal(problem.status, 404);
          assert.equal(problem.instance, res.headers['x-request-id']);
        }
      });

      it('answers a wrong method on a known path with a 405 problem and Allow: GET', async () => {
        for (const [method, path] of [
          ['POST', '/leaderboards'],
          ['PUT', '/tournaments'],
          ['DELETE', '/servers'],
          ['PATCH', '/achievements'],
          ['POST', '/forum/threads'],
          ['DELETE', '/forum/threads/1/posts'],
        ] as const) {
          const res = await ctx.inject({ method, url: V1 + path, headers: { 'x-api-key': ctx.key } });
          assert.equal(res.statusCode, 405, `${method} ${path}`);
          assert.equal(res.headers.allow, 'GET');
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
          const problem = json<Problem>(res);
          assert.equal(problem.code, 'method_not_allowed');
          assert.equal(problem.status, 405);
          // named by the route's pattern, never the path sent (it may hold a secret)
          assert.equal(problem.detail, `${method} is not allowed on ${V1}${path.replace('/1/', '/{id}/')}`);
        }
      });
    });
  });

  describe(`HTTP behaviour with the response cache on (${dialect})`, () => {
    let ctx: TestContext;
    let content: ContentFactories;
    before(async () => {
      ctx = await createTestContext(dialect, { cacheTtlMs: 60_000 });
      content = contentFactories(ctx.testDb.db);
      await content.makeServer({ name: 'Cached one' });
    });
    after(() => ctx.close());

    it('serves repeats from the cache with the same ETag, and 304s from it without using quota', async () => {
      const { secret } = await ctx.makeKey({ tier: 'free' });
      const as = { 'x-api-key': secret };
      const first = await ctx.get('/servers', as);
      assert.equal(first.statusCode, 200);
      const etag = String(first.headers.etag);
      assert.equal(remaining(first), '99');

      // a change inside the TTL is not visible yet: proof that the next answers come from the cache
      await content.makeServer({ name: 'Added later' });
      const cached = await ctx.get('/servers', as);
      assert.equal(cached.statusCode, 200);
      assert.equal(cached.body, first.body);
      assert.equal(cached.headers.etag, etag);
      assert.deepEqual(
        json<ServersBody>(cached).servers.map((s) => s.name),
        ['Cached one'],
      );
      assert.equal(remaining(cached), '98');

      const notModified = await ctx.get('/servers', { ...as, 'if-none-match': etag });
      assert.equal(notModified.statusCode, 304);
      assert.equal(notModified.body, '');
      assert.equal(notModified.headers.etag, etag);
      assert.equal(remaining(notModified), '98');
      assert.equal(notModified.headers['x-ratelimit-used'], '2');

      const after304 = await ctx.get('/servers', as);
      assert.equal(remaining(after304), '97');
    });

    it('answers a hit with every header the miss had (security, CORS, ETag, quota), counted in usage and metrics', async () => {
      const { id, secret } = await ctx.makeKey({ tier: 'free' });
      const as = { 'x-api-key': secret, origin: 'https://page.example' };
      const miss = await ctx.get('/achievements', as);
      const hit = await ctx.get('/achievements', as);
      assert.equal(hit.statusCode, 200);
      assert.equal(hit.body, miss.body);
      // the same headers, by name and (but for the request id and the quota count) by value
      const varying = ['x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-used', 'ratelimit', 'date'];
      const fixed = (res: LightMyRequestResponse) =>
        Object.fromEntries(Object.entries(res.headers).filter(([name]) => !varying.includes(name)));
      assert.deepEqual(Object.keys(hit.headers).sort(), Object.keys(miss.headers).sort());
      assert.deepEqual(fixed(hit), fixed(miss));
      assert.equal(hit.headers['access-control-allow-origin'], '*');
      assert.equal(hit.headers['x-content-type-options'], 'nosniff');
      assert.equal(hit.headers['content-length'], String(Buffer.byteLength(hit.body)));
      assert.match(String(hit.headers['x-request-id']), /\S/);
      assert.notEqual(hit.headers['x-request-id'], miss.headers['x-request-id']);
      assert.equal(remaining(hit), '98');
      assert.equal(hit.headers['x-ratelimit-used'], '2');
      assert.equal(hit.headers.ratelimit?.toString().startsWith('"hourly";r=98;t='), true);

      const counted = await ctx.app.usageRecorder.withPending([id], () => Promise.resolve([]));
      assert.equal(
        counted
          .filter((row) => row.key_id === id && row.class === '2xx')
          .reduce((n, row) => n + row.count, 0),
        2,
      );
      const text = (await ctx.inject({ url: '/metrics' })).body;
      const route = `${V1}/achievements`;
      assert.equal(metricValue(text, 'hub_http_requests_total', { route, method: 'GET', status: '200' }), 2);
      assert.equal(metricValue(text, 'hub_http_request_duration_seconds_count', { route, method: 'GET' }), 2);
    });
  });

  describe(`hourly quota windows with an injected clock (${dialect})`, () => {
    let ctx: TestContext;
    let clock = T0;
    before(async () => {
      ctx = await createTestContext(dialect, { now: () => clock });
    });
    after(() => ctx.close());

    it('counts 100 requests of a free key, rejects the 101st with 429 and Retry-After, resets at the next UTC hour', async () => {
      const { secret } = await ctx.makeKey({ tier: 'free' });
      const as = { 'x-api-key': secret };
      for (let n = 1; n <= 100; n++) {
        const res = await ctx.get('/achievements', as);
        assert.equal(res.statusCode, 200, `request ${n}`);
        if (n === 1 || n === 37 || n === 100) {
          assert.equal(res.headers['x-ratelimit-limit'], '100');
          assert.equal(res.headers['x-ratelimit-remaining'], String(100 - n));
          assert.equal(res.headers['x-ratelimit-used'], String(n));
          assert.equal(res.headers['x-ratelimit-reset'], String(NEXT_HOUR_S));
          assert.equal(res.headers['ratelimit-policy'], '"hourly";q=100;w=3600');
          assert.equal(res.headers.ratelimit, `"hourly";r=${100 - n};t=2700`);
        }
      }

      clock = T0 + 1000 * 60 * 44; // 10:59:00.250
      const over = await ctx.get('/achievements', as);
      assert.equal(over.statusCode, 429);
      assert.match(String(over.headers['content-type']), /^application\/problem\+json/);
      assert.equal(over.headers['retry-after'], '60');
      assert.equal(over.headers['x-ratelimit-limit'], '100');
      assert.equal(over.headers['x-ratelimit-remaining'], '0');
      assert.equal(over.headers['x-ratelimit-used'], '100');
      assert.equal(over.headers['x-ratelimit-reset'], String(NEXT_HOUR_S));
      assert.equal(over.headers.ratelimit, '"hourly";r=0;t=60');
      const problem = json<Problem>(over);
      assert.equal(problem.code, 'rate_limited');
      assert.equal(problem.status, 429);
      assert.equal(
        problem.detail,
        "This key's free tier allows 100 requests per hour; the quota resets in 60 s.",
      );

      clock = Date.UTC(2026, 10, 21, 10, 59, 59, 999);
      const lastMs = await ctx.get('/achievements', as);
      assert.equal(lastMs.statusCode, 429);
      assert.equal(lastMs.headers['retry-after'], '1');

      clock = Date.UTC(2026, 10, 21, 11); // the next UTC hour: a fresh window
      const fresh = await ctx.get('/achievements', as);
      assert.equal(fresh.statusCode, 200);
      assert.equal(fresh.headers['x-ratelimit-remaining'], '99');
      assert.equal(fresh.headers['x-ratelimit-used'], '1');
      assert.equal(fresh.headers['x-ratelimit-reset'], String(NEXT_HOUR_S + HOUR / 1000));
      assert.equal(fresh.headers.ratelimit, '"hourly";r=99;t=3600');
    });
  });
}
