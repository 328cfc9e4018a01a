/**
 * `npm run bench:shared`: the scale-out setup's read path against the embedded one, and three
 * instances against one (issue 24's "performance of the shared path").
 *
 *   BENCH_DATABASE_URL=postgres://… npm run bench:shared [-- --duration SEC --rounds N --connections N --users N --kills N]
 *
 * Seeds the same demo world (same sizes, same seed) into a temp SQLite file and into a PostgreSQL
 * database of its own on BENCH_DATABASE_URL's server (created and dropped by the run), starts a
 * redis-server of its own (port 6425, or BENCH_REDIS_PORT), and runs, each in its own process as
 * `hub serve` builds it (bench/quota-server.ts, which counts Redis round trips): one instance on SQLite (no Redis), three on
 * PostgreSQL + Redis as configured by default (the key looked up on every request), and three with
 * KEY_CACHE_MS=1000 (a looked-up key remembered for a second, see docs/operating.md). Cached
 * `/leaderboards` with partner keys, in paired rounds (order reversed every round):
 *   - one PostgreSQL + Redis instance against the SQLite one, both ways: target ≥ 0.8×;
 *   - three instances loaded at once (the connections split between them) against one, both ways:
 *     the scale-out factor on this machine, printed beside its CPU count.
 * Ratios are medians of per-round req/s ratios; the machine's load average is printed beside them.
 */
import { cpus } from 'node:os';
import { API_PREFIX } from '../src/http/paths.js';
import { countArgs } from './args.js';
import { machineLoad, ownRedisServer } from './lib/machine.js';
import { fmt, median, printTable } from './lib/table.js';
import { combineRounds, runLoad, type LoadRun } from './load.js';
import { startScript, type ScriptProcess } from './processes.js';
import { partnerKeys, seededDb, seededPostgres } from './setup.js';

const args = countArgs({ duration: 2, rounds: 4, connections: 48, users: 2000, kills: 20000 });
const PATH = `${API_PREFIX}/leaderboards`;
const TARGET = 0.8;
/** what the shared path is measured with besides the default (0: a lookup per request) */
const KEY_CACHE_MS = 1000;

/** One side of a pair: servers loaded at once, the connections split between them. */
interface Side {
  name: string;
  servers: ScriptProcess[];
  keys: string[];
  runs: LoadRun[];
  /** the quota store's Redis round trips, and the requests they served */
  trips: number;
  requests: number;
}

async function load(side: Side): Promise<number> {
  const connections = Math.ceil(args.connections / side.servers.length);
  await Promise.all(side.servers.map((s) => s.ask('reset')));
  const runs = await Promise.all(
    side.servers.map((s) => runLoad(s.url, PATH, { connections, duration: args.duration, keys: side.keys })),
  );
  const bad = runs.reduce((n, r) => n + r.bad, 0);
  if (bad > 0) throw new Error(`${side.name}: ${bad} non-2xx responses or errors`);
  side.runs.push(...runs);
  const stats = (await Promise.all(side.servers.map((s) => s.ask('stats')))) as { roundTrips: number }[];
  side.trips += stats.reduce((n, s) => n + s.roundTrips, 0);
  side.requests += runs.reduce((n, r) => n + r.total, 0);
  return runs.reduce((n, r) => n + r.rps, 0);
}

