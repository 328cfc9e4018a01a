/**
 * `npm run bench:quota`: what the shared quota store costs in Redis round trips, and how long a Redis
 * round trip takes under load (the figure REDIS_COMMAND_TIMEOUT_MS is chosen from).
 *
 *   npm run bench:quota [-- --duration SEC --rounds N --connections N --keys N]
 *
 * Starts a redis-server of its own (port 6424, or BENCH_REDIS_PORT), seeds a small SQLite database,
 * and runs six API instances (bench/quota-server.ts, the service as `hub serve` builds it, REDIS_URL
 * set): three with today's quota store (leases) and three with the store as it was before leases
 * (one Redis round trip per request), each trio under its own Redis prefix. A process hogs a CPU
 * throughout, as in the fleet test. In each round, for each store (order reversed every round) and
 * for two key mixes (one partner key in full flow, a fresh key each run; `--keys` partner keys in
 * rotation), the trio is loaded at once, one autocannon per instance (`--connections` each, cached
 * `/leaderboards`), and the instances report their store's Redis round trips and every Redis
 * command's latency (from the call to its answer, event-loop delay included: what the link's
 * timeout sees). It prints round trips per 1,000 requests for both stores and their ratio, and the
 * p50/p99/max of a Redis round trip, with the timeout that p99 gives (MARGIN times it) beside the
 * configured default.
 */
import { API_PREFIX } from '../src/http/paths.js';
import { DEFAULT_COMMAND_TIMEOUT_MS } from '../src/http/redis-link.js';
import { countArgs } from './args.js';
import { fmt, printTable } from './lib/table.js';
import { cpuHog, machineLoad, ownRedisServer } from './lib/machine.js';
import { runLoad } from './load.js';
import { startScript, type ScriptProcess } from './processes.js';
import { newPartnerKeys, seededDb } from './setup.js';

const args = countArgs({ duration: 3, rounds: 2, connections: 20, keys: 200 });
const INSTANCES = 3;
/** The timeout is this many times the p99 round trip under load, rounded up to 10 ms. */
const MARGIN = 3;
const PATH = `${API_PREFIX}/leaderboards`;

type Store = 'leases' | 'per-request';
type Mix = 'one key' | 'many keys';
interface Stats {
  roundTrips: number;
  latencies: number[];
}

const quantile = (sorted: number[], q: number) =>
  sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) : Number.NaN;

