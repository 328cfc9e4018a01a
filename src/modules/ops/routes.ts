import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import type { Metrics } from '../../http/metrics.js';
import { OPS_PATHS } from '../../http/paths.js';
import { errorResponses, ProblemError } from '../../http/problem.js';
import type { StoreHealth } from '../../http/rate-limit-store.js';
import type { StoreFailureMode } from '../../http/redis-link.js';
import { StringEnum } from '../../http/schemas.js';

export interface OpsDeps {
  /** one round trip to the database; rejects when it is unreachable or slower than `timeoutMs` */
  pingDatabase: (timeoutMs: number) => Promise<void>;
  /** the shared (Redis) store behind quotas and throttles, when REDIS_URL is set */
  redis?: { health(): StoreHealth; failureMode: StoreFailureMode; fleetSize(): number };
  metrics: Metrics;
  /** when set, /metrics wants `Authorization: Bearer <token>` */
  metricsToken?: string;
  /** how long the readiness probe waits for the database */
  databaseTimeoutMs?: number;
}

const CheckSchema = Type.Object({
  status: StringEnum(['ok', 'degraded', 'unreachable', 'not_configured'], {
    description:
      '`ok`; `degraded`: Redis is unreachable and quotas and sign-in throttles count per instance (RATE_LIMIT_STORE_FAILURE=open); `unreachable`; `not_configured`: no REDIS_URL, counters live in this process',
    examples: ['ok'],
  }),
  counting_alone: Type.Optional(
    Type.Object(
      {
        instances: Type.Integer({
          minimum: 1,
          description: 'the API instances this one last saw alive (heartbeats in Redis)',
          examples: [3],
        }),
        share: Type.String({
          description: 'the part of every quota and sign-in throttle this instance allows meanwhile',
          examples: ['1/3'],
        }),
      },
      {
        description:
          'Redis only, while it is unreachable and quotas fail open: this instance counts alone and allows 1/instances of each limit (of what was left of it)',
      },
    ),
  ),
});

const ReadinessSchema = Type.Object(
  {
    status: StringEnum(['ready', 'degraded'], {
      description:
        '`ready`: every dependency answers; `degraded`: serving, but quotas are counted per instance',
      examples: ['ready'],
    }),
    checks: Type.Object({ database: CheckSchema, redis: CheckSchema }),
  },
  { $id: 'Readiness', description: 'What this instance depends on, and whether each answers' },
);
export type ReadinessBody = Static<typeof ReadinessSchema>;

const HealthSchema = Type.Object(
  {
    status: Type.Literal('ok', { description: 'always `ok`: the process is running and answering' }),
    uptime_seconds: Type.Integer({
      minimum: 0,
      description: 'seconds since the process started',
      examples: [86400],
    }),
  },
  { $id: 'Health', description: 'Liveness of this process' },
);
export type HealthBody = Static<typeof HealthSchema>;

const METRICS_EXAMPLE = `# HELP hub_http_requests_total HTTP requests answered, by route pattern, method and status
# TYPE hub_http_requests_total counter
hub_http_requests_total{route="/api-platform/v1/users/:id",method="GET",status="200"} 1042
hub_quota_rejections_total{tier="free"} 3
hub_store_up{store="redis"} 1
`;

const DATABASE_TIMEOUT_MS = 2000;
const NO_STORE = 'no-store';
const documented = { tags: ['Operations'] };

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The operator's view, at the service root: `/health` (the process answers), `/ready` (its
 * database and Redis answer: what a load balancer asks before sending traffic) and `/metrics`
 * (Prometheus text format). None of them needs an API key or counts against a quota.
 */
