/**
 * Ingest benchmark: sustained kills per second through the CS2 HTTP log endpoint and the JSON
 * events endpoint (rollups, counters, achievements, XP and levels all on), and freshness: the time
 * from a kill's POST to its appearance in GET /killboard/feed (with the default 500 ms response
 * cache). Runs on a fresh SQLite file, and on PostgreSQL too when BENCH_DATABASE_URL is set.
 *
 *   npm run bench:ingest                      BENCH_KILLS=200000 BENCH_BATCH=2000 to change the load
 */
import { buildApp } from '../src/app.js';
import { keysRepo } from '../src/modules/keys/repo.js';
import { createKey } from '../src/modules/keys/service.js';
import { registerServer } from '../test/helpers/ingest.js';
import { freshBenchDb } from './lib/bench-db.js';

const KILLS = Number(process.env.BENCH_KILLS ?? 100_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 2000);
const PLAYERS = 20;
const ROUND_EVERY = 40;

const pad = (n: number) => String(n).padStart(2, '0');
function stamp(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()} - ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')} - `;
}
const WEAPONS = ['ak47', 'm4a1_silencer', 'awp', 'deagle', 'knife', 'hegrenade', 'usp_silencer', 'galilar'];

function logBatch(seq: number, size: number, at: number): string {
  const lines: string[] = [];
  for (let i = 0; i < size; i++) {
    const n = seq * size + i;
    if (n % ROUND_EVERY === 0) lines.push(`${stamp(at)}World triggered "Round_Start"`);
    const a = n % PLAYERS;
    const b = (n * 7 + 3) % PLAYERS === a ? (a + 1) % PLAYERS : (n * 7 + 3) % PLAYERS;
    const hs = n % 3 === 0 ? ' (headshot)' : '';
    lines.push(
      `${stamp(at)}"Player ${a}<${a + 2}><[U:1:${5000 + a}]><CT>" [${n % 900} ${n % 700} 0] killed "Player ${b}<${b + 2}><[U:1:${5000 + b}]><TERRORIST>" [0 0 0] with "${WEAPONS[n % WEAPONS.length] ?? 'ak47'}"${hs}`,
    );
  }
  return lines.join('\n');
}

function jsonBatch(seq: number, size: number, at: number): string {
  const events = [];
  for (let i = 0; i < size; i++) {
    const n = seq * size + i;
    const a = n % PLAYERS;
    const b = (a + 1 + (n % (PLAYERS - 1))) % PLAYERS;
    events.push({
      type: 'kill',
      client_id: `k${n}`,
      occurred_at: new Date(at).toISOString(),
      killer: { steam_id: String(76561198000000000n + BigInt(a)), name: `Rust ${a}` },
      victim: { steam_id: String(76561198000000000n + BigInt(b)), name: `Rust ${b}` },
      weapon: n % 5 === 0 ? 'rifle.bolt' : 'rifle.ak',
      headshot: n % 4 === 0,
      distance: n % 120,
    });
  }
  return JSON.stringify({ events });
}

async function run(url: string | undefined): Promise<void> {
  const { db, label, drop } = await freshBenchDb(url);
  const app = await buildApp({ db, config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 500, TRUST_PROXY: false } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const cs2 = (await registerServer(db, 'cs2')).token;
  const rust = (await registerServer(db, 'rust')).token;
  const post = async (path: string, token: string, body: string, type: string) => {
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      body,
    });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { kills: number };
  };

  const throughput = async (
    name: string,
    make: (seq: number) => string,
    path: string,
    token: string,
    type: string,
  ) => {
    await post(path, token, make(10_000_000), type); // warm-up: creates the players
    const batches = Math.ceil(KILLS / BATCH);
    const bodies = Array.from({ length: batches }, (_, i) => make(i));
    let kills = 0;
    const start = performance.now();
    for (const body of bodies) kills += (await post(path, token, body, type)).kills;
    const seconds = (performance.now() - start) / 1000;
    console.log(
      `${label.padEnd(10)} ${name.padEnd(26)} ${Math.round(kills / seconds)
        .toLocaleString('en-US')
        .padStart(
          8,
        )} kills/s  (${kills.toLocaleString('en-US')} kills in ${seconds.toFixed(2)} s, batches of ${BATCH})`,
    );
  };
  const now = Date.now();
  await throughput(
    'CS2 HTTP log stream',
    // each batch a millisecond apart: lines of one text and time are a resend, and are skipped
    (i) => logBatch(i, BATCH, now + i),
    '/api-platform/ingest/logs',
    cs2,
    'text/plain',
  );
  await throughput(
    'JSON events',
    (i) => jsonBatch(i, BATCH, now),
    '/api-platform/ingest/events',
    rust,
    'application/json',
  );

  // Freshness: POST one kill, then poll the public feed until it shows (cache included).
  const { secret } = await createKey(keysRepo(db.kysely), { name: 'bench', tier: 'partner' });
  const probe = await fetch(`${base}/api-platform/v1/killboard/feed?limit=1`, {
    headers: { 'x-api-key': secret },
  });
  const viaRoute = probe.status === 200;
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) {
    const name = `Fresh${i}`;
    // A kill counts once its round is settled (the next Round_Start): the round, the kill and the
    // next round's start go in one POST, so this is the time from the POST that settles it.
    const at = stamp(Date.now());
    const line = [
      `${at}World triggered "Round_Start"`,
      `${at}"${name}<9><[U:1:${90000 + i}]><CT>" [0 0 0] killed "Victim<8><[U:1:99999]><TERRORIST>" [0 0 0] with "ak47"`,
      `${at}World triggered "Round_Start"`,
    ].join('\n');
    const start = performance.now();
    await post('/api-platform/ingest/logs', cs2, line, 'text/plain');
    for (;;) {
      let seen: boolean;
      if (viaRoute) {
        const res = await fetch(`${base}/api-platform/v1/killboard/feed?limit=1`, {
          headers: { 'x-api-key': secret },
        });
        seen = (await res.text()).includes(name);
      } else {
        const row = await db.kysely
          .selectFrom('kills')
          .select('killer_name')
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        seen = row?.killer_name === name;
      }
      if (seen) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    samples.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, 50));
  }
  samples.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(10)} freshness POST -> ${viaRoute ? 'GET /killboard/feed' : 'kills table (feed route not merged)'}: p50 ${samples[10]?.toFixed(0)} ms, max ${samples[19]?.toFixed(0)} ms`,
  );
  await app.close();
  await drop();
}

await run(undefined);
if (process.env.BENCH_DATABASE_URL) await run(process.env.BENCH_DATABASE_URL);
