/**
 * `npm run bench:pipeline`: where a cached, authenticated published read spends its time, and how
 * close it runs to raw node:http sending the same bytes.
 *
 *   npm run bench:pipeline [-- --duration SEC --rounds N --connections N --rate N --users N --kills N]
 *
 * Seeds a small SQLite database and starts, each in a process of its own: a raw node:http server and
 * a bare Fastify app that send the hub's own response bodies byte for byte (recorded from the hub),
 * the service as `hub serve` builds it (bench/pipeline-server.ts) with every step on, one instance
 * per pipeline step with that step turned off (buildApp's bench-only `stepsOff`, never config), and
 * one at LOG_LEVEL=info (the access log on, to /dev/null). Every request carries a partner key and
 * hits the response cache.
 *
 * Breakdown (/leaderboards): each target is loaded side by side with the hub (every step on), both at
 * the same fixed rate (`--rate` req/s each), once per round, the order reversed every round. A
 * target's cost is the server's CPU time per request (all its threads, from
 * /proc/<pid>/task/<tid>/schedstat, less what it uses idle) over the hub's in the same seconds: on a
 * shared machine whose load changes by the second, that ratio holds where either figure alone
 * drifts. A step's cost is the hub's minus the hub's without it.
 *
 * Targets: each of /leaderboards, /killboard/feed and /users/{id} against the raw server at full
 * speed, in paired rounds (raw first, then the hub first, alternately); ratio = median of per-round
 * req/s ratios, p99 over every request of the rounds.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_PREFIX } from '../src/http/paths.js';
import { PIPELINE_STEPS } from '../src/http/pipeline-switches.js';
import { countArgs } from './args.js';
import { fmt, median, printTable } from './lib/table.js';
import { cpuNs, settled } from './lib/cpu.js';
import type { RecordedBody } from './lib/bodies.js';
import { combineRounds, pairedRatios, pairedRounds, runLoad, type LoadRun } from './load.js';
import { startScript, type ServerProcess } from './processes.js';
import { partnerKeys, seededDb } from './setup.js';

const args = countArgs({
  duration: 2,
  rounds: 3,
  connections: 50,
  rate: 2000,
  users: 2000,
  kills: 20000,
});
const ROUTES = ['/leaderboards', '/killboard/feed', '/users/1'];
const BREAKDOWN_ROUTE = `${API_PREFIX}/leaderboards`;
const TARGET_RATIO = 0.75;
const CONTROL = 'hub, every step on (control)';

/** each server's CPU use when idle (ns per ms), measured once it has settled */
const idleNsPerMs = new Map<number, number>();

interface Target {
  name: string;
  server: ServerProcess;
  /** per round: this target's CPU per request over the hub's (every step on), measured side by side */
  ratios: number[];
}

/** A load run against a server, with the server's CPU time per request (µs). */
async function cpuPerRequest(server: ServerProcess, path: string, keys: string[], duration: number) {
  const before = cpuNs(server.pid);
  const started = performance.now();
  const run = await runLoad(server.url, path, {
    connections: args.connections,
    duration,
    keys,
    rate: args.rate,
  });
  if (run.bad > 0) throw new Error(`${server.url}: ${run.bad} non-2xx responses or errors`);
  const idle = (idleNsPerMs.get(server.pid) ?? 0) * (performance.now() - started);
  return (cpuNs(server.pid) - before - idle) / 1000 / Math.max(1, run.total);
}

/**
 * The hub and another target loaded at the same time, each by its own load generator: both see the
 * same machine (a shared one's load changes by the second), so the ratio of their costs holds where
 * either cost alone drifts.
 */
async function sideBySide(full: ServerProcess, other: ServerProcess, path: string, keys: string[]) {
  const [fullUs, otherUs] = await Promise.all([
    cpuPerRequest(full, path, keys, args.duration),
    cpuPerRequest(other, path, keys, args.duration),
  ]);
  return { fullUs, otherUs };
}

