/**
 * `npm run bench`: the API against a raw node:http baseline, in one run, with the same load.
 *
 *   npm run bench [-- --users N --kills N --seed S --duration SEC --rounds N --connections N
 *                     --uncached-connections N --routes a,b --big --skip-uncached]
 *
 * Builds, seeds a temp SQLite database, creates enough partner keys that no request is rate-limited,
 * starts the service as an operator does (`hub serve` from the build, in its own process, with
 * authentication, hourly quotas and the response cache at their defaults) and a raw server (also in
 * its own process), then loads each with autocannon (pipelining 1) from this process: the load
 * generator shares no event loop, heap or garbage collector with a server it measures. Each route is
 * measured in `--rounds` short rounds, each one a raw-server run and the route's run back to back (raw
 * first, then route first, alternately), and its ratio is the median of the per-round ratios: on a
 * shared 2-core machine throughput drifts by tens of percent within a minute, and pairing each figure
 * with a baseline taken seconds apart, many times over, keeps that drift out of the ratio. Latency
 * percentiles are over every request of every round. Top-frag is also measured with the response cache
 * off (a second `hub serve` with CACHE_TTL_MS=0), which times the rollup query itself. Any non-2xx
 * response makes the run INVALID (exit code 1). `--big` seeds 100,000 users and 5,000,000 kills.
 */
import { parseArgs } from 'node:util';
import { API_PREFIX } from '../src/http/paths.js';
import { wholeNumber } from './args.js';
import { fmt, printTable } from './lib/table.js';
import { combineRounds, pairedRatios, pairedRounds, runLoad, type LoadRun, type LoadStats } from './load.js';
import { startRawProcess, startService } from './processes.js';
import { partnerKeys, seededDb } from './setup.js';

const SPEC_ROUTES = ['/leaderboards', '/killboard/feed', '/killboard/top-frag?period=week', '/stats/elo'];
const PERIODS = ['week', 'month', 'all'] as const;
const TARGETS = { leaderboardsRatio: 0.5, p99Ms: 20, topFragP50Ms: 10 };

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: process.env.BENCH_USERS ?? '20000' },
    kills: { type: 'string', default: process.env.BENCH_KILLS ?? '500000' },
    seed: { type: 'string', default: '1' },
    // seconds per run; every route gets `rounds` runs, each paired with a raw-server run
    duration: { type: 'string', default: process.env.BENCH_DURATION ?? '3' },
    rounds: { type: 'string', default: '7' },
    connections: { type: 'string', default: '50' },
    // The top-frag latency target is a query-path latency, measured with the cache off at a
    // moderate concurrency (at 50 connections on one thread p50 is queueing, not the query).
    'uncached-connections': { type: 'string', default: '10' },
    routes: { type: 'string', default: SPEC_ROUTES.join(',') },
    big: { type: 'boolean', default: false },
    'skip-uncached': { type: 'boolean', default: false },
  },
});

const users = values.big ? 100_000 : wholeNumber(values.users, 'users', 10);
const kills = values.big ? 5_000_000 : wholeNumber(values.kills, 'kills', 0);
const seed = wholeNumber(values.seed, 'seed', 0);
const duration = wholeNumber(values.duration, 'duration', 1);
const rounds = wholeNumber(values.rounds, 'rounds', 1);
const connections = wholeNumber(values.connections, 'connections', 1);
const uncachedConnections = wholeNumber(values['uncached-connections'], 'uncached-connections', 1);
const routes = values.routes.split(',').filter(Boolean);

