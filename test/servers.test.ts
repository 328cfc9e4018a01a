import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ServersBody } from '../src/modules/servers/routes.js';
import { contentFactories, type ContentFactories } from './helpers/content-factories.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { expectInvalidParameter } from './helpers/expect-problem.js';

type Made = Awaited<ReturnType<ContentFactories['makeServer']>>;

for (const dialect of testDialects()) {
  describe(`servers (${dialect})`, () => {
    let ctx: TestContext;
    const s: Record<string, Made> = {};
    const pick = (name: string): Made => {
      const made = s[name];
      assert.ok(made, name);
      return made;
    };
    const rendered = (name: string) => {
      const { id, name: serverName, game, ip, port, status, players, max_players, map } = pick(name);
      return { id, name: serverName, game, ip, port, status, players, max_players, map };
    };
    const list = async (query = '') => {
      const res = await ctx.get(`/servers${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return json<ServersBody>(res).servers;
    };

    before(async () => {
      ctx = await createTestContext(dialect);
      const content = contentFactories(ctx.testDb.db);
      s.s1 = await content.makeServer({
        name: 'EU Competitive #1',
        game: 'cs2',
        ip: '203.0.113.10',
        port: 27015,
        players: 14,
        max_players: 20,
        map: 'de_mirage',
      });
      s.s2 = await content.makeServer({ game: 'cs2', status: 'offline', map: 'de_nuke' });
      s.s3 = await content.makeServer({
        game: 'rust',
        port: 28015,
        players: 120,
        max_players: 200,
        map: 'Procedural Map',
      });
      s.s4 = await content.makeServer({ game: 'cs16', map: 'de_dust2' });
      s.s5 = await content.makeServer({ game: 'minecraft', port: 25565, map: 'world' });
      s.s6 = await content.makeServer({ game: 'cs2', map: 'de_inferno' });
      s.s7 = await content.makeServer({ game: 'rust', status: 'offline' });
    });
    after(() => ctx.close());

    it('lists only online servers by id, with exactly the documented fields', async () => {
      const res = await ctx.get('/servers');
      assert.equal(res.statusCode, 200);
      const body = json<ServersBody>(res);
      assert.deepEqual(Object.keys(body), ['servers']);
      assert.deepEqual(body.servers[0], {
        id: pick('s1').id,
        name: 'EU Competitive #1',
        game: 'cs2',
        ip: '203.0.113.10',
        port: 27015,
        status: 'online',
        players: 14,
        max_players: 20,
        map: 'de_mirage',
      });
      assert.deepEqual(body.servers, ['s1', 's3', 's4', 's5', 's6'].map(rendered));
    });

    it('filters by game and still leaves offline servers out', async () => {
      assert.deepEqual(await list('?game=cs2'), ['s1', 's6'].map(rendered));
      assert.deepEqual(await list('?game=rust'), ['s3'].map(rendered));
      assert.deepEqual(await list('?game=cs16'), ['s4'].map(rendered));
      assert.deepEqual(await list('?game=minecraft'), ['s5'].map(rendered));
    });

    it('shows a server once it comes online, and no longer once it goes offline', async () => {
      const content = contentFactories(ctx.testDb.db);
      const late = await content.makeServer({ game: 'cs16', status: 'offline' });
      assert.deepEqual(await list('?game=cs16'), ['s4'].map(rendered));
      await content.setServerStatus(late.id, 'online');
      assert.deepEqual(
        (await list('?game=cs16')).map((server) => server.id),
        [pick('s4').id, late.id],
      );
      await content.setServerStatus(late.id, 'offline');
      assert.deepEqual(await list('?game=cs16'), ['s4'].map(rendered));
    });

    it('rejects unknown game codes with a problem listing the allowed values', async () => {
      for (const bad of ['CS2', 'csgo', 'valorant', '', 'cs2,rust']) {
        await expectInvalidParameter(
          ctx,
          `/servers?game=${encodeURIComponent(bad)}`,
          'game',
          'one of: cs2, cs16, rust, minecraft',
        );
      }
    });
  });
}
