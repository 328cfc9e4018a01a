import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import type { V1TournamentsBody } from '../src/modules/tournaments/v1-routes.js';
import { contentFactories } from './helpers/content-factories.js';
import { json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { v1Context, v1Get, v1Json } from './helpers/v1.js';

const at = (iso: string) => Date.parse(iso);

for (const dialect of testDialects()) {
  describe(`GET /v1/tournaments (${dialect})`, () => {
    let ctx: TestContext;
    const ids: Record<string, number> = {};
    const list = (query: string, credential = ctx.key) =>
      v1Json<V1TournamentsBody>(ctx, `/tournaments${query}`, credential);
    const names = (body: V1TournamentsBody) => body.data.map((t) => t.name.slice(4));

    before(async () => {
      ctx = await v1Context(dialect, {
        'tok-tournaments': ['tournaments:read'],
        'tok-identify': ['identify'],
      });
      const content = contentFactories(ctx.testDb.db);
      // inserted out of date order, so id order and date order disagree
      const specs = [
        ['u1', 'upcoming', '2026-12-05T10:00:00.000Z', 'cs2'],
        ['u2', 'upcoming', '2026-12-01T10:00:00.000Z', 'rust'],
        ['a1', 'active', '2026-11-20T18:00:00.000Z', 'cs16'],
        ['u3', 'upcoming', '2026-12-01T10:00:00.000Z', 'minecraft'],
        ['c1', 'completed', '2026-10-01T12:00:00.000Z', 'cs2'],
        ['c2', 'completed', '2026-11-01T12:00:00.000Z', 'cs2'],
      ] as const;
      for (const [key, status, starts, game] of specs) {
        const made = await content.makeTournament({
          name: `Cup ${key}`,
          status,
          starts_at: at(starts),
          game,
          max_teams: 16,
        });
        ids[key] = made.id;
      }
    });
    after(() => ctx.close());

    it('lists every status, newest start first (ties: higher id first), in the data/meta envelope', async () => {
      const body = await list('');
      assert.deepEqual(names(body), ['u1', 'u3', 'u2', 'a1', 'c2', 'c1']);
      assert.deepEqual(body.meta, { total: 6, page: 1, per_page: 25 });
      assert.deepEqual(body.data[0], {
        id: ids.u1,
        name: 'Cup u1',
        game: 'cs2',
        status: 'upcoming',
        max_teams: 16,
        starts_at: '2026-12-05T10:00:00.000Z',
      });
    });

    it('filters by status and by game, together or apart; the total counts the filtered list', async () => {
      assert.deepEqual(names(await list('?status=completed')), ['c2', 'c1']);
      assert.deepEqual(names(await list('?game=cs2')), ['u1', 'c2', 'c1']);
      const both = await list('?game=cs2&status=upcoming');
      assert.deepEqual(names(both), ['u1']);
      assert.equal(both.meta.total, 1);
      assert.deepEqual(await list('?status=active&game=rust'), {
        data: [],
        meta: { total: 0, page: 1, per_page: 25 },
      });
    });

    it('pages: each page holds per_page items and the total stays; past the end is empty', async () => {
      const first = await list('?per_page=4');
      const second = await list('?per_page=4&page=2');
      assert.deepEqual(names(first), ['u1', 'u3', 'u2', 'a1']);
      assert.deepEqual(names(second), ['c2', 'c1']);
      assert.deepEqual(second.meta, { total: 6, page: 2, per_page: 4 });
      assert.deepEqual((await list('?per_page=4&page=3')).data, []);
    });

    it('takes an OAuth token with tournaments:read; another scope is 403 insufficient_scope', async () => {
      assert.equal((await list('', 'tok-tournaments')).meta.total, 6);
      const res = await v1Get(ctx, '/tournaments', 'tok-identify');
      assert.equal(res.statusCode, 403);
      assert.equal(json<Problem>(res).code, 'insufficient_scope');
      assert.match(String(res.headers['www-authenticate']), /scope="tournaments:read"/);
    });

    it('refuses an unknown status or game and out-of-range paging with a 400 naming the parameter', async () => {
      for (const [query, name] of [
        ['status=finished', 'status'],
        ['game=quake', 'game'],
        ['page=0', 'page'],
        ['per_page=101', 'per_page'],
        ['per_page=0', 'per_page'],
      ] as const) {
        const res = await v1Get(ctx, `/tournaments?${query}`, ctx.key);
        assert.equal(res.statusCode, 400, query);
        const problem = json<Problem>(res);
        assert.equal(problem.code, 'invalid_parameter', query);
        assert.equal(problem.errors?.[0]?.name, name, query);
      }
    });
  });

  describe(`GET /v1/tournaments with the response cache on (${dialect})`, () => {
    let ctx: TestContext;
    let content: ReturnType<typeof contentFactories>;
    before(async () => {
      ctx = await v1Context(dialect, { 'tok-identify': ['identify'] }, { cacheTtlMs: 60_000 });
      content = contentFactories(ctx.testDb.db);
      await content.makeTournament({ name: 'Cup first', status: 'upcoming' });
    });
    after(() => ctx.close());

    it('answers repeats from the cache with the same ETag (a change inside the TTL is not seen yet), and still checks the scope first', async () => {
      const first = await v1Get(ctx, '/tournaments', ctx.key);
      assert.equal(first.statusCode, 200, first.body);
      const etag = String(first.headers.etag);
      assert.match(etag, /^"/);
      await content.makeTournament({ name: 'Cup later', status: 'upcoming' });
      const cached = await v1Get(ctx, '/tournaments', ctx.key);
      assert.equal(cached.body, first.body);
      assert.equal(cached.headers.etag, etag);
      assert.equal(json<V1TournamentsBody>(cached).meta.total, 1);
      const refused = await v1Get(ctx, '/tournaments', 'tok-identify');
      assert.equal(refused.statusCode, 403);
      assert.equal(json<Problem>(refused).code, 'insufficient_scope');
    });
  });
}
