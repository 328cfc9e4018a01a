import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { median } from './lib/table.js';

export interface LoadOptions {
  connections: number;
  /** seconds */
  duration: number;
  /** keys to rotate across requests (the raw server gets the same ones, and ignores them) */
  keys: readonly string[];
  /** send them as `Authorization: Bearer` (OAuth access tokens) instead of `x-api-key` */
  bearer?: boolean;
  /** requests per second over all connections (default: as fast as the server answers) */
  rate?: number;
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
 * The load runs in a worker thread and posts back autocannon's unaggregated result, whose encoded
 * latency histogram lets several rounds be pooled into one p50/p99.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const autocannon = require(${JSON.stringify(createRequire(import.meta.url).resolve('autocannon'))});
autocannon({ ...workerData, skipAggregateResult: true }).then((result) => parentPort.postMessage(result));
`;

/** One run's figures, plus its unaggregated autocannon result for pooling with other rounds. */
export interface LoadRun extends LoadStats {
  raw: RawResult;
}

// autocannon's own merge of unaggregated results (histograms included); untyped in @types/autocannon
const { aggregateResult } = autocannon as unknown as {
  aggregateResult: (results: unknown[], options: { url: string }) => autocannon.Result;
};

/** The fields of an unaggregated result that req/s is computed from. */
interface RawResult {
  totalCompletedRequests: number;
  /** seconds */
  duration: number;
}

/** Latency and errors from autocannon's aggregate; req/s as completed requests over elapsed time. */
function statsOf(result: autocannon.Result, runs: readonly RawResult[]): LoadStats {
  const total = runs.reduce((sum, r) => sum + r.totalCompletedRequests, 0);
  const seconds = runs.reduce((sum, r) => sum + r.duration, 0);
  return {
    rps: total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bad: result.non2xx + result.errors + result.timeouts,
    total,
  };
}

/**
 * Loads `url` + `path` with autocannon in a worker thread, so the load generator never competes
 * with the servers for this process's event loop. Pipelining 1: one request in flight per connection.
 * Each connection cycles through one prebuilt request per key: no per-request JavaScript in the
 * load generator, and the same request bytes whichever server is loaded.
 */
export async function runLoad(url: string, path: string, options: LoadOptions): Promise<LoadRun> {
  const requests = options.keys.length
    ? options.keys.map((key) => ({
        method: 'GET' as const,
        path,
        headers: options.bearer ? { authorization: `Bearer ${key}` } : { 'x-api-key': key },
      }))
    : [{ method: 'GET' as const, path }];
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      url,
      connections: options.connections,
      duration: options.duration,
      pipelining: 1,
      requests,
      ...(options.rate ? { overallRate: options.rate } : {}),
    } satisfies autocannon.Options,
  });
  const raw = await new Promise<RawResult>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  return { ...statsOf(aggregateResult([raw], { url }), [raw]), raw };
}

/**
 * One figure from several rounds of the same target: the median round's req/s, and p50/p99 over
 * every request of every round (autocannon merges the rounds' latency histograms).
 */
export function combineRounds(url: string, rounds: readonly LoadRun[]): LoadStats {
  const raws = rounds.map((r) => r.raw);
  const pooled = statsOf(aggregateResult(raws, { url }), raws);
  return { ...pooled, rps: median(rounds.map((r) => r.rps)) };
}

/** Each round's target req/s against the baseline measured just before it, and their median. */
export function pairedRatios(
  target: readonly LoadStats[],
  baseline: readonly LoadStats[],
): { ratio: number; rounds: number[] } {
  const rounds = target.map((t, i) => t.rps / (baseline[i]?.rps ?? Number.NaN));
  return { ratio: median(rounds), rounds };
}

/**
 * `rounds` runs of a baseline and of a target back to back, the baseline first in even rounds and the
 * target first in odd ones: a steady drift in a shared machine's speed then favours neither side.
 */
export async function pairedRounds(
  rounds: number,
  baseline: () => Promise<LoadRun>,
  target: () => Promise<LoadRun>,
): Promise<{ baseline: LoadRun[]; target: LoadRun[] }> {
  const runs = { baseline: [] as LoadRun[], target: [] as LoadRun[] };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) runs.baseline.push(await baseline());
    runs.target.push(await target());
    if (round % 2 === 1) runs.baseline.push(await baseline());
  }
  return runs;
}

/** One side of a comparison: where to send the load, and how. */
export interface LoadTarget {
  url: string;
  path: string;
  options: LoadOptions;
}

export interface Comparison {
  target: LoadStats;
  baseline: LoadStats;
  /** median of the per-round ratios of target to baseline req/s */
  ratio: number;
  rounds: number[];
  /** non-2xx responses and errors on either side: any makes the comparison invalid */
  bad: number;
}

/** A target against a baseline over `rounds` paired rounds: both sides' figures and their ratio. */
export async function compareLoads(
  rounds: number,
  baseline: LoadTarget,
  target: LoadTarget,
): Promise<Comparison> {
  const run = (side: LoadTarget) => () => runLoad(side.url, side.path, side.options);
  const runs = await pairedRounds(rounds, run(baseline), run(target));
  const base = combineRounds(baseline.url, runs.baseline);
  const measured = combineRounds(target.url, runs.target);
  return {
    target: measured,
    baseline: base,
    ...pairedRatios(runs.target, runs.baseline),
    bad: base.bad + measured.bad,
  };
}