export function opsRoutes(deps: OpsDeps) {
  const expectedToken = deps.metricsToken ? digest(deps.metricsToken) : undefined;
  const databaseTimeoutMs = deps.databaseTimeoutMs ?? DATABASE_TIMEOUT_MS;

  const checkMetricsToken = (request: FastifyRequest): void => {
    if (!expectedToken) return;
    const challenge = { headers: { 'www-authenticate': 'Bearer realm="metrics"' } };
    const header = request.headers.authorization;
    if (!header?.startsWith('Bearer '))
      throw new ProblemError(
        'missing_token',
        'Send the metrics token as Authorization: Bearer <token>.',
        challenge,
      );
    if (!timingSafeEqual(digest(header.slice(7).trim()), expectedToken))
      throw new ProblemError(
        'invalid_token',
        'The metrics token is not the one this service was given.',
        challenge,
      );
  };

  return (app: App): void => {
    app.addSchema(HealthSchema);
    app.addSchema(ReadinessSchema);

    app.get(
      OPS_PATHS.health,
      {
        schema: {
          ...documented,
          operationId: 'ops_health_get',
          summary: 'Liveness: the process answers',
          description:
            'Always `200` while the process runs and its event loop turns; it checks no dependency (that is `/ready`). For a container liveness probe: restart the process when this fails.',
          security: [],
          response: { 200: Type.Ref('Health') },
        },
      },
      (_request, reply): HealthBody => {
        void reply.header('cache-control', NO_STORE);
        return { status: 'ok', uptime_seconds: Math.floor(process.uptime()) };
      },
    );

    app.get(
      OPS_PATHS.ready,
      {
        schema: {
          ...documented,
          operationId: 'ops_ready_get',
          summary: 'Readiness: the database and Redis answer',
          description: `\`200\` when this instance can serve: the database answered a query within ${databaseTimeoutMs} ms, and Redis (with \`REDIS_URL\`) is reachable. With Redis unreachable and \`RATE_LIMIT_STORE_FAILURE=open\` (the default) it is still \`200\`, with \`status: degraded\`: requests are served and quotas count per instance until Redis is back. \`503 service_unavailable\` when the database does not answer, or Redis is unreachable and the failure mode is \`closed\` (keyed requests get 503 then). For a load balancer's health check.`,
          security: [],
          response: { 200: Type.Ref('Readiness'), ...errorResponses('service_unavailable') },
        },
      },
      async (_request, reply: FastifyReply): Promise<ReadinessBody> => {
        void reply.header('cache-control', NO_STORE);
        const database = await deps.pingDatabase(databaseTimeoutMs).then(
          () => ({ status: 'ok' as const }),
          (err: unknown) => {
            app.log.warn({ err }, 'readiness: the database did not answer');
            return { status: 'unreachable' as const };
          },
        );
        const redisHealth = deps.redis?.health();
        const redis = !redisHealth
          ? { status: 'not_configured' as const }
          : redisHealth.status === 'ok'
            ? { status: 'ok' as const }
            : deps.redis?.failureMode === 'closed'
              ? { status: 'unreachable' as const }
              : {
                  status: 'degraded' as const,
                  counting_alone: {
                    instances: deps.redis?.fleetSize() ?? 1,
                    share: `1/${deps.redis?.fleetSize() ?? 1}`,
                  },
                };
        const failing = [
          ...(database.status === 'unreachable' ? ['the database does not answer'] : []),
          ...(redis.status === 'unreachable'
            ? ['Redis is unreachable and RATE_LIMIT_STORE_FAILURE is closed']
            : []),
        ];
        if (failing.length)
          throw new ProblemError('service_unavailable', `Not ready: ${failing.join('; ')}.`, {
            headers: { 'cache-control': NO_STORE, 'retry-after': '5' },
          });
        return { status: redis.status === 'degraded' ? 'degraded' : 'ready', checks: { database, redis } };
      },
    );

    app.get(
      OPS_PATHS.metrics,
      {
        schema: {
          ...documented,
          operationId: 'ops_metrics_get',
          summary: 'Metrics in the Prometheus text format',
          description:
            'Counters and histograms of this process for a Prometheus scraper: `hub_http_requests_total` (by route pattern, method and status), `hub_http_request_duration_seconds` (latency histogram by route and method), `hub_quota_rejections_total` (by tier), `hub_ingest_lines_total`, `hub_ingest_rejections_total` and `hub_ingest_kills_total` (by source: `http_logs`, `http_events`, `udp`), `hub_poller_results_total` (`online`, `failed`, `error`), `hub_store_failures_total`, `hub_store_up` and `hub_store_fleet_instances` (Redis: while `hub_store_up` is 0 this instance counts alone and allows 1/`hub_store_fleet_instances` of every limit), and the Node.js process metrics (`process_*`, `nodejs_*`). Each instance reports its own; sum them in Prometheus. Open unless the operator sets `METRICS_TOKEN`, then `Authorization: Bearer <METRICS_TOKEN>` is required.',
          security: [{}, { metricsToken: [] }],
          response: {
            200: {
              description: 'The metrics of this process',
              content: { 'text/plain': { schema: { type: 'string', example: METRICS_EXAMPLE } } },
            },
            ...errorResponses('missing_token', 'invalid_token'),
          },
        },
      },
      async (request, reply) => {
        checkMetricsToken(request);
        const text = await deps.metrics.registry.metrics();
        return reply.header('cache-control', NO_STORE).type(deps.metrics.registry.contentType).send(text);
      },
    );
  };
}