async function main(): Promise<void> {
  console.log(`Machine: ${machineLoad()}`);
  const redis = await ownRedisServer(Number(process.env.BENCH_REDIS_PORT ?? 6424));
  const bench = await seededDb(500, 5000, 1);
  const fleets: Record<Store, ScriptProcess[]> = { leases: [], 'per-request': [] };
  const hog = cpuHog();
  try {
    const many = await newPartnerKeys(bench.db, args.keys);
    // one per run of the one-key mix: a key in full flow would spend its hour's quota in a few runs
    const fresh = await newPartnerKeys(bench.db, args.rounds * 2);
    const start = (store: Store) =>
      startScript('./quota-server.ts', store === 'per-request' ? ['per-request'] : [], {
        env: {
          DATABASE_URL: bench.url,
          REDIS_URL: redis.url,
          REDIS_PREFIX: `bench-${store}:`,
          LOG_LEVEL: 'warn',
          WORKER_IN_SERVE: 'false',
        },
      });
    for (const store of ['leases', 'per-request'] as const) {
      fleets[store] = await Promise.all(Array.from({ length: INSTANCES }, () => start(store)));
    }
    // warm: every instance has its cache entry and has seen the others' heartbeats
    for (const fleet of Object.values(fleets)) {
      await Promise.all(fleet.map((s) => runLoad(s.url, PATH, { connections: 5, duration: 1, keys: many })));
    }

    const results: Record<Store, Record<Mix, { requests: number; trips: number; latencies: number[] }>> = {
      leases: { 'one key': blank(), 'many keys': blank() },
      'per-request': { 'one key': blank(), 'many keys': blank() },
    };
    const perRound: string[][] = [];
    console.log(
      `\n${INSTANCES} instances per store, ${args.connections} connections each, ${args.rounds} rounds of ${args.duration} s, a CPU hog running`,
    );
    for (let round = 0; round < args.rounds; round++) {
      const order: Store[] = round % 2 === 0 ? ['per-request', 'leases'] : ['leases', 'per-request'];
      for (const store of order) {
        for (const mix of ['one key', 'many keys'] as const) {
          const keys = mix === 'one key' ? [fresh.shift() ?? ''] : many;
          const fleet = fleets[store];
          await Promise.all(fleet.map((s) => s.ask('reset')));
          const runs = await Promise.all(
            fleet.map((s) =>
              runLoad(s.url, PATH, { connections: args.connections, duration: args.duration, keys }),
            ),
          );
          // the last reports of spending (every 100 ms) belong to this run
          await new Promise((resolve) => setTimeout(resolve, 300));
          const stats = (await Promise.all(fleet.map((s) => s.ask('stats')))) as Stats[];
          const bad = runs.reduce((n, r) => n + r.bad, 0);
          if (bad > 0) throw new Error(`${store}, ${mix}: ${bad} non-2xx responses or errors`);
          const requests = runs.reduce((n, r) => n + r.total, 0);
          const trips = stats.reduce((n, s) => n + s.roundTrips, 0);
          const into = results[store][mix];
          into.requests += requests;
          into.trips += trips;
          for (const s of stats) into.latencies.push(...s.latencies);
          perRound.push([
            `${round + 1}`,
            store,
            mix,
            fmt(runs.reduce((n, r) => n + r.rps, 0)),
            fmt(requests),
            fmt(trips),
            fmt((trips * 1000) / requests, 1),
          ]);
        }
      }
    }
    console.log(`(${machineLoad()})\n`);
    printTable(
      ['round', 'store', 'keys', 'req/s (3 instances)', 'requests', 'quota round trips', 'per 1,000'],
      perRound,
    );

    console.log('\nQuota store round trips to Redis per 1,000 requests (all rounds):');
    const rows: string[][] = [];
    for (const mix of ['one key', 'many keys'] as const) {
      const before = perThousand(results['per-request'][mix]);
      const after = perThousand(results.leases[mix]);
      const label =
        mix === 'one key' ? 'one partner key in full flow' : `${many.length} partner keys in rotation`;
      rows.push([label, fmt(before, 1), fmt(after, 1), `${fmt(before / after, 0)}× fewer`]);
    }
    printTable(['keys', 'before leases', 'leases', 'ratio'], rows);

    console.log('\nRedis round trip (every command through the link, call to answer), under this load:');
    const latencyRows: string[][] = [];
    let leaseP99 = 0;
    for (const store of ['leases', 'per-request'] as const) {
      const sorted = [...results[store]['one key'].latencies, ...results[store]['many keys'].latencies].sort(
        (a, b) => a - b,
      );
      const p99 = quantile(sorted, 0.99);
      if (store === 'leases') leaseP99 = p99;
      latencyRows.push([
        store === 'leases' ? 'leases (today)' : 'one per request (before)',
        fmt(sorted.length),
        fmt(quantile(sorted, 0.5), 1),
        fmt(p99, 1),
        fmt(quantile(sorted, 0.999), 1),
        fmt(sorted.at(-1) ?? Number.NaN, 1),
      ]);
    }
    printTable(['store', 'commands', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms'], latencyRows);
    const derived = Math.ceil((leaseP99 * MARGIN) / 10) * 10;
    console.log(
      `\nREDIS_COMMAND_TIMEOUT_MS from this run: ${MARGIN} × p99 (${fmt(leaseP99, 1)} ms) = ${derived} ms; the default is ${DEFAULT_COMMAND_TIMEOUT_MS} ms (${DEFAULT_COMMAND_TIMEOUT_MS >= derived ? 'covers it' : 'BELOW it'}).`,
    );
  } finally {
    await hog.stop();
    await Promise.all([...fleets.leases, ...fleets['per-request']].map((s) => s.stop()));
    await redis.stop();
    await bench.drop();
  }
}

const blank = () => ({ requests: 0, trips: 0, latencies: [] as number[] });
const perThousand = (r: { requests: number; trips: number }) => (r.trips * 1000) / Math.max(1, r.requests);

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
