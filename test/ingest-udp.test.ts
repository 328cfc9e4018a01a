import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UdpIngest } from '../src/modules/ingest/udp.js';
import { createMetrics } from '../src/http/metrics.js';
import { metricValue } from './helpers/metrics.js';
import { testDialects, type TestDb } from './helpers/db.js';
import { registerServer } from './helpers/ingest.js';
import {
  handled,
  handledAndFlushed,
  sendDatagrams,
  udpLog,
  udpReceiverOnTestDb,
  type TestUdpReceiver,
} from './helpers/udp.js';

const L = 'L 11/21/2026 - 19:34:51: ';
const NOW = Date.UTC(2026, 10, 21, 20, 0, 0);

for (const dialect of testDialects()) {
  describe(`UDP log ingest, GoldSrc logaddress_add (${dialect})`, () => {
    let receiver: TestUdpReceiver;
    let testDb: TestDb;
    let udp: UdpIngest;
    const metrics = createMetrics({ processMetrics: false });
    before(async () => {
      receiver = await udpReceiverOnTestDb(dialect, NOW, { metrics: metrics.ingest });
      ({ testDb, udp } = receiver);
    });
    after(() => receiver.close());

    it('accepts lines carrying the token as log secret from the registered address only', async () => {
      const cs16 = await registerServer(testDb.db, 'cs16', { ip: '127.0.0.1' });
      const elsewhere = await registerServer(testDb.db, 'cs16', { ip: '10.1.2.3' });
      const killLine = (a: number, b: number) =>
        `${L}"Old<2><STEAM_0:1:${a}><CT>" killed "Timer<3><STEAM_0:0:${b}><TERRORIST>" with "ak47"`;
      const packets = [
        udpLog(cs16.token, `${L}World triggered "Round_Start"`),
        udpLog(cs16.token, killLine(5, 6)),
        udpLog(cs16.token, killLine(5, 7)),
        udpLog('', killLine(8, 9), 'R'), // no secret
        udpLog('98765432109876543210987654321098', killLine(8, 9)), // unknown token
        udpLog(elsewhere.token, killLine(8, 9)), // right token, wrong source address
        udpLog(cs16.token, 'not a log line at all'),
        // the next round settles the first (a second later: the same line again would be a duplicate)
        udpLog(cs16.token, `L 11/21/2026 - 19:34:52: World triggered "Round_Start"`),
      ];
      await sendDatagrams(udp.port, packets);
      await handledAndFlushed(udp, packets.length);
      assert.deepEqual(udp.stats, { accepted: 4, rejected: 1, unauthorized: 3 });
      const text = await metrics.registry.metrics();
      assert.deepEqual(
        [
          metricValue(text, 'hub_ingest_lines_total', { source: 'udp' }),
          metricValue(text, 'hub_ingest_rejections_total', { source: 'udp', reason: 'invalid' }),
          metricValue(text, 'hub_ingest_rejections_total', { source: 'udp', reason: 'unauthorized' }),
          metricValue(text, 'hub_ingest_kills_total', { source: 'udp' }),
        ],
        [4, 1, 3, 2],
      );
      const kills = await testDb.db.kysely
        .selectFrom('kills')
        .select(['server_id', 'game', 'killer_steam_id', 'victim_steam_id', 'round_number', 'distance'])
        .orderBy('id')
        .execute();
      assert.deepEqual(kills, [
        {
          server_id: cs16.id,
          game: 'cs16',
          killer_steam_id: '76561197960265739',
          victim_steam_id: '76561197960265740',
          round_number: 1,
          distance: 0,
        },
        {
          server_id: cs16.id,
          game: 'cs16',
          killer_steam_id: '76561197960265739',
          victim_steam_id: '76561197960265742',
          round_number: 1,
          distance: 0,
        },
      ]);
      const counter = await testDb.db.kysely
        .selectFrom('player_counters')
        .select('value')
        .where('counter', '=', 'max_kills_in_round')
        .executeTakeFirst();
      assert.equal(counter?.value, 2);
    });

    it('a datagram received twice counts once, in the same flush or a later one (the ingest_lines rule)', async () => {
      const server = await registerServer(testDb.db, 'cs16', { ip: '127.0.0.1' });
      const at = (s: number) => `L 11/21/2026 - 19:40:${String(s).padStart(2, '0')}: `;
      const kill = (s: number, victim: number) =>
        udpLog(
          server.token,
          `${at(s)}"A<2><STEAM_0:1:71><CT>" killed "B<3><STEAM_0:0:${victim}><TERRORIST>" with "ak47"`,
        );
      const roundStart = (s: number) => udpLog(server.token, `${at(s)}World triggered "Round_Start"`);
      const duplicates = udp.delivery.duplicates;
      const sent = async (datagrams: Buffer[]) => {
        const target = handled(udp) + datagrams.length;
        await sendDatagrams(udp.port, datagrams);
        await handledAndFlushed(udp, target);
      };
      await sent([roundStart(0), kill(1, 81), kill(1, 81), kill(2, 82), roundStart(0)]);
      await sent([kill(1, 81), kill(2, 82), kill(3, 83)]);
      await sent([roundStart(9)]);
      const victims = await testDb.db.kysely
        .selectFrom('kills')
        .select('victim_steam_id')
        .where('server_id', '=', server.id)
        .orderBy('victim_steam_id')
        .execute();
      assert.deepEqual(
        victims.map((v) => v.victim_steam_id),
        ['76561197960265890', '76561197960265892', '76561197960265894'],
      );
      assert.equal(udp.delivery.duplicates - duplicates, 4);
    });
  });
}
