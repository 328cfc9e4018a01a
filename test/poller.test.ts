import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../src/db/connect.js';
import { serversRepo } from '../src/modules/servers/repo.js';
import { A2S_INFO_REQUEST, parseInfo, queryA2S } from '../src/modules/servers/poller/a2s.js';
import { startPoller } from '../src/modules/servers/poller/poller.js';
import { HOUR_MS } from '../src/modules/servers/uptime.js';
import { createMetrics } from '../src/http/metrics.js';
import { metricValue } from './helpers/metrics.js';
import { packet, querySLP, readVarInt, varInt } from '../src/modules/servers/poller/slp.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { registerServer } from './helpers/ingest.js';

const HEADER = Buffer.from([0xff, 0xff, 0xff, 0xff]);
const cstr = (s: string) => Buffer.from(`${s}\0`, 'utf8');
const CHALLENGE = Buffer.from([0x11, 0x22, 0x33, 0x44]);

function infoAnswer(map: string, players: number, max: number): Buffer {
  return Buffer.concat([
    HEADER,
    Buffer.from('I'),
    Buffer.from([17]),
    cstr('Hub Test Server'),
    cstr(map),
    cstr('csgo'),
    cstr('Counter-Strike 2'),
    Buffer.from([0xda, 0x02]), // app id 730, little-endian
    Buffer.from([players, max, 0, 0x64, 0x6c, 0, 1]),
    cstr('1.40.0.0'),
  ]);
}

