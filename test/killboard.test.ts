import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import type { KillFeedBody } from '../src/modules/killboard/routes.js';
import type { MadeUser } from './helpers/factories.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { makeKill, makeKills } from './helpers/killboard-factories.js';

const T0 = Date.UTC(2026, 10, 20, 18, 0, 0);
// STEAM_0:1:12345 = [U:1:24691] = 76561197960265728 + 24691
const ALICE_STEAM = '76561197960290419';
const q = encodeURIComponent;

for (const dialect of testDialects()) {
  describe(`killboard feed (${dialect})`, () => {
    let ctx: TestContext;
    let alice: MadeUser, bob: MadeUser, carol: MadeUser, dave: MadeUser, zed: MadeUser;
    const k: Record<string, number> = {};
    let zedKills: number[] = [];

    const feed = async (query: string): Promise<number[]> => {
      const res = await ctx.get(`/killboard/feed${query}`);
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
      return json<KillFeedBody>(res).kills.map((kill) => kill.id);
    };
    const ids = (...names: string[]) => names.map((n) => k[n]);

    before(async () => {
      ctx = await createTestContext(dialect);
      alice = await ctx.makeUser({ username: 'Alice', steam_id: ALICE_STEAM });
      bob = await ctx.makeUser({ username: 'Bob' });
      carol = await ctx.makeUser({ username: 'Carol' });
      dave = await ctx.makeUser({ username: 'Dave' });
      const db = ctx.testDb.db;
      k.k1 = (
        await makeKill(db, {
          killer: alice,
          victim: bob,
          game: 'cs2',
          server_id: 3,
          weapon: 'ak47',
          headshot: true,
          distance: 18.25,
          round_number: 3,
          occurred_at: T0,
        })
      ).id;
      k.k2 = (
        await makeKill(db, {
          killer: bob,
          victim: alice,
          game: 'cs16',
          server_id: 7,
          weapon: 'awp',
          headshot: false,
          distance: 42,
          round_number: 7,
          occurred_at: T0 + 1000,
        })
      ).id;
      k.k3 = (await makeKill(db, { killer: carol, victim: bob, game: 'rust', occurred_at: T0 + 2000 })).id;
      // same instant as k3: the higher id comes first
      k.k4 = (await makeKill(db, { killer: alice, victim: carol, game: 'cs2', occurred_at: T0 + 2000 })).id;
      k.k5 = (await makeKill(db, { killer: carol, victim: alice, game: 'cs2', occurred_at: T0 + 3000 })).id;
      // a self-kill (grenade) must appear once in alice's feed, not once per side
      k.k6 = (await makeKill(db, { killer: alice, victim: alice, game: 'cs2', occurred_at: T0 + 500 })).id;
      // 105 older kills between two other players, to reach the limit maxima
      zed = await ctx.makeUser({ username: 'Zed' });
      const yan = await ctx.makeUser({ username: 'Yan' });
      const made = await makeKills(
        db,
        Array.from({ length: 105 }, (_, i) => ({
          killer: i % 2 ? zed : yan,
          victim: i % 2 ? yan : zed,
          game: 'cs16' as const,
          occurred_at: T0 - 60_000 - i * 1000,
        })),
      );
      zedKills = made.map((m) => m.id);
    });
    after(() => ctx.close());

    it('returns kills with exactly the documented fields and types', async () => {
      const res = await ctx.get(`/killboard/feed?player=u${bob.id}&game=cs2`);
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.deepEqual(json<KillFeedBody>(res), {
        kills: [
          {
            id: k.k1,
            game: 'cs2',
            server_id: 3,
            killer: { steam_id: ALICE_STEAM, user_id: alice.id, name: 'Alice' },
            victim: { steam_id: bob.steam_id, user_id: bob.id, name: 'Bob' },
            weapon: 'ak47',
            headshot: true,
            distance: 18.25,
            round_number: 3,
            occurred_at: '2026-11-20T18:00:00.000Z',
          },
        ],
      });
      // booleans and numbers on the wire, not 0/1 or strings
      assert.match(res.body, /"headshot":true,"distance":18.25,"round_number":3,/);
      const cs16 = json<KillFeedBody>(await ctx.get(`/killboard/feed?player=u${bob.id}&game=cs16`));
      assert.deepEqual(cs16.kills[0], {
        id: k.k2,
        game: 'cs16',
        server_id: 7,
        killer: { steam_id: bob.steam_id, user_id: bob.id, name: 'Bob' },
        victim: { steam_id: ALICE_STEAM, user_id: alice.id, name: 'Alice' },
        weapon: 'awp',
        headshot: false,
        distance: 42,
        round_number: 7,
        occurred_at: '2026-11-20T18:00:01.000Z',
      });
    });

    it('lists newest first, equal timestamps by id descending', async () => {
      const all = await feed('');
      assert.equal(all.length, 50);
      assert.deepEqual(all.slice(0, 6), ids('k5', 'k4', 'k3', 'k2', 'k6', 'k1'));
      assert.deepEqual(all.slice(6), zedKills.slice(0, 44));
    });

    it('filters by game', async () => {
      assert.deepEqual(await feed('?game=cs2'), ids('k5', 'k4', 'k6', 'k1'));
      assert.deepEqual(await feed('?game=rust'), ids('k3'));
      assert.deepEqual((await feed('?game=cs16&limit=3')).slice(0, 3), [k.k2, zedKills[0], zedKills[1]]);
    });

    it('matches a player as killer or victim, the same for all four forms', async () => {
      const expected = ids('k5', 'k4', 'k2', 'k6', 'k1');
      for (const form of [ALICE_STEAM, 'STEAM_0:1:12345', 'STEAM_1:1:12345', '[U:1:24691]', `u${alice.id}`]) {
        assert.deepEqual(await feed(`?player=${q(form)}`), expected, form);
        assert.deepEqual(await feed(`?player=${q(form)}&game=cs2`), ids('k5', 'k4', 'k6', 'k1'), form);
      }
      assert.deepEqual(await feed(`?player=u${carol.id}`), ids('k5', 'k4', 'k3'));
      assert.deepEqual(await feed(`?player=u${carol.id}&game=rust`), ids('k3'));
      assert.deepEqual(await feed(`?player=u${carol.id}&game=cs16`), []);
    });

    it('cuts the merged killer/victim lists at the limit', async () => {
      // alice's newest kill as a killer is k4, as a victim k5
      assert.deepEqual(await feed(`?player=u${alice.id}&limit=1`), ids('k5'));
      assert.deepEqual(await feed(`?player=u${alice.id}&limit=2`), ids('k5', 'k4'));
      assert.deepEqual(await feed(`?player=u${alice.id}&limit=3`), ids('k5', 'k4', 'k2'));
    });

    it('gives an empty list for unknown players', async () => {
      assert.deepEqual(await feed(`?player=u${dave.id}`), []);
      assert.deepEqual(await feed('?player=u2147483647'), []);
      assert.deepEqual(await feed(`?player=${q('STEAM_0:0:999999999')}`), []);
      assert.deepEqual(await feed('?player=76561202255233023'), []);
    });

    it('rejects malformed players with a 400 naming `player` and the accepted forms', async () => {
      for (const bad of [
        '',
        'abc',
        'alice',
        '7656119796029041',
        '76561197960265727', // below the individual range
        '76561202255233024', // above it
        'STEAM_6:1:1',
        'STEAM_0:2:1',
        'STEAM_0:1:2147483648',
        '[U:2:1]',
        '[U:1:4294967296]',
        'u0',
        'u-1',
        'u2147483648',
      ]) {
        const res = await ctx.get(`/killboard/feed?player=${q(bad)}`);
        assert.equal(res.statusCode, 400, bad);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        const p = json<Problem>(res);
        assert.equal(p.code, 'invalid_parameter', bad);
        assert.equal(p.errors?.[0]?.name, 'player', bad);
        assert.equal(p.errors[0].in, 'query');
        assert.match(p.detail, /player.*SteamID64.*STEAM_X:Y:Z.*\[U:1:N\].*u<userId>/, bad);
      }
    });

    it('enforces limit 1-100, default 50', async () => {
      assert.deepEqual(await feed('?limit=1'), ids('k5'));
      assert.equal((await feed('?limit=100')).length, 100);
      assert.equal((await feed(`?player=u${zed.id}&limit=100`)).length, 100);
      for (const bad of ['0', '101', 'abc', '-1', '1.5', '']) {
        const res = await ctx.get(`/killboard/feed?limit=${bad}`);
        assert.equal(res.statusCode, 400, bad);
        const p = json<Problem>(res);
        assert.equal(p.errors?.[0]?.name, 'limit', bad);
        assert.match(p.detail, /1 to 100/);
      }
    });

    it('rejects an unknown game', async () => {
      for (const bad of ['minecraft', 'CS2', '']) {
        const res = await ctx.get(`/killboard/feed?game=${bad}`);
        assert.equal(res.statusCode, 400, bad);
        const p = json<Problem>(res);
        assert.equal(p.errors?.[0]?.name, 'game', bad);
        assert.match(p.detail, /cs2, cs16, rust/);
      }
    });
  });
}
