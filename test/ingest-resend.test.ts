import assert from 'node:assert/strict';
import { connect as tcpConnect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { IngestResultBody } from '../src/modules/ingest/routes.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { inRound, postEvents, postLogs, registerServer, stamp } from './helpers/ingest.js';

/**
 * What one odd line, a resent batch or a wrong clock can do to a batch: nothing but themselves.
 * The service's clock is NOW; lines are dated around it.
 */
const NOW = Date.UTC(2026, 10, 21, 20, 0, 0);
const MIN = 60_000;
const DAY = 86_400_000;
const kill = (killer: number, victim: number, at: number, weapon = 'ak47') =>
  `${stamp(at)}"P${killer}<${killer}><[U:1:${killer}]><CT>" [10 20 30] killed "P${victim}<${victim}><[U:1:${victim}]><TERRORIST>" [40 50 60] with "${weapon}"`;

/**
 * Sends one POST over a raw socket and breaks the connection as the answer starts to arrive, as a
 * game server whose connection drops does: the batch was committed, the sender saw only an error.
 */
function postAndLoseAnswer(port: number, path: string, token: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, '127.0.0.1', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    socket.once('data', () => {
      socket.resetAndDestroy();
      resolve();
    });
    socket.on('error', reject);
  });
}

for (const dialect of testDialects()) {
  describe(`ingest: resends, time window and hostile values (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { now: () => NOW });
    });
    after(() => ctx.close());
    const k = () => ctx.testDb.db.kysely;
    const killsOf = async (serverId: number) =>
      (
        await k()
          .selectFrom('kills')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('server_id', '=', serverId)
          .executeTakeFirstOrThrow()
      ).n;

    it('a batch resent after the sender saw a socket error is stored once', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const lines = [
        `${stamp(NOW - 10 * MIN)}World triggered "Round_Start"`,
        ...Array.from({ length: 30 }, (_, i) =>
          kill(800 + (i % 3), 810 + (i % 4), NOW - 10 * MIN + i * 1000),
        ),
        `${stamp(NOW - 9 * MIN)}World triggered "Round_End"`,
        // kills count once their round is settled: the next round's start does it
        `${stamp(NOW - 9 * MIN + 5000)}World triggered "Round_Start"`,
      ];
      const body = lines.join('\n') + '\n';
      const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      await postAndLoseAnswer(Number(new URL(address).port), '/api-platform/ingest/logs', server.token, body);
      // the service commits although nobody reads its answer
      const deadline = Date.now() + 10_000;
      while ((await killsOf(server.id)) < 30 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(await killsOf(server.id), 30);

      const resent = json<IngestResultBody>(await postLogs(ctx, server.token, lines));
      assert.deepEqual(
        {
          accepted: resent.accepted,
          duplicates: resent.duplicates,
          kills: resent.kills,
          rejected: resent.rejected,
        },
        { accepted: 0, duplicates: 33, kills: 0, rejected: 0 },
      );
      assert.equal(await killsOf(server.id), 30);
      const counters = await k()
        .selectFrom('player_counters')
        .select((eb) => eb.fn.sum<number>('value').as('n'))
        .where('counter', '=', 'kills')
        .executeTakeFirstOrThrow();
      assert.equal(counters.n, 30);

      // the next batch repeats the tail of the last one and adds lines: only the new ones count
      const next = [
        ...lines.slice(-5),
        kill(800, 810, NOW - 8 * MIN),
        kill(801, 811, NOW - 8 * MIN),
        `${stamp(NOW - 7 * MIN)}World triggered "Round_Start"`,
      ];
      const r = json<IngestResultBody>(await postLogs(ctx, server.token, next));
      assert.deepEqual([r.accepted, r.duplicates, r.kills], [3, 5, 2]);
      assert.equal(await killsOf(server.id), 32);
    });

    it('keeps a line a server really wrote twice in one batch, and the same batch on another server', async () => {
      const a = await registerServer(ctx.testDb.db, 'cs16');
      const b = await registerServer(ctx.testDb.db, 'cs16');
      const twice = inRound(NOW - MIN, [
        kill(820, 821, NOW - MIN, 'knife'),
        kill(820, 821, NOW - MIN, 'knife'),
      ]);
      assert.equal(json<IngestResultBody>(await postLogs(ctx, a.token, twice)).kills, 2);
      assert.equal(json<IngestResultBody>(await postLogs(ctx, b.token, twice)).kills, 2);
      const again = json<IngestResultBody>(await postLogs(ctx, a.token, twice));
      assert.deepEqual([again.kills, again.duplicates], [0, 4]);
    });

    it('refuses lines dated in the future or before the ingest window, alone and with a reason', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const res = await postLogs(ctx, server.token, [
        `${stamp(NOW - 2 * MIN)}World triggered "Round_Start"`,
        kill(830, 831, NOW - MIN),
        kill(830, 832, Date.UTC(9999, 11, 31, 23, 59, 59)),
        kill(830, 833, NOW + 10 * MIN),
        kill(830, 834, NOW + 4 * MIN),
        kill(830, 835, NOW - 8 * DAY),
        kill(830, 836, NOW - 6 * DAY),
        `${stamp(NOW + 4 * MIN)}World triggered "Round_Start"`,
      ]);
      assert.equal(res.statusCode, 200);
      const body = json<IngestResultBody>(res);
      assert.deepEqual([body.accepted, body.rejected, body.kills], [5, 3, 3]);
      assert.deepEqual(body.errors, [
        { line: 3, reason: 'dated 9999-12-31T23:59:59.000Z, more than 5 minutes ahead of the service clock' },
        { line: 4, reason: 'dated 2026-11-21T20:10:00.000Z, more than 5 minutes ahead of the service clock' },
        { line: 6, reason: 'dated 2026-11-13T20:00:00.000Z, before the ingest window (the last 7 days)' },
      ]);
      const feed = json<{ kills: { occurred_at: string }[] }>(await ctx.get('/killboard/feed?limit=1'));
      assert.equal(feed.kills[0]?.occurred_at, new Date(NOW + 4 * MIN).toISOString());
    });

    it('refuses JSON events of unknown types (JavaScript property names too) and out-of-window times', async () => {
      const rust = await registerServer(ctx.testDb.db, 'rust');
      const event = (client_id: string, occurred_at: string, extra: Record<string, unknown> = {}) => ({
        type: 'kill',
        client_id,
        occurred_at,
        killer: { steam_id: '76561198000000841', name: 'A' },
        victim: { steam_id: '76561198000000842', name: 'B' },
        weapon: 'rifle.ak',
        ...extra,
      });
      const inWindow = new Date(NOW - MIN).toISOString();
      const res = await postEvents(ctx, rust.token, [
        event('ok', inWindow),
        ...['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'].map((type) => ({
          ...event(type, inWindow),
          type,
        })),
        event('future', '9999-12-31T23:59:59Z'),
        event('old', new Date(NOW - 30 * DAY).toISOString()),
        {
          type: 'match_result',
          client_id: 'm',
          ended_at: '9999-01-01T00:00:00Z',
          map: 'x',
          team1: [],
          team2: [],
        },
        event('far', inWindow, { distance: 1e300 }),
        event('round', inWindow, { round_number: Number('9'.repeat(400)) }),
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const body = json<IngestResultBody>(res);
      assert.deepEqual([body.accepted, body.rejected, body.kills], [1, 10, 1]);
      for (const i of [1, 2, 3, 4, 5])
        assert.equal(
          body.errors.find((e) => e.index === i)?.reason,
          'type must be one of: player_session, chat, kill, round, match_result, map_change',
        );
      assert.match(
        body.errors.find((e) => e.index === 6)?.reason ?? '',
        /^occurred_at dated 9999-12-31T23:59:59\.000Z, more than 5 minutes ahead/,
      );
      assert.match(
        body.errors.find((e) => e.index === 7)?.reason ?? '',
        /^occurred_at dated .* before the ingest window/,
      );
    });

    it('refuses numbers of any length in a line without failing the batch', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const huge = '9'.repeat(400);
      const at = NOW - MIN;
      const res = await postLogs(ctx, server.token, [
        `${stamp(at)}World triggered "Round_Start"`,
        `${stamp(at)}"P850<850><[U:1:850]><CT>" [${huge} 0 0] killed "P851<851><[U:1:851]><TERRORIST>" [0 0 0] with "ak47"`,
        `${stamp(at)}"P850<850><[U:1:${huge}]><CT>" [0 0 0] killed "P851<851><[U:1:851]><TERRORIST>" [0 0 0] with "ak47"`,
        `${stamp(at)}Team "CT" triggered "SFUI_Notice_CTs_Win" (CT "${huge}") (T "0")`,
        `${stamp(at)}Game Over: competitive  de_inferno score ${huge}:1 after 10 min`,
        `L 11/21/${huge} - 19:00:00: World triggered "Round_Start"`,
        kill(852, 853, at),
        `${stamp(at)}World triggered "Round_Start"`,
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const body = json<IngestResultBody>(res);
      assert.equal(body.kills, 1);
      assert.equal(body.accepted + body.rejected, 8);
      const stored = await k()
        .selectFrom('kills')
        .select(['killer_steam_id', 'distance'])
        .where('server_id', '=', server.id)
        .execute();
      assert.deepEqual(stored, [{ killer_steam_id: '76561197960266580', distance: 1.32 }]);
    });
  });
}
