import Fastify, { type FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/connect.js';
import type { AccessTokenVerifier } from '../../src/http/access-tokens.js';
import { errorsPlugin } from '../../src/http/errors.js';
import { pipelinePlugin } from '../../src/http/pipeline.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit-store.js';
import { ResponseCache } from '../../src/http/response-cache.js';
import { idempotencyRepo } from '../../src/modules/idempotency/repo.js';
import { keysRepo } from '../../src/modules/keys/repo.js';
import { UsageRecorder } from '../../src/modules/usage/recorder.js';
import { usageRepo } from '../../src/modules/usage/repo.js';

/**
 * A bare Fastify app with the service's error handler and pipeline on a real database, and the
 * routes a test declares: for testing the pipeline's steps on routes no feature has yet.
 */
export async function pipelineApp(
  db: Db,
  accessTokens: AccessTokenVerifier,
  routes: (app: FastifyInstance) => void,
  now: () => number = Date.now,
): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await app.register(errorsPlugin);
  await app.register(pipelinePlugin, {
    keys: keysRepo(db.kysely, { reader: db.reader }),
    rateLimitStore: new MemoryRateLimitStore(),
    cache: new ResponseCache(0),
    usage: new UsageRecorder(usageRepo(db.kysely), now),
    now,
    accessTokens,
    idempotency: idempotencyRepo(db.kysely),
  });
  routes(app);
  await app.ready();
  return app;
}