async function main(): Promise<void> {
  console.log(
    `Seeding ${fmt(users)} users and ${fmt(kills)} kills (seed ${seed}) into a temp SQLite database…`,
  );
  const bench = await seededDb(users, kills, seed);
  console.log(`Seed time: ${fmt(bench.seedMs / 1000, 1)} s`);
  const measured = routes.length * rounds + 2 * PERIODS.length;
  // generous: 40k req/s for every measured run and its warm-up
  const keys = await partnerKeys(bench.db, measured * (duration + 2) * 40_000);
  const api = await startService(bench.url, {});
  const uncached = await startService(bench.url, { CACHE_TTL_MS: '0' });
  const raw = await startRawProcess();
  const load = { connections, duration, keys };
  const warm = { connections, duration: 2, keys };
  const rows: { name: string; stats: LoadStats; ratio: number; rounds?: number[] }[] = [];
  const rawRounds: LoadRun[] = [];
  let invalid = 0;
  try {
    console.log(
      `Load: ${connections} connections, ${rounds} rounds of ${duration} s per route (each paired with a raw-server run), pipelining 1, ${keys.length} partner keys\n`,
    );
    await runLoad(raw.url, '/', warm);
    for (const route of routes) {
      const path = `${API_PREFIX}${route}`;
      await runLoad(api.url, path, warm);
      const { baseline, target } = await pairedRounds(
        rounds,
        () => runLoad(raw.url, '/', load),
        () => runLoad(api.url, path, load),
      );
      rawRounds.push(...baseline);
      rows.push({
        name: `GET ${route}`,
        stats: combineRounds(api.url, target),
        ...pairedRatios(target, baseline),
      });
    }
    const baseline = combineRounds(raw.url, rawRounds);
    rows.unshift({ name: 'raw node:http (fixed JSON)', stats: baseline, ratio: 1 });
    const uncachedRows: [string, LoadStats][] = [];
    for (const period of values['skip-uncached'] ? [] : PERIODS) {
      const path = `${API_PREFIX}/killboard/top-frag?period=${period}`;
      await runLoad(uncached.url, path, { ...warm, duration: 1 });
      uncachedRows.push([
        `top-frag ${period} (CACHE_TTL_MS=0, ${connections} conns)`,
        await runLoad(uncached.url, path, { ...load, duration: Math.min(duration, 5) }),
      ]);
      uncachedRows.push([
        `top-frag ${period} (CACHE_TTL_MS=0, ${uncachedConnections} conns)`,
        await runLoad(uncached.url, path, {
          ...load,
          connections: uncachedConnections,
          duration: Math.min(duration, 5),
        }),
      ]);
    }

    const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'vs raw'];
    const allRows = [
      ...rows,
      ...uncachedRows.map(([name, stats]) => ({ name, stats, ratio: stats.rps / baseline.rps })),
    ];
    const table = allRows.map(({ name, stats: s, ratio }) => [
      name,
      fmt(s.rps),
      fmt(s.p50, 1),
      fmt(s.p99, 1),
      fmt(s.bad),
      `${fmt(ratio * 100)}%`,
    ]);
    printTable(header, table);
    invalid = allRows.reduce((sum, { stats }) => sum + stats.bad, 0);

    console.log('\nTargets (default SQLite build, auth and rate limiting on):');
    const check = (ok: boolean, text: string) => console.log(`  ${ok ? 'PASS' : 'FAIL'}  ${text}`);
    const leaderboards = rows.find(({ name }) => name === 'GET /leaderboards');
    if (leaderboards) {
      check(
        leaderboards.ratio >= TARGETS.leaderboardsRatio,
        `/leaderboards ≥ ${TARGETS.leaderboardsRatio * 100}% of raw req/s (median ${fmt(leaderboards.ratio * 100)}%; rounds ${(leaderboards.rounds ?? []).map((r) => `${fmt(r * 100)}%`).join(', ')})`,
      );
    }
    for (const { name, stats: s } of rows.slice(1))
      check(
        s.p99 <= TARGETS.p99Ms,
        `${name} p99 ≤ ${TARGETS.p99Ms} ms at ${connections} connections (${fmt(s.p99, 1)} ms)`,
      );
    for (const [name, s] of uncachedRows.filter(([name]) => name.endsWith(`, ${uncachedConnections} conns)`)))
      check(s.p50 <= TARGETS.topFragP50Ms, `${name} p50 ≤ ${TARGETS.topFragP50Ms} ms (${fmt(s.p50, 1)} ms)`);
  } finally {
    await api.stop();
    await uncached.stop();
    await raw.stop();
    await bench.drop();
  }
  if (invalid > 0) {
    console.log(`\nINVALID: ${fmt(invalid)} non-2xx responses or errors; the figures above do not count.`);
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
