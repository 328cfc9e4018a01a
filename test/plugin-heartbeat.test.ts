import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import { startPoller } from '../src/modules/servers/poller/poller.js';
import type { HeartbeatResult } from '../src/modules/servers/plugin-routes.js';
import { serversRepo } from '../src/modules/servers/repo.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { assertCatalogued, eventsAfter, lastEventId, ofType } from './helpers/events.js';
import { deadPort } from './helpers/fake-rcon/common.js';
import { registerServer } from './helpers/ingest.js';
import { v1Json } from './helpers/v1.js';

/**
 * A game server whose only sign of life is its plugin's heartbeat (no reachable query port): online
 * from the first heartbeat, kept online by the poller while heartbeats are fresh, offline after 60 s
 * of silence, with `server.status_changed` both ways. The clock is the app's (and poller's) injected one.
 */
const BEAT = {
  players: 7,
  max_players: 24,
  map: 'Procedural Map',
  version: '2594',
  plugin: 'hub-sdk-test/1.0',
};

for (const dialect of testDialects()) {
  describe(`plugin heartbeat (${dialect})`, () => {
    let ctx: TestContext;
    let clock = Date.UTC(2030, 0, 15, 12, 0, 0);
    let server: { id: number; token: string };

    before(async () => {
      ctx = await createTestContext(dialect, { now: () => clock });
      // a port nothing answers on: the poller's status query can only fail
      server = await registerServer(ctx.testDb.db, 'rust', { port: await deadPort() });
    });
    after(() => ctx.close());

    const beat = (body: unknown, token = server.token) =>
      ctx.inject({
        method: 'POST',
        url: '/api-platform/ingest/heartbeat',
        headers: { authorization: `Bearer ${token}` },
        payload: body as Record<string, unknown>,
      });
    const poller = () =>
      startPoller(
        serversRepo(ctx.testDb.db.kysely),
        { intervalMs: 60_000, timeoutMs: 150, offlineAfter: 3, now: () => clock },
        false,
      );
    const listed = async () => {
      const published = json<{ servers: { id: number; status: string; players: number; map: string }[] }>(
        await ctx.get('/servers'),
      ).servers.find((s) => s.id === server.id);
      const preview = (
        await v1Json<{ data: { id: string; status: string; players: number; max_players: number }[] }>(
          ctx,
          '/servers',
        )
      ).data.find((s) => s.id === String(server.id));
      return { published, preview };
    };

    it('refuses a bad token and a bad body, changing nothing', async () => {
      const bad = await beat(BEAT, '12345678901234567890123456789012');
      assert.equal(bad.statusCode, 401);
      assert.equal(json<Problem>(bad).code, 'invalid_server_token');
      const missing = await ctx.inject({
        method: 'POST',
        url: '/api-platform/ingest/heartbeat',
        payload: BEAT,
      });
      assert.equal(json<Problem>(missing).code, 'invalid_server_token');
      for (const body of [
        { ...BEAT, players: -1 },
        { ...BEAT, map: 'x'.repeat(65) },
        { ...BEAT, version: '' },
        { ...BEAT, extra: true },
        { players: 1 },
      ]) {
        const res = await beat(body);
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(json<Problem>(res).code, 'invalid_body');
      }
      assert.equal((await listed()).published, undefined, 'still offline');
    });

    it('brings the server online from a heartbeat, and the poller keeps it there while they are fresh', async () => {
      const since = await lastEventId(ctx.testDb.db.kysely);
      const res = await beat(BEAT);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json<HeartbeatResult>(res), {
        server_id: server.id,
        status: 'online',
        heartbeat_interval_s: 10,
        offline_after_s: 60,
      });
      const { published, preview } = await listed();
      assert.deepEqual(
        published && { status: published.status, players: published.players, map: published.map },
        { status: 'online', players: 7, map: 'Procedural Map' },
      );
      assert.equal(preview?.status, 'running', 'the preview envelope says running for online');
      assert.equal(preview.max_players, 24);
      const events = await eventsAfter(ctx.testDb.db.kysely, since);
      assertCatalogued(events);
      assert.deepEqual(
        ofType(events, 'server.status_changed').map((e) => e.data),
        [{ server_id: server.id, game: 'rust', status: 'online', previous_status: 'offline' }],
      );
      // 59 s later, four poll rounds whose query could only fail: the heartbeat still vouches
      clock += 59_000;
      const p = poller();
      for (let i = 0; i < 4; i++) assert.deepEqual(await p.pollOnce(), { online: 1, failed: 0 });
      await p.stop();
      assert.equal((await listed()).published?.status, 'online');
    });

    it('takes the server offline after 60 s of silence, and back online with the next heartbeat', async () => {
      const since = await lastEventId(ctx.testDb.db.kysely);
      clock += 2_000; // 61 s after the last heartbeat
      const p = poller();
      await p.pollOnce();
      await p.stop();
      const { published, preview } = await listed();
      assert.equal(published, undefined, '/servers lists online servers only');
      assert.equal(preview?.status, 'offline');
      assert.equal(preview.players, 0);
      assert.deepEqual(
        ofType(await eventsAfter(ctx.testDb.db.kysely, since), 'server.status_changed').map((e) => e.data),
        [{ server_id: server.id, game: 'rust', status: 'offline', previous_status: 'online' }],
      );
      const back = await lastEventId(ctx.testDb.db.kysely);
      clock += 5_000;
      assert.equal((await beat({ ...BEAT, players: 3 })).statusCode, 200);
      assert.equal((await listed()).published?.players, 3);
      assert.deepEqual(
        ofType(await eventsAfter(ctx.testDb.db.kysely, back), 'server.status_changed').map(
          (e) => e.data.status,
        ),
        ['online'],
      );
    });
  });
}
