import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { UdpIngest } from '../src/modules/ingest/udp.js';
import { testDialects, type TestDb } from './helpers/db.js';
import { hostileLine } from './helpers/hostile-lines.js';
import { registerServer, stamp } from './helpers/ingest.js';
import {
  handled,
  handledAndFlushed,
  sendDatagrams,
  udpLog,
  udpReceiverOnTestDb,
  type TestUdpReceiver,
} from './helpers/udp.js';

/**
 * A property over what the UDP log receiver can be sent: any bytes of any length up to the largest
 * UDP payload (65,507 bytes), datagrams of the GoldSrc framing with and without the server's
 * secret, and log lines of real shapes with hostile content, padded up to 64 KiB. The receiver
 * never fails: every datagram is counted (accepted, rejected or unauthorized), nothing it accepted
 * fails its batch, and a valid kill sent after the hostile ones is stored.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 40); // FUZZ_SEED=n replays one run
const NOW = Date.UTC(2026, 10, 21, 20, 0, 0);
const MAX_PAYLOAD = 65_507;

for (const dialect of testDialects()) {
  describe(`UDP log ingest under hostile input (${dialect})`, () => {
    let receiver: TestUdpReceiver;
    let testDb: TestDb;
    let udp: UdpIngest;
    const errors: unknown[] = [];
    before(async () => {
      receiver = await udpReceiverOnTestDb(dialect, NOW, { onError: (err) => errors.push(err) });
      ({ testDb, udp } = receiver);
    });
    after(() => receiver.close());

    it('any datagram: the receiver never fails, counts every one, and keeps storing valid kills', async () => {
      const server = await registerServer(testDb.db, 'cs16', { ip: '127.0.0.1' });
      const framed = (type: 'R' | 'S', secret: string, text: string) =>
        udpLog(secret, text, type).subarray(0, MAX_PAYLOAD);
      const datagram = fc.oneof(
        fc.uint8Array({ maxLength: MAX_PAYLOAD }).map((b) => Buffer.from(b)),
        fc
          .uint8Array({ maxLength: 200 })
          .map((b) => Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff]), b])),
        hostileLine(NOW).map((l) => framed('S', server.token, l)),
        fc
          .tuple(hostileLine(NOW), fc.integer({ min: 0, max: MAX_PAYLOAD }))
          .map(([l, pad]) => framed('S', server.token, l + 'x'.repeat(pad))),
        fc
          .tuple(fc.constantFrom('R', 'S'), hostileLine(NOW))
          .map(([type, l]) => framed(type, type === 'S' ? '12345678901234567890123456789012' : '', l)),
      );
      let victim = 0;
      let second = 0;
      const kills = async () =>
        Number(
          (
            await testDb.db.kysely
              .selectFrom('kills')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('server_id', '=', server.id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      await fc.assert(
        fc.asyncProperty(fc.array(datagram, { minLength: 1, maxLength: 12 }), async (hostile) => {
          // A valid round after the hostile datagrams: its kill must be stored. Its killer is an
          // account no hostile line can name: a hostile line that puts the killer's SteamID on a
          // second connected player under another name makes it a shared (bot-mod) id, whose kills
          // rightly stop counting (test/unit/log-structure.test.ts); seed 394895091 found that.
          const at = NOW - 3_600_000 + (second += 10) * 1000;
          const round = [
            `${stamp(at)}World triggered "Round_Start"`,
            `${stamp(at + 1000)}"Old<2><STEAM_0:1:424242><CT>" killed "V<3><STEAM_0:0:${900_000 + ++victim}><TERRORIST>" with "ak47"`,
            `${stamp(at + 2000)}World triggered "Round_Start"`,
          ].map((l) => udpLog(server.token, l));
          const before = { counted: handled(udp), kills: await kills(), errors: errors.length };
          await sendDatagrams(udp.port, [...hostile, ...round]);
          await handledAndFlushed(udp, before.counted + hostile.length + round.length, 5000);
          assert.equal(
            handled(udp),
            before.counted + hostile.length + round.length,
            'every datagram counted',
          );
          assert.deepEqual(errors.slice(before.errors), [], 'no batch failed');
          assert.equal(udp.delivery.pending, 0);
          assert.ok((await kills()) >= before.kills + 1, 'the valid kill is stored');
        }),
        { numRuns: RUNS, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
      );
    });
  });
}
