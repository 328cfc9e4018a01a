import autocannon from 'autocannon';

export interface LoadOptions {
  connections: number;
  /** seconds */
  duration: number;
  /** keys to rotate across requests (the raw server gets the same ones, and ignores them) */
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
 * Loads `url` + `path` with autocannon in a worker thread, so the load generator never competes
 * with the servers for this process's event loop. Pipelining 1: one request in flight per connection.
 * Each connection cycles through one prebuilt request per key: no per-request JavaScript in the
 * load generator, and the same request bytes whichever server is loaded.
 */
export async function runLoad(url: string, path: string, options: LoadOptions): Promise<LoadStats> {
  const requests = options.keys.length
    ? options.keys.map((key) => ({ method: 'GET' as const, path, headers: { 'x-api-key': key } }))
    : [{ method: 'GET' as const, path }];
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.duration,
    pipelining: 1,
    workers: 1,
    requests,
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
