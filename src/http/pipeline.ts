import type { FastifyContextConfig, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { KeysRepo } from '../modules/keys/repo.js';
import { recordUsageStep } from '../modules/usage/plugin.js';
import type { UsageRecorder } from '../modules/usage/recorder.js';
import type { AccessTokenVerifier } from './access-tokens.js';
import { apiKeyAuthHook } from './api-key-auth.js';
import { bearerAuthHook, requireScopeStep } from './bearer-auth.js';
import { cacheHitStep } from './cache-hit.js';
import { corsStep } from './cors.js';
import { claimIdempotencyKey, recordIdempotentResponse, type IdempotencyStore } from './idempotency.js';
import {
  asArray,
  CONTINUE,
  requestSequence,
  sendSequence,
  type RequestStep,
  type SendStep,
} from './pipeline-steps.js';
import { consumeQuotaHook, quotaHeadersHook } from './quota.js';
import type { RateLimitStore } from './rate-limit-store.js';
import { etagHook, serveFromCacheHook, type ResponseCache } from './response-cache.js';
import type { QuotaSubject } from './request-context.js';
import type { RequestSeries } from './request-series.js';
import { ALL_STEPS_ON, type StepsOff } from './pipeline-switches.js';
import { benchStandIns } from './bench-stand-ins.js';
import './request-context.js';

export interface PipelineOptions {
  keys: KeysRepo;
  rateLimitStore: RateLimitStore;
  cache: ResponseCache;
  usage: UsageRecorder;
  now: () => number;
  /** resolves OAuth access tokens on bearer routes (absent: only API keys pass there) */
  accessTokens?: AccessTokenVerifier;
  /** where Idempotency-Keys of state-changing routes are claimed and their answers kept */
  idempotency?: IdempotencyStore;
  /** told of every request refused for its quota (metrics) */
  onQuotaRejected?: (subject: QuotaSubject) => void;
  /** the metrics series of a route (its requests are counted there without looking it up) */
  seriesFor?: (route: string, method: string) => RequestSeries;
  /** steps the pipeline benchmark turns off (none otherwise) */
  stepsOff?: StepsOff;
}

/**
 * Attaches the cross-cutting steps a route declares in its `config`, in one fixed order, as one
 * hook per phase (Fastify pays for one hook instead of one per step):
 *   onRequest: CORS headers -> authenticate (x-api-key, or bearer + scope; a key's allowed
 *              origins) -> consume quota -> serve from cache
 *   preHandler: claim the Idempotency-Key (after validation: the body is part of the claim)
 *   onSend:    ETag/store -> store the idempotent answer -> quota headers (so a 304 is known
 *              before the quota is reported) -> count usage (by the final status)
 */
export const pipelinePlugin = fp<PipelineOptions>(
  (app: FastifyInstance, options) => {
    const off = options.stepsOff ?? ALL_STEPS_ON;
    const standIn = benchStandIns(options.now);
    const authenticate = off.has('keyLookup')
      ? standIn.authenticate(apiKeyAuthHook(options.keys))
      : apiKeyAuthHook(options.keys);
    const authenticateBearer = bearerAuthHook(options.keys, options.accessTokens);
    const consumeQuota = off.has('quota')
      ? standIn.consumeQuota
      : consumeQuotaHook(options.rateLimitStore, options.now, options.onQuotaRejected);
    const serveFromCache = serveFromCacheHook(options.cache, options.now);
    const tagAndStore = etagHook(options.cache, options.now);
    const writeQuotaHeaders = quotaHeadersHook(options.rateLimitStore, options.now);
    const recordUsage = recordUsageStep(options.usage, options.now);
    // A hit of a key-authenticated read is answered whole by one step (cache-hit.ts), doing what
    // the onSend steps below would do for it: the quota headers and usage counting.
    // The bench's switches (pipeline-switches.ts) each take out one step of this one path.
    const serveHit = cacheHitStep({
      cache: options.cache,
      now: options.now,
      quotaHeaders: !off.has('quotaHeaders'),
      ...(off.has('usage') ? {} : { recordUsage: (id, at, status) => options.usage.record(id, at, status) }),
      ...(off.has('cache') ? { lookup: standIn.lookup(options.cache) } : {}),
    });
    const answersHits = (config: FastifyContextConfig) => config.auth !== undefined && !config.idempotency;
    const idempotency = options.idempotency;
    const recordIdempotent = idempotency && recordIdempotentResponse(idempotency, options.now);
    // Declared up front, so every request object is built with the same shape and the property
    // accesses on the hot path stay monomorphic (instead of each step adding a property).
    app.decorateRequest('apiKey', undefined);
    app.decorateRequest('principal', undefined);
    app.decorateRequest('quotaSubject', undefined);
    app.decorateRequest('quota', undefined);
    app.decorateRequest('servedFromCache', false);
    app.decorateRequest('idempotency', undefined);
    app.decorateRequest('metricsSeries', undefined);

    app.addHook('onRoute', (route) => {
      const config = route.config;
      if (!config) return;
      const onRequest: RequestStep[] = [];
      const onSend: SendStep[] = [];
      // CORS first: a refusal by any later step is readable by the calling page too
      if (config.auth !== undefined && !off.has('cors')) onRequest.push(corsStep);
      if (config.auth === 'apiKey') onRequest.push(authenticate, consumeQuota);
      if (config.auth === 'bearer') {
        // the scope is checked before the quota: a credential refused for its scope spends nothing
        onRequest.push(authenticateBearer, requireScopeStep(config.scope, config.userContext === true));
        onRequest.push(consumeQuota);
      }
      if (config.cache) {
        // With the cache off (CACHE_TTL_MS=0) only ETags and 304s remain: nothing to look up or store.
        if (options.cache.ttlMs > 0) onRequest.push(answersHits(config) ? serveHit : serveFromCache);
        onSend.push(tagAndStore);
      }
      if (config.idempotency) {
        if (!idempotency || !recordIdempotent || config.auth !== 'bearer')
          throw new Error(`${route.url}: idempotency needs a bearer route and an idempotency store`);
        route.preHandler = [
          ...asArray(route.preHandler),
          claimIdempotencyKey(
            idempotency,
            config.idempotency,
            options.now,
            config.idempotencyInTransaction === true,
          ),
        ];
        onSend.push(recordIdempotent);
      }
      if (config.auth !== undefined) {
        if (!off.has('quotaHeaders')) onSend.push(writeQuotaHeaders);
        if (!off.has('usage')) onSend.push(recordUsage);
      }
      if (onRequest.length && options.seriesFor && !off.has('metrics') && typeof route.method === 'string') {
        const series = options.seriesFor(route.url, route.method);
        onRequest.unshift((request) => {
          request.metricsSeries = series;
          return CONTINUE;
        });
      }
      if (onRequest.length) route.onRequest = [...asArray(route.onRequest), requestSequence(onRequest)];
      // Ahead of the route's own onSend hooks: Fastify's HEAD twin of a GET ends with one that drops
      // the body, and the ETag must be computed from that body for HEAD to carry the GET's headers.
      if (onSend.length) route.onSend = [sendSequence(onSend), ...asArray(route.onSend)];
    });
  },
  { name: 'pipeline' },
);
