import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyRequest,
  type RouteOptions,
} from 'fastify';
import { pino } from 'pino';
import type { Config } from './config.js';
import type { Db } from './db/connect.js';
import type { SecretKey } from './engines/secret-box.js';
import { pingDatabase } from './db/ping.js';
import type { AccessTokenVerifier } from './http/access-tokens.js';
import type { App } from './http/app-types.js';
import { registerDocs, registerDocsRoutes } from './http/docs.js';
import { API_PREFIX, V1_PREFIX } from './http/paths.js';
import { registerAccessLog } from './http/access-log.js';
import { lazyChildLoggerFactory } from './http/lazy-logger.js';
import { createMetrics, requestMetricsHook, type Metrics } from './http/metrics.js';
import { errorsPlugin } from './http/errors.js';
import { strictIntegersPlugin } from './http/strict-integers.js';
import { validatorsByPart } from './http/validation.js';
import { clientLimitOptions, DEFAULT_TIMEOUTS } from './http/client-errors.js';
import { corsPreflightPlugin } from './http/cors.js';
import { jsonBodyPlugin } from './http/json-body.js';
import { requestBasicsPlugin } from './http/request-basics.js';
import { nextRequestId } from './http/request-id.js';
import { pipelinePlugin } from './http/pipeline.js';
import { benchStandIns } from './http/bench-stand-ins.js';
import { ALL_STEPS_ON, type StepsOff } from './http/pipeline-switches.js';
import type { RateLimitStore } from './http/rate-limit-store.js';
import { ResponseCache } from './http/response-cache.js';
import { accountsRepo } from './modules/accounts/repo.js';
import { accountsService } from './modules/accounts/service.js';
import type { ThrottleStore } from './modules/accounts/throttle.js';
import { avatarRoutes } from './modules/avatars/routes.js';
import { clansStore } from './modules/clans/repo.js';
import { clansService } from './modules/clans/service.js';
import { clansV1Routes } from './modules/clans/v1-routes.js';
import { achievementsRepo } from './modules/achievements/repo.js';
import { achievementsRoutes } from './modules/achievements/routes.js';
import { economyRepo } from './modules/economy/repo.js';
import { economyRoutes } from './modules/economy/routes.js';
import { economyService } from './modules/economy/service.js';
import { eloRepo } from './modules/elo/repo.js';
import { eloRoutes } from './modules/elo/routes.js';
import { forumRepo } from './modules/forum/repo.js';
import { forumRoutes } from './modules/forum/routes.js';
import { keysRepo } from './modules/keys/repo.js';
import { killboardRepo } from './modules/killboard/repo.js';
import { killboardRoutes } from './modules/killboard/routes.js';
import { leaderboardsRepo } from './modules/leaderboards/repo.js';
import { leaderboardsRoutes } from './modules/leaderboards/routes.js';
import { portalKeysService } from './modules/portal/keys-service.js';
import { portalFlashes } from './modules/portal/flash.js';
import { registerPortal } from './modules/portal/plugin.js';
import { portalRepo } from './modules/portal/repo.js';
import { serversRepo } from './modules/servers/repo.js';
import { serversRoutes } from './modules/servers/routes.js';
import { serversV1Routes } from './modules/servers/v1-routes.js';
import { serverCommandsRepo } from './modules/servers/commands/repo.js';
import { ingestAuth } from './modules/servers/ingest-auth.js';
import { pluginServerRoutes } from './modules/servers/plugin-routes.js';
import { pluginCommandRoutes } from './modules/servers/commands/queue/ingest-routes.js';
import { pluginQueueRepo } from './modules/servers/commands/queue/repo.js';
import { pluginQueue } from './modules/servers/commands/queue/service.js';
import { QueueSignals } from './modules/servers/commands/queue/signals.js';
import { serverCommandsService } from './modules/servers/commands/service.js';
import { serverOperatorsV1Route } from './modules/servers/commands/operators-route.js';
import { serverCommandsV1Routes } from './modules/servers/commands/v1-routes.js';
import { runRconCommand } from './modules/servers/rcon/index.js';
import { tournamentsRepo } from './modules/tournaments/repo.js';
import { tournamentsRoutes } from './modules/tournaments/routes.js';
import { tournamentsV1Routes } from './modules/tournaments/v1-routes.js';
import { usagePlugin } from './modules/usage/plugin.js';
import { UsageRecorder } from './modules/usage/recorder.js';
import { usageRepo } from './modules/usage/repo.js';
import { usersRepo } from './modules/users/repo.js';
import { usersRoutes } from './modules/users/routes.js';
import { userStatsV1Route } from './modules/users/v1-routes.js';
import { meRoute } from './modules/users/me-route.js';
import { webRoutes } from './modules/portal/pages/routes.js';
import { ingestPipeline } from './modules/ingest/pipeline.js';
import { timeWindow } from './modules/ingest/time-window.js';
import { idempotencyRepo } from './modules/idempotency/repo.js';
import { INGEST_PREFIX, ingestRoutes } from './modules/ingest/routes.js';
import { identityIngestRoutes } from './modules/identities/ingest-routes.js';
import { identityService } from './modules/identities/service.js';
import { identityV1Routes } from './modules/identities/v1-routes.js';
import { identityWebRoutes } from './modules/identities/web-routes.js';
import { opsRoutes } from './modules/ops/routes.js';
import { openStores, type StoresConfig } from './stores.js';
import type { Broadcast } from './http/broadcast.js';
import { appsRepo } from './modules/apps/repo.js';
import { appRoutes } from './modules/apps/routes.js';
import { appsService } from './modules/apps/service.js';
import { appWebRoutes } from './modules/apps/web-routes.js';
import { authorizedAppRoutes } from './modules/oauth/authorized-apps.js';
import { authorizedAppPages } from './modules/oauth/authorized-pages.js';
import type { Resolver } from './modules/webhooks/delivery/ssrf.js';
import { webhooksService } from './modules/webhooks/service.js';
import { webhooksV1Routes } from './modules/webhooks/v1-routes.js';
import { webhookTester } from './modules/webhooks/test-send.js';
import { webhookTestRoute } from './modules/webhooks/test-route.js';
import { webhookWebRoutes } from './modules/webhooks/web-routes.js';
import { OAuthServer } from './modules/oauth/server.js';
import { eventsRepo } from './modules/events/repo.js';
import { openEventStreams } from './modules/events/stream/open.js';
import { eventsV1Routes } from './modules/events/v1-routes.js';
import { eventWebhooks } from './modules/events/openapi-webhooks.js';
import { eventTypesRoute } from './modules/events/types-route.js';