/** A fake game server speaking A2S_INFO with the S2C_CHALLENGE handshake on 127.0.0.1. */
async function fakeA2S(map: string, players: number, max: number) {
  const socket: Socket = createSocket('udp4');
  const seen = { plain: 0, withChallenge: 0 };
  socket.on('message', (msg, rinfo) => {
    if (msg.equals(A2S_INFO_REQUEST)) {
      seen.plain++;
      socket.send(Buffer.concat([HEADER, Buffer.from('A'), CHALLENGE]), rinfo.port, rinfo.address);
    } else if (msg.equals(Buffer.concat([A2S_INFO_REQUEST, CHALLENGE]))) {
      seen.withChallenge++;
      socket.send(infoAnswer(map, players, max), rinfo.port, rinfo.address);
    }
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    seen,
    close: () => new Promise<void>((r) => socket.close(() => r())),
  };
}

/** A fake Minecraft server answering the Server List Ping on 127.0.0.1. */
async function fakeSLP(online: number, max: number) {
  const handshakes: { protocol: number; host: string; port: number; next: number }[] = [];
  const server: Server = createServer((sock) => {
    let data = Buffer.alloc(0);
    sock.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const len = readVarInt(data, 0);
      if (!len || data.length < len[1] + len[0]) return;
      const body = data.subarray(len[1], len[1] + len[0]);
      let o = (readVarInt(body, 0) ?? [0, 1])[1];
      const protocol = readVarInt(body, o) ?? [0, 1];
      o += protocol[1];
      const hostLen = readVarInt(body, o) ?? [0, 1];
      o += hostLen[1];
      const host = body.toString('utf8', o, o + hostLen[0]);
      o += hostLen[0];
      const port = body.readUInt16BE(o);
      const next = (readVarInt(body, o + 2) ?? [0, 1])[0];
      handshakes.push({ protocol: protocol[0], host, port, next });
      const json = Buffer.from(
        JSON.stringify({
          version: { name: '1.21.1', protocol: 767 },
          players: { max, online },
          description: { text: 'Hub' },
        }),
      );
      sock.end(packet(0x00, varInt(json.length), json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { port, handshakes, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('A2S_INFO and Server List Ping clients', () => {
  it('completes the A2S challenge handshake and reads the answer', async () => {
    const fake = await fakeA2S('de_mirage', 7, 10);
    try {
      assert.deepEqual(await queryA2S('127.0.0.1', fake.port, 1000), {
        name: 'Hub Test Server',
        map: 'de_mirage',
        players: 7,
        maxPlayers: 10,
      });
      assert.deepEqual(fake.seen, { plain: 1, withChallenge: 1 });
    } finally {
      await fake.close();
    }
  });

  it('reads the obsolete GoldSrc "m" answer', () => {
    const m = Buffer.concat([
      HEADER,
      Buffer.from('m'),
      cstr('127.0.0.1:27015'),
      cstr('Old School'),
      cstr('de_dust2'),
      cstr('cstrike'),
      cstr('Counter-Strike'),
      Buffer.from([12, 32, 48]),
    ]);
    assert.deepEqual(parseInfo(m), { name: 'Old School', map: 'de_dust2', players: 12, maxPlayers: 32 });
  });

  it('times out against a silent port', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', r));
    try {
      await assert.rejects(queryA2S('127.0.0.1', silent.address().port, 150), /timed out/);
    } finally {
      silent.close();
    }
  });

  it('speaks the Server List Ping with VarInt framing', async () => {
    const fake = await fakeSLP(3, 20);
    try {
      const status = await querySLP('127.0.0.1', fake.port, 1000);
      assert.deepEqual(status, { players: 3, maxPlayers: 20, version: '1.21.1' });
      assert.deepEqual(fake.handshakes, [{ protocol: -1, host: '127.0.0.1', port: fake.port, next: 1 }]);
    } finally {
      await fake.close();
    }
  });

  it('encodes VarInts as the protocol does', () => {
    assert.deepEqual([...varInt(0)], [0x00]);
    assert.deepEqual([...varInt(127)], [0x7f]);
    assert.deepEqual([...varInt(128)], [0x80, 0x01]);
    assert.deepEqual([...varInt(25565)], [0xdd, 0xc7, 0x01]);
    assert.deepEqual([...varInt(-1)], [0xff, 0xff, 0xff, 0xff, 0x0f]);
    assert.deepEqual(readVarInt(varInt(-1), 0), [-1, 5]);
    assert.deepEqual(readVarInt(Buffer.from([0x80]), 0), undefined);
  });
});

for (const dialect of testDialects()) {
  describe(`poller (${dialect})`, () => {
    let testDb: TestDb;
    let db: Db;
    before(async () => {
      testDb = await openTestDb(dialect);
      db = testDb.db;
    });
    after(() => testDb.drop());

    it('marks servers online with live players and map, and offline after consecutive failures', async () => {
      const a2s = await fakeA2S('de_ancient', 9, 12);
      const slp = await fakeSLP(4, 50);
      const cs2 = await registerServer(db, 'cs2', { port: 27015, query_port: a2s.port });
      const mc = await registerServer(db, 'minecraft', { port: slp.port });
      const repo = serversRepo(db.kysely);
      const metrics = createMetrics({ processMetrics: false });
      const poller = startPoller(
        repo,
        { intervalMs: 60_000, timeoutMs: 200, offlineAfter: 2, metrics: metrics.poll },
        false,
      );
      const results = async (result: string) =>
        metricValue(await metrics.registry.metrics(), 'hub_poller_results_total', { result });
      const status = async (id: number) =>
        db.kysely
          .selectFrom('game_servers')
          .select(['status', 'players', 'max_players', 'map', 'poll_failures'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();

      assert.deepEqual(await poller.pollOnce(), { online: 2, failed: 0 });
      assert.equal(await results('online'), 2);
      assert.deepEqual(await status(cs2.id), {
        status: 'online',
        players: 9,
        max_players: 12,
        map: 'de_ancient',
        poll_failures: 0,
      });
      assert.deepEqual(await status(mc.id), {
        status: 'online',
        players: 4,
        max_players: 50,
        map: '',
        poll_failures: 0,
      });

      await a2s.close();
      await slp.close();
      assert.deepEqual(await poller.pollOnce(), { online: 0, failed: 2 });
      assert.deepEqual([await results('online'), await results('failed')], [2, 2]);
      // one failure is not enough: still online
      assert.deepEqual(await status(cs2.id), {
        status: 'online',
        players: 9,
        max_players: 12,
        map: 'de_ancient',
        poll_failures: 1,
      });
      await poller.pollOnce();
      assert.deepEqual(await status(cs2.id), {
        status: 'offline',
        players: 0,
        max_players: 12,
        map: 'de_ancient',
        poll_failures: 2,
      });
      assert.equal((await status(mc.id)).status, 'offline');

      // a removed server is no longer polled, nor is a seeded row without a token (demo data)
      await repo.remove(mc.id, Date.now());
      await db.kysely
        .insertInto('game_servers')
        .values({
          name: 'seeded',
          game: 'cs2',
          ip: '127.0.0.1',
          port: 9,
          query_port: null,
          status: 'online',
          created_at: 0,
          token_hash: null,
          removed_at: null,
          last_seen_at: null,
        })
        .execute();
      assert.deepEqual(await poller.pollOnce(), { online: 0, failed: 1 });
      await poller.stop();
    });

    it('counts every poll in an hourly history, keeps the last latency, and sweeps hours past 30 days', async () => {
      const a2s = await fakeA2S('de_nuke', 3, 10);
      const server = await registerServer(db, 'cs2', { port: 27016, query_port: a2s.port });
      const repo = serversRepo(db.kysely);
      let clock = Date.UTC(2026, 10, 20, 12, 10);
      const hour = (ms: number) => ms - (ms % HOUR_MS);
      // history of another server: one hour just inside the 30 days, one just outside
      const other = await registerServer(db, 'cs2', { port: 27017, query_port: 9 });
      await repo.recordPoll(other.id, hour(clock) - 719 * HOUR_MS, true);
      await repo.recordPoll(other.id, hour(clock) - 720 * HOUR_MS, true);
      await repo.remove(other.id, clock);
      const poller = startPoller(
        repo,
        { intervalMs: 60_000, timeoutMs: 200, offlineAfter: 3, now: () => clock },
        false,
      );
      const history = (id: number) =>
        db.kysely
          .selectFrom('server_polls')
          .select(['hour', 'ok', 'total'])
          .where('server_id', '=', id)
          .orderBy('hour')
          .execute();
      const latency = async () =>
        (
          await db.kysely
            .selectFrom('game_servers')
            .select('last_latency_ms')
            .where('id', '=', server.id)
            .executeTakeFirstOrThrow()
        ).last_latency_ms;

      await poller.pollOnce();
      // the sweep runs at the first poll of each hour, down to the 30-day window
      assert.deepEqual(
        (await history(other.id)).map((r) => r.hour),
        [hour(clock) - 719 * HOUR_MS],
      );
      const answered = await latency();
      assert.ok(answered !== null && answered >= 0 && answered < 200, `latency ${answered}`);
      clock += 30 * 60_000; // 12:40, same hour
      await poller.pollOnce();
      await a2s.close();
      clock += 30 * 60_000; // 13:10, the next hour: unanswered
      await poller.pollOnce();
      assert.equal(await latency(), null, 'an unanswered poll has no latency');
      assert.deepEqual(await history(server.id), [
        { hour: Date.UTC(2026, 10, 20, 12), ok: 2, total: 2 },
        { hour: Date.UTC(2026, 10, 20, 13), ok: 0, total: 1 },
      ]);
      // at 13:10 the window starts an hour later: the hour that was just inside is swept too
      assert.deepEqual(await history(other.id), []);
      await poller.stop();
    });
  });
}
