import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import { serversRepo } from '../src/modules/servers/repo.js';
import { HOUR_MS } from '../src/modules/servers/uptime.js';
import type { V1ServersBody, V1ServerStatusBody } from '../src/modules/servers/v1-routes.js';
import { contentFactories } from './helpers/content-factories.js';
import { json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { v1Context, v1Get, v1Json } from './helpers/v1.js';

// 12:30 UTC: the current hour began at 12:00
const NOW = Date.UTC(2026, 10, 20, 12, 30);
const HOUR = Date.UTC(2026, 10, 20, 12);
const hoursAgo = (n: number) => HOUR - n * HOUR_MS;

for (const dialect of testDialects()) {
  describe(`GET /v1/servers and /v1/servers/:id/status (${dialect})`, () => {
    let ctx: TestContext;
    const ids: Record<string, number> = {};
    const list = (query: string, credential = ctx.key) =>
      v1Json<V1ServersBody>(ctx, `/servers${query}`, credential);
    const names = (body: V1ServersBody) => body.data.map((s) => s.name);
    const status = async (id: number | string) =>
      (await v1Json<V1ServerStatusBody>(ctx, `/servers/${id}/status`)).data;

    before(async () => {
      ctx = await v1Context(
        dialect,
        { 'tok-servers': ['servers:read'], 'tok-stats': ['stats:read'] },
        { now: () => NOW },
      );
      const content = contentFactories(ctx.testDb.db);
      const repo = serversRepo(ctx.testDb.db.kysely);
      const specs = [
        ['alpha', 'cs2', 'online', 'eu-west'],
        ['bravo', 'rust', 'offline', 'na-east'],
        ['charlie', 'cs2', 'offline', 'eu-west'],
        ['delta', 'minecraft', 'online', 'unassigned'],
        ['echo', 'cs2', 'online', 'na-east'],
      ] as const;
      for (const [name, game, state, region] of specs) {
        const made = await content.makeServer({
          name,
          game,
          status: state,
          region,
          players: 0,
          max_players: 16,
        });
        ids[name] = made.id;
      }
      await repo.markOnline(
        ids.alpha ?? 0,
        { players: 11, max_players: 16, map: 'de_inferno' },
        NOW - 60_000,
        27,
      );
      // alpha: this hour 4/4 (the answered poll above and three more), 10 hours ago 2/4, 5 days
      // ago 0/4; edges of both windows
      const polls: [number, number, boolean][] = [];
      for (let i = 0; i < 4; i++) polls.push([10, 0, i < 2], [5 * 24, 0, false]);
      for (let i = 0; i < 3; i++) polls.push([0, 0, true]);
      polls.push([23, 0, true], [24, 0, false], [719, 0, true], [720, 0, false]);
      for (const [ago, , ok] of polls) await repo.recordPoll(ids.alpha ?? 0, hoursAgo(ago), ok);
      // a removed server is never listed
      const gone = await content.makeServer({ name: 'zulu', game: 'cs2', region: 'eu-west' });
      ids.zulu = gone.id;
      await repo.remove(gone.id, NOW);
    });
    after(() => ctx.close());

    it('lists every registered server, running or offline, by id, as the preview record', async () => {
      const body = await list('');
      assert.deepEqual(names(body), ['alpha', 'bravo', 'charlie', 'delta', 'echo']);
      assert.deepEqual(body.meta, { total: 5, page: 1, per_page: 25 });
      assert.deepEqual(body.data[0], {
        id: String(ids.alpha),
        name: 'alpha',
        game: 'cs2',
        players: 11,
        max_players: 16,
        status: 'running',
        // 30 days: (4 + 2 + 0 + 1 (23 h) + 0 (24 h) + 1 (719 h)) of 15; 720 h ago is outside
        uptime: 53.3,
        region: 'eu-west',
      });
      const bravo = body.data[1];
      assert.ok(bravo);
      assert.equal(bravo.status, 'offline');
      assert.equal(bravo.uptime, null, 'never polled: no uptime');
    });

    it('filters by game, status and region, alone or together, and pages', async () => {
      assert.deepEqual(names(await list('?game=cs2')), ['alpha', 'charlie', 'echo']);
      assert.deepEqual(names(await list('?status=running')), ['alpha', 'delta', 'echo']);
      assert.deepEqual(names(await list('?status=offline')), ['bravo', 'charlie']);
      assert.deepEqual(names(await list('?region=eu-west')), ['alpha', 'charlie']);
      const all = await list('?game=cs2&status=running&region=na-east');
      assert.deepEqual(names(all), ['echo']);
      assert.equal(all.meta.total, 1);
      const second = await list('?per_page=2&page=2');
      assert.deepEqual(names(second), ['charlie', 'delta']);
      assert.deepEqual(second.meta, { total: 5, page: 2, per_page: 2 });
      assert.deepEqual((await list('?per_page=2&page=4')).data, []);
    });

    it('shows the live status: players, map, last seen, latency and uptime over 24 h and 30 d', async () => {
      assert.deepEqual(await status(ids.alpha ?? 0), {
        id: String(ids.alpha),
        status: 'running',
        players: 11,
        max_players: 16,
        map: 'de_inferno',
        last_seen: new Date(NOW - 60_000).toISOString(),
        latency_ms: 27,
        // 24 h: this hour 4/4, 10 h ago 2/4, 23 h ago 1/1; 24 h ago is outside
        uptime_24h: 77.8,
        uptime_30d: 53.3,
      });
      assert.deepEqual(await status(ids.bravo ?? 0), {
        id: String(ids.bravo),
        status: 'offline',
        players: 0,
        max_players: 16,
        map: 'de_dust2',
        last_seen: null,
        latency_ms: null,
        uptime_24h: null,
        uptime_30d: null,
      });
    });

    it('answers 404 server_not_found for an unknown or removed server', async () => {
      for (const id of [ids.zulu, 999_999]) {
        const res = await v1Get(ctx, `/servers/${id}/status`, ctx.key);
        assert.equal(res.statusCode, 404);
        const problem = json<Problem>(res);
        assert.equal(problem.code, 'server_not_found');
        assert.equal(problem.detail, `There is no game server with id ${id}.`);
      }
    });

    it('takes an OAuth token with servers:read; another scope is 403', async () => {
      assert.equal((await list('', 'tok-servers')).meta.total, 5);
      const res = await v1Get(ctx, '/servers', 'tok-stats');
      assert.equal(res.statusCode, 403);
      assert.equal(json<Problem>(res).code, 'insufficient_scope');
    });

    it('carries an ETag and answers a matching If-None-Match with 304', async () => {
      const first = await v1Get(ctx, '/servers?game=rust', ctx.key);
      const etag = String(first.headers.etag);
      assert.match(etag, /^"/);
      const again = await ctx.inject({
        method: 'GET',
        url: '/v1/servers?game=rust',
        headers: { authorization: `Bearer ${ctx.key}`, 'if-none-match': etag },
      });
      assert.equal(again.statusCode, 304);
    });

    it('refuses unknown filter values, bad ids and out-of-range paging with a 400 naming the parameter', async () => {
      for (const [path, name] of [
        ['/servers?status=online', 'status'],
        ['/servers?game=quake', 'game'],
        ['/servers?region=mars', 'region'],
        ['/servers?page=0', 'page'],
        ['/servers?per_page=101', 'per_page'],
        ['/servers/0/status', 'id'],
        ['/servers/abc/status', 'id'],
        ['/servers/99999999999/status', 'id'],
      ] as const) {
        const res = await v1Get(ctx, path, ctx.key);
        assert.equal(res.statusCode, 400, path);
        const problem = json<Problem>(res);
        assert.equal(problem.code, 'invalid_parameter', path);
        assert.equal(problem.errors?.[0]?.name, name, path);
      }
    });
  });
}