/** RCON_TIMEOUT_MS's default, for an app built without the whole config (tests) */
const DEFAULT_RCON_TIMEOUT_MS = 5000;
/** PLUGIN_COMMAND_TTL's default (seconds), likewise */
const DEFAULT_PLUGIN_COMMAND_TTL_S = 60;

export interface AppDeps {
  db: Db;
  /** with REDIS_URL (and its companions) the quota and throttle stores are shared through Redis */
  config: Pick<Config, 'LOG_LEVEL' | 'CACHE_TTL_MS' | 'TRUST_PROXY'> &
    Partial<
      Pick<
        Config,
        | 'METRICS_TOKEN'
        | 'REQUEST_HEADERS_TIMEOUT_MS'
        | 'REQUEST_TIMEOUT_MS'
        | 'INGEST_MAX_AGE_DAYS'
        | 'EVENTS_STREAM_POLL_MS'
        | 'EVENTS_STREAM_HEARTBEAT_MS'
        | 'EVENTS_STREAM_MAX_BUFFER_BYTES'
        | 'WEBHOOKS_ALLOW_PRIVATE_TARGETS'
        | 'RCON_TIMEOUT_MS'
        | 'PLUGIN_COMMAND_TTL'
        | 'KEY_CACHE_MS'
      >
    > &
    StoresConfig;
  /** a quota store of the caller's instead of the one the config selects */
  rateLimitStore?: RateLimitStore;
  /** where log lines go (default stdout); tests capture them */
  logStream?: { write(line: string): void };
  /** the clock, injectable so tests can cross hour boundaries */
  now?: () => number;
  /** sign-in and sign-up counters of the caller's instead of the ones the config selects */
  throttle?: ThrottleStore;
  /** how often buffered usage counts are written (default 5 s) */
  usageFlushMs?: number;
  /** resolves OAuth access tokens on /v1 routes (tests of the pipeline's rules may hand their own) */
  accessTokens?: AccessTokenVerifier;
  /** the OAuth issuer: the service's public origin (default http://localhost, what inject() uses) */
  issuer?: string;
  /** the process's metrics, shared with what runs beside the app (the embedded worker) */
  metrics?: Metrics;
  /** seals RCON passwords (HUB_SECRET_KEY); without it server commands answer 503 */
  secretKey?: SecretKey;
  /** pipeline steps turned off, for the pipeline benchmark only (bench/pipeline.ts); none by default */
  stepsOff?: StepsOff;
  /**
   * resolves webhook hosts when a webhook is registered, changed or test-sent (default: the
   * system's `dns.lookup`); tests hand their own so that no test reaches a real DNS server
   */
  lookup?: Resolver;
  /**
   * requests left out of the access log: `npm start`'s demo game server posts a batch every 400 ms,
   * which would bury the newcomer's own requests (it reports each match on stdout instead)
   */
  quietAccessLog?: (request: FastifyRequest) => boolean;
  /** told of every route as it is added (tests walk the route table: test/route-table.test.ts) */
  onRoute?: (route: RouteOptions) => void;
}

