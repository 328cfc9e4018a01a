/**
 * Webhook delivery benchmark (issue 15): signed deliveries per second from one worker to a local
 * receiver (target ≥ 2,000/s), through the whole path (outbox -> dispatcher -> deliveries ->
 * claim -> signed POST -> recorded), and the time from an event's commit to its arrival at the receiver
 * while events are emitted at a steady rate (target p99 ≤ 1 s). The baseline, in the same run:
 * raw unsigned POSTs of the same bodies through the same keep-alive HTTP client at the same
 * concurrency, with no database; the ratio says what claiming, signing and recording cost.
 * Runs on a fresh SQLite file, and on PostgreSQL too when BENCH_DATABASE_URL is set.
 *
 *   npm run bench:webhooks        BENCH_DELIVERIES=20000 BENCH_RATE=2000 BENCH_SECONDS=10 to change the load
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Db } from '../src/db/connect.js';
import { emitEvents } from '../src/modules/events/outbox.js';
import { deliveryWorker } from '../src/modules/webhooks/delivery/worker.js';
import { webhookDispatcher } from '../src/modules/webhooks/dispatch.js';
import { freshBenchDb } from './lib/bench-db.js';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const RATE = Number(process.env.BENCH_RATE ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ENDPOINTS = 16;
const CONCURRENCY = 128;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/** The local receiver: counts requests, notes when each event id arrived, verifies a sample. */
async function startReceiver() {
  const arrived = new Map<string, number>();
  const verifier = new Webhook(SECRET);
  let count = 0;
  let badSignatures = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') {
        if (!arrived.has(id)) arrived.set(id, performance.timeOrigin + performance.now());
        if (count % 100 === 0) {
          try {
            verifier.verify(Buffer.concat(chunks).toString(), req.headers as Record<string, string>);
          } catch {
            badSignatures++;
          }
        }
      }
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    arrived,
    count: () => count,
    badSignatures: () => badSignatures,
    close: () =>
      new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function makeEndpoints(db: Db, port: number): Promise<number[]> {
  const user = await db.kysely
    .insertInto('users')
    .values({
      username: 'bench',
      avatar: '/a.png',
      steam_id: null,
      joined_at: Date.now(),
      password_hash: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const ids: number[] = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    const now = Date.now();
    const { id } = await db.kysely
      .insertInto('webhooks')
      .values({
        user_id: user.id,
        app_id: null,
        url: `http://127.0.0.1:${port}/hook/${i}`,
        // one type per endpoint, so each event makes one delivery
        events: JSON.stringify([`bench.e${i}`]),
        description: null,
        disabled_reason: null,
        created_at: now,
        updated_at: now,
        failing_since: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db.kysely
      .insertInto('webhook_secrets')
      .values({ webhook_id: id, secret: SECRET, created_at: now, expires_at: null })
      .execute();
    ids.push(id);
  }
  return ids;
}

/** One transaction: `count` events, one per endpoint in turn; the worker's dispatcher makes the deliveries. */
async function commitEvents(db: Db, count: number, seq: number): Promise<number[]> {
  return db.kysely.transaction().execute((trx) =>
    emitEvents(
      trx,
      db.dialect,
      Array.from({ length: count }, (_, i) => ({
        type: `bench.e${(seq + i) % ENDPOINTS}`,
        data: { kill_id: seq + i, weapon: 'ak47', headshot: i % 3 === 0, map: 'de_dust2' },
      })),
      Date.now(),
    ),
  );
}

const waitFor = async (done: () => boolean, limitMs: number) => {
  const until = Date.now() + limitMs;
  while (!done() && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
};

/** Raw unsigned POSTs of the same bodies, same client settings, same concurrency: the ceiling. */
async function baseline(port: number, total: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const body = JSON.stringify({
    id: 'evt_0000000000000001',
    type: 'kill.recorded',
    created_at: new Date().toISOString(),
    data: { kill_id: 1, weapon: 'ak47', headshot: true, map: 'de_dust2' },
  });
  let next = 0;
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/hook/raw',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < total) await post();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return total / seconds;
}

async function run(url: string | undefined): Promise<void> {
  const { db, label, drop } = await freshBenchDb(url, 'bench_webhooks');
  const receiver = await startReceiver();
  await makeEndpoints(db, receiver.port);
  const dispatcher = webhookDispatcher(db);

  const rawPerSecond = await baseline(receiver.port, DELIVERIES);

  // throughput: a backlog of deliveries, one worker draining it
  for (let seq = 0; seq < DELIVERIES; seq += 1000)
    await commitEvents(db, Math.min(1000, DELIVERIES - seq), seq);
  const before = receiver.arrived.size;
  const worker = deliveryWorker(db, {
    allowPrivate: true,
    concurrency: CONCURRENCY,
    perWebhook: CONCURRENCY / ENDPOINTS,
    pollMs: 50,
    dispatch: (now) => dispatcher.dispatch(now),
  });
  const started = performance.now();
  worker.start();
  await waitFor(() => receiver.arrived.size - before >= DELIVERIES, 300_000);
  const drained = (performance.now() - started) / 1000;
  const perSecond = (receiver.arrived.size - before) / drained;
  console.log(
    `${label.padEnd(10)} signed deliveries: ${perSecond.toFixed(0)}/s (${DELIVERIES} in ${drained.toFixed(2)} s, ${CONCURRENCY} in flight over ${ENDPOINTS} endpoints); baseline raw unsigned POSTs ${rawPerSecond.toFixed(0)}/s; ratio ${(perSecond / rawPerSecond).toFixed(2)}`,
  );

  // latency: events committed at RATE per second, commit -> arrival
  const committedAt = new Map<string, number>();
  const perTick = Math.max(1, Math.round(RATE / 100));
  const ticks = SECONDS * 100;
  const t0 = performance.now();
  for (let tick = 0; tick < ticks; tick++) {
    const ids = await commitEvents(db, perTick, DELIVERIES + tick * perTick);
    const at = performance.timeOrigin + performance.now();
    for (const id of ids) committedAt.set(`evt_${String(id).padStart(16, '0')}`, at);
    worker.nudge();
    const wait = t0 + (tick + 1) * 10 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  const offered = (ticks * perTick) / ((performance.now() - t0) / 1000);
  await waitFor(() => [...committedAt.keys()].every((id) => receiver.arrived.has(id)), 60_000);
  const latencies = [...committedAt]
    .map(([id, at]) => (receiver.arrived.get(id) ?? Number.POSITIVE_INFINITY) - at)
    .sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  const lost = latencies.filter((l) => !Number.isFinite(l)).length;
  console.log(
    `${label.padEnd(10)} commit -> delivery at ${offered.toFixed(0)} events/s: p50 ${pct(0.5).toFixed(0)} ms, p99 ${pct(0.99).toFixed(0)} ms, max ${pct(1 - 1e-9).toFixed(0)} ms${lost ? `, ${lost} not delivered` : ''}; signatures checked ${Math.floor(receiver.count() / 100)}, failed ${receiver.badSignatures()}`,
  );
  await worker.stop();
  await receiver.close();
  await drop();
}

await run(undefined);
if (process.env.BENCH_DATABASE_URL) await run(process.env.BENCH_DATABASE_URL);