async function main(): Promise<void> {
  const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!serverUrl?.startsWith('postgres')) {
    console.error('Set BENCH_DATABASE_URL to a PostgreSQL server (a database is created on it for the run).');
    process.exit(2);
  }
  console.log(`Machine: ${machineLoad()}`);
  console.log(`Seeding ${fmt(args.users)} users and ${fmt(args.kills)} kills into SQLite and PostgreSQL…`);
  const sqlite = await seededDb(args.users, args.kills, 1);
  const pg = await seededPostgres(serverUrl, args.users, args.kills, 1);
  const redis = await ownRedisServer(Number(process.env.BENCH_REDIS_PORT ?? 6425));
  const servers: ScriptProcess[] = [];
  try {
    // each PostgreSQL side's keys serve six runs a round; enough keys that none reaches its quota
    const expected = 10_000 * args.duration * args.rounds * 6;
    const sqliteKeys = await partnerKeys(sqlite.db, expected);
    const pgKeys = await partnerKeys(pg.db, expected);
    const base = { LOG_LEVEL: 'warn', WORKER_IN_SERVE: 'false' };
    const shared = { ...base, DATABASE_URL: pg.url, REDIS_URL: redis.url, REDIS_PREFIX: 'bench-shared:' };
    // the service as `hub serve` builds it, counting its quota store's Redis round trips
    const hub = (env: Record<string, string>) => startScript('./quota-server.ts', [], { env });
    const cached = { ...shared, KEY_CACHE_MS: String(KEY_CACHE_MS) };
    const started = await Promise.all([
      hub({ ...base, DATABASE_URL: sqlite.url }),
      ...Array.from({ length: 3 }, () => hub(shared)),
      ...Array.from({ length: 3 }, () => hub(cached)),
    ]);
    servers.push(...started);
    const [embedded, ...rest] = started;
    const lookingUp = rest.slice(0, 3);
    const remembering = rest.slice(3);
    const side = (name: string, on: ScriptProcess[], keys: string[]): Side => ({
      name,
      servers: on,
      keys,
      runs: [],
      trips: 0,
      requests: 0,
    });
    const sides = {
      sqlite: side('SQLite, 1 instance', [embedded], sqliteKeys),
      pg: side('PostgreSQL + Redis, 1 instance', lookingUp.slice(0, 1), pgKeys),
      pgFleet: side('PostgreSQL + Redis, 3 instances', lookingUp, pgKeys),
      cached: side(`… KEY_CACHE_MS=${KEY_CACHE_MS}, 1 instance`, remembering.slice(0, 1), pgKeys),
      cachedFleet: side(`… KEY_CACHE_MS=${KEY_CACHE_MS}, 3 instances`, remembering, pgKeys),
    };
    // warm: every instance has its cache entry, its connections and the others' heartbeats
    for (const s of [sides.sqlite, sides.pgFleet, sides.cachedFleet]) {
      await Promise.all(
        s.servers.map((server) => runLoad(server.url, PATH, { connections: 10, duration: 1, keys: s.keys })),
      );
    }
    const pair = (name: string, baseline: Side, target: Side) => ({
      name,
      baseline,
      target,
      ratios: [] as number[],
    });
    const pairs = [
      pair('PostgreSQL + Redis vs SQLite', sides.sqlite, sides.pg),
      pair(`PostgreSQL + Redis, KEY_CACHE_MS=${KEY_CACHE_MS}, vs SQLite`, sides.sqlite, sides.cached),
      pair('3 instances vs 1 (PostgreSQL + Redis)', sides.pg, sides.pgFleet),
      pair(`3 instances vs 1 (KEY_CACHE_MS=${KEY_CACHE_MS})`, sides.cached, sides.cachedFleet),
    ];
    console.log(
      `\nGET ${PATH}, cache hits, partner keys, ${args.connections} connections per side, ${args.rounds} paired rounds of ${args.duration} s`,
    );
    for (let round = 0; round < args.rounds; round++) {
      for (const pair of pairs) {
        const targetFirst = round % 2 === 1;
        const a = await load(targetFirst ? pair.target : pair.baseline);
        const b = await load(targetFirst ? pair.baseline : pair.target);
        pair.ratios.push(targetFirst ? a / b : b / a);
      }
    }
    console.log(`(${machineLoad()})\n`);
    const rows = Object.values(sides).map((s) => {
      const perRound = s.servers.length;
      // a side's rounds: each round is `perRound` runs loaded at once, so its req/s is their sum
      const rounds: number[] = [];
      for (let i = 0; i < s.runs.length; i += perRound) {
        rounds.push(s.runs.slice(i, i + perRound).reduce((n, r) => n + r.rps, 0));
      }
      const pooled = combineRounds(s.servers[0]?.url ?? '', s.runs);
      const trips = s.servers[0] === embedded ? '' : fmt((s.trips * 1000) / Math.max(1, s.requests), 1);
      return [s.name, fmt(median(rounds)), fmt(pooled.p50, 1), fmt(pooled.p99, 1), trips];
    });
    printTable(['target', 'req/s (median round)', 'p50 ms', 'p99 ms', 'Redis trips / 1,000'], rows);
    console.log('');
    printTable(
      ['ratio', 'median', 'rounds'],
      pairs.map((p, i) => {
        const ratio = median(p.ratios);
        const verdict = i < 2 ? ` ${ratio >= TARGET ? 'PASS' : 'FAIL'} (target ≥ ${TARGET}×)` : '';
        return [p.name, `${fmt(ratio, 2)}×${verdict}`, p.ratios.map((r) => fmt(r, 2)).join(', ')];
      }),
    );
    console.log(
      `  scale-out on ${cpus().length} CPUs shared with PostgreSQL, Redis and the load generator: 3 instances cannot get more than the CPUs there are`,
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await redis.stop();
    await pg.drop();
    await sqlite.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
