import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './db/connect.js';
import type { App } from './http/app-types.js';
import { API_PREFIX, registerDocs, registerDocsRoutes } from './http/docs.js';
import { errorsPlugin } from './http/errors.js';
import { pipelinePlugin } from './http/pipeline.js';
import { MemoryRateLimitStore, type RateLimitStore } from './http/rate-limit-store.js';
import { ResponseCache } from './http/response-cache.js';
import { keysRepo } from './modules/keys/repo.js';
import { usersRepo } from './modules/users/repo.js';
import { usersRoutes } from './modules/users/routes.js';
import { ingestPipeline } from './ingest/pipeline.js';
import { serversRepo } from './ingest/servers-repo.js';
import { INGEST_PREFIX, ingestRoutes } from './modules/ingest/routes.js';

export interface AppDeps {
  db: Db;
  config: Pick<Config, 'LOG_LEVEL' | 'CACHE_TTL_MS' | 'TRUST_PROXY'>;
  rateLimitStore?: RateLimitStore;
  /** the clock, injectable so tests can cross hour boundaries */
  now?: () => number;
}

let requestCounter = 0;
const instanceTag = Math.random().toString(36).slice(2, 8);

/** Builds the whole service without listening; tests drive it with `inject()`. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const now = deps.now ?? Date.now;
  const app = Fastify({
    logger: {
      level: deps.config.LOG_LEVEL,
      redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
    },
    trustProxy: deps.config.TRUST_PROXY,
    genReqId: () => `${instanceTag}-${(++requestCounter).toString(36)}`,
    requestIdHeader: false,
    bodyLimit: 1_048_576,
    ajv: { customOptions: { verbose: true, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>() as App;

  const rateLimitStore = deps.rateLimitStore ?? new MemoryRateLimitStore();
  const cache = new ResponseCache(deps.config.CACHE_TTL_MS);
  app.decorate('responseCache', cache);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onClose', async () => {
    await rateLimitStore.close();
  });

  await app.register(errorsPlugin);
  await registerDocs(app);
  await app.register(pipelinePlugin, { keys: keysRepo(deps.db.kysely), rateLimitStore, cache, now });

  await app.register(
    async (v1: App) => {
      usersRoutes(usersRepo(deps.db.kysely))(v1);
    },
    { prefix: API_PREFIX },
  );
  await app.register(
    ingestRoutes({ servers: serversRepo(deps.db.kysely), pipeline: ingestPipeline(deps.db, now) }),
    { prefix: INGEST_PREFIX },
  );
  await registerDocsRoutes(app);
  await app.ready();
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    responseCache: ResponseCache;
  }
}
