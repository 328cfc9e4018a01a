/**
 * `npm run bench:sse`: fan-out of `GET /v1/events/stream` to many connected clients.
 * One API instance (SQLite, or PostgreSQL with BENCH_DATABASE_URL/TEST_DATABASE_URL) listens; the
 * clients run in a worker thread (their parsing does not share the server's event loop), each a
 * real HTTP connection reading SSE frames. Measured for a baseline of 1 client and for --clients
 * (default 500), in the same run:
 *   - latency: from an event's commit (and its after-commit wake-up) to the LAST client having it,
 *     over --rounds single events (p50 and max);
 *   - throughput: a burst of --burst events committed back to back, events delivered per second
 *     (clients x events / time from the first commit to the last client having the last event).
 * Every client must receive every event once, in order; anything else makes the run INVALID (exit 1).
 */
import { Worker } from 'node:worker_threads';
import { factories } from '../test/helpers/factories.js';
import { commitEvents, listenForStream, streamApp } from '../test/helpers/stream-app.js';
import { countArgs } from './args.js';
import { freshBenchDb } from './lib/bench-db.js';

const {
  clients: CLIENTS,
  rounds: ROUNDS,
  burst: BURST,
} = countArgs({ clients: 500, rounds: 30, burst: 200 });
/** PostgreSQL when set (a schema of the bench's own, dropped afterwards), else a temp SQLite file */
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
/** a public event type (an API key's stream carries public events); `round` carries the sequence */
const TYPE = 'round.started';

/** The clients: open `count` streams, then report when every one of them has `expected` events. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, key, count } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const received = new Array(count).fill(0);
const lastSeq = new Array(count).fill(0);
let broken = 0;
let expected = Infinity;
let complete = 0;
const requests = [];
function onFrame(i, frame) {
  const at = frame.indexOf('\\ndata: ');
  if (at === -1) return;
  const seq = JSON.parse(frame.slice(at + 7)).data.round;
  if (seq !== lastSeq[i] + 1) broken++;
  lastSeq[i] = seq;
  received[i]++;
  if (received[i] === expected && ++complete === count) parentPort.postMessage({ kind: 'all', seq, at: Date.now(), broken });
}
let opened = 0;
for (let i = 0; i < count; i++) {
  const req = http.get(url, { agent, headers: { authorization: 'Bearer ' + key, accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => parentPort.postMessage({ kind: 'refused', status: res.statusCode, body }));
      return;
    }
    res.setEncoding('utf8');
    let buffer = '';
    let first = true;
    res.on('data', (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\\n\\n')) !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (first) { first = false; if (++opened === count) parentPort.postMessage({ kind: 'open' }); }
        if (frame.startsWith('id: ')) onFrame(i, frame);
      }
    });
  });
  req.on('error', () => broken++);
  requests.push(req);
}
parentPort.on('message', (m) => {
  if (m.kind === 'expect') { expected = m.total; complete = received.filter((n) => n >= expected).length; }
  if (m.kind === 'close') { for (const r of requests) r.destroy(); agent.destroy(); parentPort.close(); }
});
`;

interface Clients {
  /** resolves when every client has `total` events: when the last one got it, and broken streams */
  allHave(total: number): Promise<{ at: number; broken: number }>;
  close(): Promise<void>;
}

function startClients(url: string, key: string, count: number): Promise<Clients> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { url, key, count } });
  let waiter: ((m: { at: number; broken: number }) => void) | undefined;
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.on(
      'message',
      (m: { kind: string; at: number; broken: number; status?: number; body?: string }) => {
        if (m.kind === 'open')
          resolve({
            allHave: (total) =>
              new Promise((done) => {
                waiter = done;
                worker.postMessage({ kind: 'expect', total });
              }),
            close: async () => {
              worker.postMessage({ kind: 'close' });
              await new Promise((r) => worker.once('exit', r));
            },
          });
        if (m.kind === 'all') waiter?.(m);
        // a stream the API refused: the run cannot measure anything
        if (m.kind === 'refused') reject(new Error(`the stream answered ${m.status}: ${m.body}`));
      },
    );
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function run(count: number) {
  const { db, drop } = await freshBenchDb(DATABASE_URL, 'bench_sse');
  const app = await streamApp({ db });
  const url = await listenForStream(app);
  const key = (await factories(db).makeKey({ tier: 'partner' })).secret;
  const clients = await startClients(`${url}?types=${TYPE}`, key, count);
  let seq = 0;
  const commit = async () => {
    seq++;
    // as every emitter does: the commit wakes the streams (events/wake.ts)
    await commitEvents({ db }, [
      { type: TYPE, data: { server_id: 3, game: 'cs2', map: 'de_dust2', round: seq } },
    ]);
  };
  let broken = 0;
  const latencies: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const arrived = clients.allHave(seq + 1);
    await commit();
    const committedAt = Date.now();
    const { at, broken: b } = await arrived;
    latencies.push(at - committedAt);
    broken = b;
  }
  latencies.sort((a, b) => a - b);
  const arrived = clients.allHave(seq + BURST);
  const start = Date.now();
  for (let i = 0; i < BURST; i++) await commit();
  const { at, broken: b } = await arrived;
  broken = b;
  const seconds = Math.max(1, at - start) / 1000;
  await clients.close();
  await app.close();
  await drop();
  return {
    p50: percentile(latencies, 50),
    max: latencies.at(-1) ?? NaN,
    perSecond: (count * BURST) / seconds,
    burstMs: seconds * 1000,
    broken,
  };
}

console.log(
  `SSE fan-out on ${DATABASE_URL ? 'PostgreSQL' : 'SQLite'}: ${ROUNDS} single events, then a burst of ${BURST}`,
);
const base = await run(1);
const fan = await run(CLIENTS);
const row = (name: string, r: typeof base) =>
  `${name.padEnd(12)} commit->last client p50 ${r.p50.toFixed(0).padStart(4)} ms, max ${r.max
    .toFixed(0)
    .padStart(
      4,
    )} ms; burst delivered ${Math.round(r.perSecond).toLocaleString('en-US').padStart(9)} events/s (${r.burstMs.toFixed(0)} ms)`;
console.log(row('1 client', base));
console.log(row(`${CLIENTS} clients`, fan));
console.log(
  `ratio ${CLIENTS} clients / 1 client: latency p50 x${(fan.p50 / Math.max(1, base.p50)).toFixed(1)}, delivered events/s x${(
    fan.perSecond / base.perSecond
  ).toFixed(1)}`,
);
if (base.broken + fan.broken > 0) {
  console.log(`INVALID: ${base.broken + fan.broken} streams missed, repeated or reordered an event`);
  process.exit(1);
}
