import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface LoadOptions {
  connections: number;
  /** seconds */
  duration: number;
  /** keys to rotate across requests (none for the raw server) */
  keys: readonly string[];
}

export interface LoadStats {
  rps: number;
  p50: number;
  p99: number;
  /** non-2xx responses plus transport errors and timeouts: any of them invalidates a run */
  bad: number;
  total: number;
}

/**
 * Key rotation runs inside autocannon's worker thread, so it must be a module it can require:
 * written once per run to a temp file, reading the keys from the environment the worker shares.
 */
let rotateModule: string | undefined;
function rotateKeyModule(): string {
  if (rotateModule) return rotateModule;
  const file = join(mkdtempSync(join(tmpdir(), 'hub-bench-')), 'rotate-key.cjs');
  writeFileSync(
    file,
    `const keys = (process.env.HUB_BENCH_KEYS || '').split(',').filter(Boolean);
let i = Math.floor(Math.random() * Math.max(1, keys.length));
module.exports = (req) => {
  if (keys.length) req.headers = Object.assign({}, req.headers, { 'x-api-key': keys[i++ % keys.length] });
  return req;
};
`,
  );
  rotateModule = file;
  return file;
}

/**
 * Loads `url` + `path` with autocannon in a worker thread, so the load generator never competes
 * with the servers for this process's event loop. Pipelining 1: one request in flight per connection.
 */
export async function runLoad(url: string, path: string, options: LoadOptions): Promise<LoadStats> {
  process.env.HUB_BENCH_KEYS = options.keys.join(',');
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.duration,
    pipelining: 1,
    workers: 1,
    requests: [{ method: 'GET', path, setupRequest: rotateKeyModule() }],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bad: result.non2xx + result.errors + result.timeouts,
    total: result.requests.total,
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/**
 * One figure from several rounds of the same target: median req/s and p50, the worst p99 (the
 * latency target must hold in every round), and every bad response counted.
 */
export function combineRounds(rounds: readonly LoadStats[]): LoadStats {
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: Math.max(...rounds.map((r) => r.p99)),
    bad: rounds.reduce((sum, r) => sum + r.bad, 0),
    total: rounds.reduce((sum, r) => sum + r.total, 0),
  };
}

/** Each round's target req/s against the baseline measured just before it, and their median. */
export function pairedRatios(
  target: readonly LoadStats[],
  baseline: readonly LoadStats[],
): { ratio: number; rounds: number[] } {
  const rounds = target.map((t, i) => t.rps / (baseline[i]?.rps ?? Number.NaN));
  return { ratio: median(rounds), rounds };
}
