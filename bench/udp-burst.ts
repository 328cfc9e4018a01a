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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { ingestPipeline } from '../src/modules/ingest/pipeline.js';
import { startUdpIngest, UDP_RECV_BUFFER_BYTES } from '../src/modules/ingest/udp.js';
import { serversRepo } from '../src/modules/servers/repo.js';
import { generateToken, hashToken } from '../src/modules/servers/tokens.js';

const BURSTS = (process.env.BENCH_BURSTS ?? '500,1000,2000,4000,8000,16000').split(',').map(Number);
const pad = (n: number) => String(n).padStart(2, '0');
const stamp = (ms: number) => {
  const d = new Date(ms);
  return `L ${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()} - ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}: `;
};

const dir = mkdtempSync(join(tmpdir(), 'hub-bench-udp-'));
const db = connect(`sqlite:${join(dir, 'hub.sqlite')}`);
await migrateToLatest(db);
const token = generateToken();
const servers = serversRepo(db.kysely);
await servers.add({
  name: 'burst',
  game: 'cs16',
  ip: '127.0.0.1',
  port: 27015,
  query_port: null,
  token_hash: hashToken(token),
  created_at: Date.now(),
});
const pipeline = ingestPipeline(db);
let seq = 0;
const datagram = () => {
  const n = seq++;
  const line = `${stamp(Date.now() - 3_600_000 + n)}"Old<2><STEAM_0:1:${1 + (n % 9)}><CT>" killed "V${n}<3><STEAM_0:0:${300_000 + n}><TERRORIST>" with "ak47"`;
  return Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.from(`S${token}${line}\n\0`)]);
};

async function burst(recvBufferBytes: number, n: number): Promise<{ granted: number; seen: number }> {
  const udp = await startUdpIngest(servers, pipeline, { port: 0, host: '127.0.0.1', recvBufferBytes });
  const client = createSocket('udp4');
  await new Promise<void>((resolve) => client.bind(0, '127.0.0.1', resolve));
  const packets = Array.from({ length: n }, datagram);
  for (const p of packets) client.send(p, udp.port, '127.0.0.1'); // all written before the receiver reads
  await new Promise((resolve) => setTimeout(resolve, 50));
  const seen = () => udp.stats.accepted + udp.stats.rejected + udp.stats.unauthorized;
  for (let last = -1; seen() !== last;) {
    last = seen();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  client.close();
  const result = { granted: udp.recvBufferBytes, seen: seen() };
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
await db.close();
rmSync(dir, { recursive: true, force: true });
