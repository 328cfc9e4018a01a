/**
 * UDP burst benchmark: how many datagrams of a burst the log receiver sees, with the OS default
 * socket receive buffer (the baseline) and with the buffer it asks for (INGEST_UDP_RECV_BUFFER,
 * 4 MiB), in the same run. A burst is N datagrams written to the socket in one go while the
 * receiver cannot read (the same event loop is busy sending, as it would be busy writing a batch);
 * what does not fit in the receive buffer is dropped by the kernel, unseen.
 *
 *   npm run bench:udp-burst                  BENCH_BURSTS=1000,4000,16000 to change the sizes
 */
import { createSocket } from 'node:dgram';
import { ingestPipeline } from '../src/modules/ingest/pipeline.js';
import { startUdpIngest, UDP_RECV_BUFFER_BYTES } from '../src/modules/ingest/udp.js';
import { serversRepo } from '../src/modules/servers/repo.js';
import { registerServer, stamp } from '../test/helpers/ingest.js';
import { handled, udpLog } from '../test/helpers/udp.js';
import { freshBenchDb } from './lib/bench-db.js';

const BURSTS = (process.env.BENCH_BURSTS ?? '500,1000,2000,4000,8000,16000').split(',').map(Number);

const { db, drop } = await freshBenchDb(undefined);
const token = (await registerServer(db, 'cs16')).token;
const servers = serversRepo(db.kysely);
const pipeline = ingestPipeline(db);
let seq = 0;
const datagram = () => {
  const n = seq++;
  return udpLog(
    token,
    `${stamp(Date.now() - 3_600_000 + n)}"Old<2><STEAM_0:1:${1 + (n % 9)}><CT>" killed "V${n}<3><STEAM_0:0:${300_000 + n}><TERRORIST>" with "ak47"`,
  );
};

async function burst(recvBufferBytes: number, n: number): Promise<{ granted: number; seen: number }> {
  const udp = await startUdpIngest(servers, pipeline, { port: 0, host: '127.0.0.1', recvBufferBytes });
  const client = createSocket('udp4');
  await new Promise<void>((resolve) => client.bind(0, '127.0.0.1', resolve));
  const packets = Array.from({ length: n }, datagram);
  for (const p of packets) client.send(p, udp.port, '127.0.0.1'); // all written before the receiver reads
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (let last = -1; handled(udp) !== last;) {
    last = handled(udp);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  client.close();
  const result = { granted: udp.recvBufferBytes, seen: handled(udp) };
  await udp.close();
  return result;
}

console.log('burst    | OS default buffer        | asked 4 MiB              | ratio');
for (const n of BURSTS) {
  const before = await burst(0, n);
  const after = await burst(UDP_RECV_BUFFER_BYTES, n);
  const cell = (r: typeof before) =>
    `${String(r.seen).padStart(6)}/${n} (${Math.round(r.granted / 1024)} KiB)`.padEnd(24);
  console.log(
    `${String(n).padStart(8)} | ${cell(before)} | ${cell(after)} | ${(after.seen / Math.max(1, before.seen)).toFixed(2)}x`,
  );
}
await drop();
