import { createSocket } from 'node:dgram';
import type { Dialect } from '../../src/db/connect.js';
import { ingestPipeline } from '../../src/modules/ingest/pipeline.js';
import { startUdpIngest, type UdpIngest, type UdpIngestOptions } from '../../src/modules/ingest/udp.js';
import { serversRepo } from '../../src/modules/servers/repo.js';
import { openTestDb, type TestDb } from './db.js';

/** A GoldSrc `logaddress_add` datagram: 0xFFFFFFFF, `S` + log secret (or `R` without), the line, NUL. */
export const udpLog = (secret: string, line: string, type: 'R' | 'S' = 'S'): Buffer =>
  Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.from(`${type}${secret}${line}\n\0`, 'utf8')]);

export interface TestUdpReceiver {
  testDb: TestDb;
  udp: UdpIngest;
  /** closes the receiver (applying what it buffered), then drops the database */
  close(): Promise<void>;
}

/**
 * A fresh test database and a UDP log receiver writing into it: on a free loopback port, flushing
 * every 20 ms, with the service clock at `now`.
 */
export async function udpReceiverOnTestDb(
  dialect: Dialect,
  now: number,
  options: Pick<UdpIngestOptions, 'onError' | 'metrics'> = {},
): Promise<TestUdpReceiver> {
  const testDb = await openTestDb(dialect);
  const udp = await startUdpIngest(
    serversRepo(testDb.db.kysely),
    ingestPipeline(testDb.db, () => now),
    { port: 0, host: '127.0.0.1', flushMs: 20, ...options },
  );
  return {
    testDb,
    udp,
    close: async () => {
      await udp.close();
      await testDb.drop();
    },
  };
}

/** Datagrams the receiver has dealt with: buffered to apply, refused or unauthorized. */
export const handled = (udp: UdpIngest): number =>
  udp.stats.accepted + udp.stats.rejected + udp.stats.unauthorized;

/** Waits (at most `ms`) until the receiver has dealt with `target` datagrams in all, then applies its buffer. */
export async function handledAndFlushed(udp: UdpIngest, target: number, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (handled(udp) < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  await udp.flush();
}

/** A UDP port nobody listens on right now (bound, read and released). */
export async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

/**
 * Sends `datagrams` to 127.0.0.1:`port` in order, `perTick` of them back to back, then yields a
 * macrotask before the next group (a game server writes its log as play goes, not all at once).
 */
export async function sendDatagrams(
  port: number,
  datagrams: readonly Buffer[],
  options: { perTick?: number } = {},
): Promise<void> {
  const perTick = options.perTick ?? datagrams.length;
  const client = createSocket('udp4');
  try {
    for (let i = 0; i < datagrams.length; i += perTick) {
      for (const d of datagrams.slice(i, i + perTick))
        await new Promise<void>((resolve, reject) =>
          client.send(d, port, '127.0.0.1', (err) => (err ? reject(err) : resolve())),
        );
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } finally {
    client.close();
  }
}
