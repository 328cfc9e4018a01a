import type { FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { StoreHealth } from './rate-limit-store.js';
import { registerRequestSeries, RequestSeriesSet, type RequestSeries } from './request-series.js';

/** Where a batch of ingested lines or events came from. */
export type IngestSource = 'http_logs' | 'http_events' | 'udp';

/**
 * The service's Prometheus metrics, one registry per process (each app built in a test has its
 * own). Parts of the service are handed the narrow recorder they need (`IngestRecorder`,
 * `PollRecorder`, ...), never the registry.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly ingest: IngestRecorder;
  readonly poll: PollRecorder;
  readonly store: StoreRecorder;
  /** a request refused for its quota, by the tier of the key (or app) that spent it */
  quotaRejected(tier: string): void;
  /** one answered request: its route pattern (not its URL), method, status and time taken */
  request(route: string, method: string, status: number, seconds: number): void;
  /** the series of one route pattern and method, for a hot path that records many requests */
  seriesFor(route: string, method: string): RequestSeries;
}

export interface IngestRecorder {
  /** lines or events of one batch: accepted (parsed or valid) and rejected (malformed or invalid) */
  received(source: IngestSource, accepted: number, rejected: number): void;
  /** datagrams refused for their secret or source address */
  unauthorized(source: IngestSource): void;
  /** kills written by one batch's transaction */
  kills(source: IngestSource, count: number): void;
}

export interface PollRecorder {
  /** one round of the status poller: servers that answered, servers that did not */
  round(online: number, failed: number): void;
  /** a round that could not run (the database failed) */
  roundFailed(): void;
}

/** Callbacks (handed to the Redis link as they are, hence properties rather than methods). */
export interface StoreRecorder {
  /** a failed command or connection error of the shared (Redis) store */
  failure: () => void;
  /** the shared store went between reachable and not */
  state: (health: StoreHealth) => void;
}

/** The label of requests no route matched: their URLs are not labels (one series per probe). */
export const UNMATCHED_ROUTE = 'unmatched';

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });

  // every series of this registry only, its label names fixed (typed) at declaration
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter({ name, help, labelNames, registers });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge({ name, help, labelNames, registers });
  const requests = new RequestSeriesSet();
  registerRequestSeries(registry, requests);
  const quotaRejections = counter(
    'hub_quota_rejections_total',
    'Requests refused with 429 rate_limited for their hourly quota, by tier',
    ['tier'],
  );
  const ingestLines = counter(
    'hub_ingest_lines_total',
    'Log lines and JSON events received from game servers and accepted, by source',
    ['source'],
  );
  const ingestRejections = counter(
    'hub_ingest_rejections_total',
    'Log lines, events or datagrams refused, by source and reason (invalid, unauthorized)',
    ['source', 'reason'],
  );
  const ingestKills = counter(
    'hub_ingest_kills_total',
    'Kills recorded from ingested lines and events, by source',
    ['source'],
  );
  const pollResults = counter(
    'hub_poller_results_total',
    'Game-server status queries, by result (online: answered, failed: no answer in time), and rounds that could not run (error)',
    ['result'],
  );
  const storeFailures = counter(
    'hub_store_failures_total',
    'Failed commands and connection errors of the shared rate-limit store (Redis)',
    ['store'],
  );
  const storeUp = gauge(
    'hub_store_up',
    'Whether the shared rate-limit store (Redis) is reachable (1) or quotas count per instance (0)',
    ['store'],
  );

  return {
    registry,
    request(route, method, status, seconds) {
      requests.for(route, method).observe(status, seconds);
    },
    seriesFor: (route, method) => requests.for(route, method),
    quotaRejected: (tier) => quotaRejections.inc({ tier }),
    ingest: {
      received(source, accepted, rejected) {
        if (accepted > 0) ingestLines.inc({ source }, accepted);
        if (rejected > 0) ingestRejections.inc({ source, reason: 'invalid' }, rejected);
      },
      unauthorized: (source) => ingestRejections.inc({ source, reason: 'unauthorized' }),
      kills(source, count) {
        if (count > 0) ingestKills.inc({ source }, count);
      },
    },
    poll: {
      round(online, failed) {
        if (online > 0) pollResults.inc({ result: 'online' }, online);
        if (failed > 0) pollResults.inc({ result: 'failed' }, failed);
      },
      roundFailed: () => pollResults.inc({ result: 'error' }),
    },
    store: {
      failure: () => storeFailures.inc({ store: 'redis' }),
      state: (health) => storeUp.set({ store: 'redis' }, health.status === 'ok' ? 1 : 0),
    },
  };
}

/**
 * The onResponse hook that counts and times every answered request. Routes are labelled by their
 * pattern (`/api-platform/v1/users/:id`), so the number of series is bounded by the routes.
 */
export function requestMetricsHook(metrics: Metrics) {
  return function observeRequest(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    // the pipeline's routes name their series up front (request.routeOptions builds an object per call)
    const series =
      request.metricsSeries ?? metrics.seriesFor(request.routeOptions.url ?? UNMATCHED_ROUTE, request.method);
    series.observe(reply.statusCode, reply.elapsedTime / 1000);
    done();
  };
}