/** The hub's bodies for ROUTES, recorded once, for the baselines to send byte for byte. */
async function recordBodies(hub: ServerProcess, key: string): Promise<string> {
  const bodies: RecordedBody[] = [];
  for (const route of ROUTES) {
    const path = `${API_PREFIX}${route}`;
    const res = await fetch(hub.url + path, { headers: { 'x-api-key': key } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    const body = Buffer.from(await res.arrayBuffer());
    bodies.push({ path, contentType: res.headers.get('content-type') ?? '', body: body.toString('base64') });
    console.log(`  ${route}: ${fmt(body.length)} bytes`);
  }
  const file = join(tmpdir(), `hub-bench-bodies-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(bodies));
  return file;
}

async function main(): Promise<void> {
  console.log(`Seeding ${fmt(args.users)} users and ${fmt(args.kills)} kills…`);
  const bench = await seededDb(args.users, args.kills, 1);
  const targetsCount = PIPELINE_STEPS.length + 4;
  const runs = 2 * targetsCount * (args.rounds + 1) + ROUTES.length * (2 * args.rounds + 1);
  const keys = await partnerKeys(bench.db, runs * args.duration * 40_000);
  const env = { DATABASE_URL: bench.url, LOG_LEVEL: 'warn', WORKER_IN_SERVE: 'false' };
  const hub = (off: string[], extra: Record<string, string> = {}) =>
    startScript('./pipeline-server.ts', [off.join(',')], { env: { ...env, ...extra }, quiet: true });
  const servers: ServerProcess[] = [];
  try {
    const full = await hub([]);
    servers.push(full);
    console.log('Bodies (as the hub sends them):');
    const bodies = await recordBodies(full, keys[0] ?? '');
    const raw = await startScript('./raw-server.ts', [bodies]);
    const fastify = await startScript('./fastify-server.ts', [bodies]);
    servers.push(raw, fastify);
    const target = (name: string, server: ServerProcess): Target => ({ name, server, ratios: [] });
    const targets = [target('raw node:http, same bytes', raw), target('bare Fastify, same bytes', fastify)];
    // started together: each takes seconds of CPU to load and build
    const [control, ...variants] = await Promise.all([hub([]), ...PIPELINE_STEPS.map((step) => hub([step]))]);
    servers.push(control, ...variants);
    // A second hub with every step on, loaded like the variants (a few seconds now and then, while the
    // reference hub above is loaded in every pair): a process's history alone moves its cost per
    // request, so each step is priced against this one, which shares that history.
    targets.push(target(CONTROL, control));
    PIPELINE_STEPS.forEach(
      (step, i) => variants[i] && targets.push(target(`hub without ${step}`, variants[i])),
    );
    const logging = await hub([], { LOG_LEVEL: 'info' });
    servers.push(logging);
    targets.push(target('hub with the access log (LOG_LEVEL=info)', logging));
    for (const s of servers) idleNsPerMs.set(s.pid, await settled(s.pid));

    console.log(
      `\nBreakdown: GET ${BREAKDOWN_ROUTE}, cache hits; each target side by side with the hub (every step on), ${args.connections} connections each, ${args.rounds} rounds of ${args.duration} s (order reversed every round)`,
    );
    for (const t of [full, ...targets.map((t) => t.server)]) {
      await runLoad(t.url, BREAKDOWN_ROUTE, { connections: args.connections, duration: 1, keys });
    }
    const fullUs: number[] = [];
    for (let round = 0; round < args.rounds; round++) {
      for (const t of round % 2 === 0 ? targets : [...targets].reverse()) {
        const pair = await sideBySide(full, t.server, BREAKDOWN_ROUTE, keys);
        fullUs.push(pair.fullUs);
        t.ratios.push(pair.otherUs / pair.fullUs);
      }
    }
    printBreakdown(median(fullUs), targets);

    console.log(`\nTargets: cached, authenticated reads against raw node:http sending the same bytes`);
    console.log(
      `(paired rounds, raw first then the hub first alternately; ratio = median of per-round ratios)`,
    );
    const rows: string[][] = [];
    for (const route of ROUTES) {
      const path = `${API_PREFIX}${route}`;
      const rawSide = () =>
        runLoad(raw.url, path, { connections: args.connections, duration: args.duration, keys });
      const hubSide = () =>
        runLoad(full.url, path, { connections: args.connections, duration: args.duration, keys });
      await hubSide();
      const paired = await pairedRounds(args.rounds, rawSide, hubSide);
      const bad = [...paired.baseline, ...paired.target].reduce((sum, r: LoadRun) => sum + r.bad, 0);
      if (bad > 0) throw new Error(`${route}: ${bad} non-2xx responses or errors`);
      const { ratio, rounds } = pairedRatios(paired.target, paired.baseline);
      const hubStats = combineRounds(full.url, paired.target);
      const rawStats = combineRounds(raw.url, paired.baseline);
      rows.push([
        `GET ${route}`,
        fmt(rawStats.rps),
        fmt(hubStats.rps),
        `${fmt(rawStats.p99, 1)} / ${fmt(hubStats.p99, 1)}`,
        `${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'} ${fmt(ratio, 2)}× (${rounds.map((r) => fmt(r, 2)).join(', ')})`,
      ]);
    }
    printTable(
      ['route', 'raw req/s', 'hub req/s', 'p99 ms raw / hub', `hub vs raw (target ≥ ${TARGET_RATIO}×)`],
      rows,
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await bench.drop();
  }
}

function printBreakdown(fullUs: number, targets: Target[]): void {
  const costOf = (t: Target) => fullUs * median(t.ratios);
  const rawUs = targets[0] ? costOf(targets[0]) : Number.NaN;
  const controlTarget = targets.find((t) => t.name === CONTROL);
  const controlUs = controlTarget ? costOf(controlTarget) : Number.NaN;
  const gap = controlUs - rawUs;
  const rows = [
    ['hub, every step on (the reference, in every pair)', fmt(fullUs, 1), '', '', '', ''],
    ...targets.map((t) => {
      const c = costOf(t);
      // a step turned off saves (control - c); the access log adds (c - control)
      const delta = t.name.includes('access log') ? c - controlUs : controlUs - c;
      const step = t.name.startsWith('hub with');
      return [
        t.name,
        fmt(c, 1),
        t.ratios.map((r) => fmt(r, 2)).join(' '),
        step ? fmt(delta, 1) : '',
        step ? `${fmt((delta / controlUs) * 100)}%` : '',
        step ? `${fmt((delta / gap) * 100)}%` : '',
      ];
    }),
  ];
  printTable(['target', 'CPU µs/req', 'rounds (÷ hub)', 'step µs', 'share of hub', 'share of gap'], rows);
  console.log(
    `  CPU per request of the server process, all threads; steps priced against the control; control − raw = ${fmt(gap, 1)} µs (raw's cost is ${fmt((rawUs / controlUs) * 100)}% of the control's)`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