/** Builds the whole service without listening; tests drive it with `inject()`. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const now = deps.now ?? Date.now;
  const logOptions = {
    level: deps.config.LOG_LEVEL,
    redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
  };
  // stdout unless a stream is given (tests capture lines)
  const log = deps.logStream ? pino(logOptions, deps.logStream) : pino(logOptions);
  const app = Fastify({
    // The logger is ours, not Fastify's: given a logger, Fastify adds 'finish' and 'error' listeners
    // to every response (to time it for request logging, which our access log does itself, and
    // only at info and below). Request loggers are children of ours (lazyChildLoggerFactory), and
    // `app.log` is set to ours below, so every line Fastify or the app writes still goes through it.
    logger: false,
    trustProxy: deps.config.TRUST_PROXY,
    // the pipeline bench prices the id with a stand-in that makes none (pipeline-switches.ts)
    genReqId: deps.stepsOff?.has('requestId') ? benchStandIns(now).requestId : nextRequestId,
    childLoggerFactory: lazyChildLoggerFactory(log),
    requestIdHeader: false,
    // our access log writes one line per request instead of Fastify's two
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1_048_576,
    ajv: { customOptions: { verbose: true, allErrors: false } },
    // bodies are checked exactly as published; URL parts are text converted by their schemas
    schemaController: { compilersFactory: { buildValidator: validatorsByPart() } },
    // timeouts, header and path limits, and problem answers for what the router or Node refuses
    ...clientLimitOptions(
      {
        headersMs: deps.config.REQUEST_HEADERS_TIMEOUT_MS ?? DEFAULT_TIMEOUTS.headersMs,
        requestMs: deps.config.REQUEST_TIMEOUT_MS ?? DEFAULT_TIMEOUTS.requestMs,
      },
      log,
    ),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.log = log;
  if (deps.onRoute) app.addHook('onRoute', deps.onRoute);
  const metrics = deps.metrics ?? createMetrics();

  const stores = await openStores(deps.config, {
    db: deps.db.kysely,
    log,
    onStateChange: metrics.store.state,
    onFailure: metrics.store.failure,
    onFleetSize: metrics.store.fleet,
    given: {
      ...(deps.rateLimitStore ? { rateLimitStore: deps.rateLimitStore } : {}),
      ...(deps.throttle ? { throttle: deps.throttle } : {}),
    },
  });
  const cache = new ResponseCache(deps.config.CACHE_TTL_MS);
  // one of each: the pipeline and the portal share the compiled key lookup and usage statements
  const keys = keysRepo(deps.db.kysely, {
    reader: deps.db.reader,
    cacheMs: deps.config.KEY_CACHE_MS,
    now,
  });
  const usageRows = usageRepo(deps.db.kysely);
  // one repository of each feature, shared by the published API, the /v1 preview, OAuth and the portal
  const users = usersRepo(deps.db.kysely);
  const identities = identityService(deps.db, now);
  const appsRows = appsRepo(deps.db.kysely);
  const tournaments = tournamentsRepo(deps.db.kysely);
  const servers = serversRepo(deps.db.kysely);
  const elo = eloRepo(deps.db.kysely);
  const killboard = killboardRepo(deps.db.kysely);
  const achievements = achievementsRepo(deps.db.kysely);
  const stepsOff = deps.stepsOff ?? ALL_STEPS_ON;
  await app.register(requestBasicsPlugin, { stepsOff });
  registerAccessLog(app, { quiet: deps.quietAccessLog });
  if (!stepsOff.has('metrics')) app.addHook('onResponse', requestMetricsHook(metrics));
  app.addHook('onClose', async () => {
    await stores.close();
  });

  await app.register(errorsPlugin);
  await app.register(jsonBodyPlugin);
  await app.register(strictIntegersPlugin);
  await app.register(corsPreflightPlugin);
  await registerDocs(app, { webhooks: eventWebhooks() });
  const oauth = await OAuthServer.create({
    db: deps.db.kysely,
    issuer: deps.issuer ?? 'http://localhost',
    apps: appsRows,
    users,
    now,
    trustProxy: deps.config.TRUST_PROXY,
    onError: (err) => log.error({ err }, 'authorization server error'),
    broadcast: stores.broadcast,
  });
  app.decorate('oauth', oauth);
  app.decorate('broadcast', stores.broadcast);
  const usage = new UsageRecorder(usageRows, now);
  app.decorate('usageRecorder', usage);
  await app.register(pipelinePlugin, {
    keys,
    rateLimitStore: stores.rateLimitStore,
    cache,
    usage,
    now,
    idempotency: idempotencyRepo(deps.db.kysely, { reader: deps.db.reader }),
    onQuotaRejected: (subject) => metrics.quotaRejected(subject.tier),
    accessTokens: deps.accessTokens ?? oauth.verifier,
    seriesFor: (route, method) => metrics.seriesFor(route, method),
    stepsOff,
  });
  await app.register(usagePlugin, { recorder: usage, flushEveryMs: deps.usageFlushMs ?? 5000 });

  // commands for plugin-channel servers: a queue in the database, wake-ups through the broadcast
  const queueSignals = new QueueSignals(stores.broadcast);
  // long-polls answer at once on shutdown instead of holding it for up to 30 s
  app.addHook('preClose', (done) => {
    queueSignals.close();
    done();
  });
  const queue = pluginQueue({
    repo: pluginQueueRepo(deps.db.kysely),
    signals: queueSignals,
    now,
    ttlMs: (deps.config.PLUGIN_COMMAND_TTL ?? DEFAULT_PLUGIN_COMMAND_TTL_S) * 1000,
  });
  const events = eventsRepo(deps.db.kysely);
  const eventStreams = openEventStreams(
    app,
    { db: deps.db.kysely, config: deps.config, broadcast: stores.broadcast },
    events,
  );
  const webhooks = webhooksService(deps.db, {
    now,
    allowPrivateTargets: deps.config.WEBHOOKS_ALLOW_PRIVATE_TARGETS ?? false,
    resolve: deps.lookup,
  });
  await app.register(
    async (v1: App) => {
      usersRoutes(users)(v1);
      leaderboardsRoutes(leaderboardsRepo(deps.db.kysely))(v1);
      tournamentsRoutes(tournaments)(v1);
      serversRoutes(servers)(v1);
      forumRoutes(forumRepo(deps.db.kysely))(v1);
      achievementsRoutes(achievements)(v1);
      killboardRoutes(killboard, now)(v1);
      eloRoutes(elo)(v1);
    },
    { prefix: API_PREFIX },
  );
  // The preview surface (DESIGN.md): every /v1 feature registers here, each from its module's
  // v1-routes.ts, with v1Route (bearer credential, scope, {data, meta} envelope).
  await app.register(
    async (preview: App) => {
      tournamentsV1Routes(tournaments)(preview);
      serversV1Routes(servers, now)(preview);
      const serverCommands = serverCommandsService({
        repo: serverCommandsRepo(deps.db.kysely),
        key: deps.secretKey,
        run: runRconCommand,
        options: { timeoutMs: deps.config.RCON_TIMEOUT_MS ?? DEFAULT_RCON_TIMEOUT_MS },
        now,
        queue,
        onKeyProblem: (serverId, reason) =>
          log.error(
            { serverId, reason },
            'cannot decrypt the RCON password of a server: check HUB_SECRET_KEY',
          ),
      });
      serverCommandsV1Routes(serverCommands)(preview);
      serverOperatorsV1Route(serverCommands)(preview);
      userStatsV1Route({ users, elo, killboard, achievements })(preview);
      meRoute(users)(preview);
      identityV1Routes(identities)(preview);
      clansV1Routes(clansService(clansStore(deps.db.kysely), now))(preview);
      economyRoutes(economyService(economyRepo(deps.db), now))(preview);
      eventsV1Routes(events, eventStreams)(preview);
      webhooksV1Routes(webhooks)(preview);
      eventTypesRoute()(preview);
    },
    { prefix: V1_PREFIX },
  );
  const accounts = accountsService(accountsRepo(deps.db.kysely), stores.throttle, now);
  const portalKeys = portalKeysService({
    keys,
    usage: usageRows,
    recorder: usage,
    rateLimitStore: stores.rateLimitStore,
    now,
  });
  const flashes = portalFlashes(portalRepo(deps.db.kysely), now);
  const apps = appsService(appsRows, (clientId) => oauth.revokeClient(clientId), now);
  const tester = webhookTester(webhooks.repo, {
    now,
    allowPrivateTargets: deps.config.WEBHOOKS_ALLOW_PRIVATE_TARGETS ?? false,
    resolve: deps.lookup,
  });
  await registerPortal(app, {
    accounts,
    keys: portalKeys,
    pages: (web) => {
      webRoutes(accounts, portalKeys, flashes)(web);
      appWebRoutes(apps, accounts, flashes)(web);
      authorizedAppPages(oauth, appsRows, accounts, flashes, now)(web);
      webhookWebRoutes({ webhooks, tester, appsOf: (id) => apps.list(id), accounts, flashes })(web);
      identityWebRoutes(identities, accounts, flashes)(web);
    },
    signedInRoutes: (signedIn) => {
      appRoutes(apps)(signedIn);
      authorizedAppRoutes(oauth, appsRows, now)(signedIn);
      webhookTestRoute(tester)(signedIn);
    },
  });
  await app.register(
    ingestRoutes({
      servers,
      pipeline: ingestPipeline(deps.db, now, timeWindow(deps.config.INGEST_MAX_AGE_DAYS)),
      metrics: metrics.ingest,
      now,
      more: [identityIngestRoutes(identities, users)],
    }),
    { prefix: INGEST_PREFIX },
  );
  // the plugin's side of a game server (issue 26), on the ingest surface with the same token check
  await app.register(
    async (ingest: App) => {
      ingest.addHook('onRequest', ingestAuth(servers, now));
      pluginServerRoutes({ servers, now })(ingest);
      pluginCommandRoutes(queue)(ingest);
    },
    { prefix: INGEST_PREFIX },
  );
  await oauth.register(app, accounts);
  avatarRoutes()(app);
  opsRoutes({
    pingDatabase: (timeoutMs) => pingDatabase(deps.db.kysely, timeoutMs),
    ...(deps.config.REDIS_URL
      ? {
          redis: {
            health: () => stores.rateLimitStore.health(),
            fleetSize: () => stores.fleetSize(),
            failureMode: deps.config.RATE_LIMIT_STORE_FAILURE ?? 'open',
          },
        }
      : {}),
    metrics,
    ...(deps.config.METRICS_TOKEN ? { metricsToken: deps.config.METRICS_TOKEN } : {}),
  })(app);
  await registerDocsRoutes(app);
  await app.ready();
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    usageRecorder: UsageRecorder;
    oauth: OAuthServer;
    /** messages to every instance of the deployment (src/http/broadcast.ts) */
    broadcast: Broadcast;
  }
}
