import type { FastifyInstance, onRequestAsyncHookHandler, onSendAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { KeysRepo } from '../modules/keys/repo.js';
import { apiKeyAuthHook } from './api-key-auth.js';
import { consumeQuotaHook, quotaHeadersHook } from './quota.js';
import type { RateLimitStore } from './rate-limit-store.js';
import { etagHook, serveFromCacheHook, type ResponseCache } from './response-cache.js';
import './request-context.js';

export interface PipelineOptions {
  keys: KeysRepo;
  rateLimitStore: RateLimitStore;
  cache: ResponseCache;
  now: () => number;
}

/**
 * Runs async onRequest steps as one hook, stopping once a step has answered. Each concern keeps its
 * own function; Fastify pays for one hook (one promise chain) instead of one per step.
 */
function sequence(steps: onRequestAsyncHookHandler[]): onRequestAsyncHookHandler {
  return async function runSteps(this: FastifyInstance, request, reply) {
    for (const step of steps) {
      await step.call(this, request, reply);
      if (reply.sent) return reply;
    }
    return undefined;
  };
}

function sequenceOnSend(steps: onSendAsyncHookHandler[]): onSendAsyncHookHandler {
  return async function runSteps(this: FastifyInstance, request, reply, payload) {
    let current = payload;
    for (const step of steps) current = await step.call(this, request, reply, current);
    return current;
  };
}

const asArray = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/**
 * Attaches the cross-cutting hooks a route declares in its `config`, in one fixed order:
 *   onRequest: authenticate -> consume quota -> serve from cache
 *   onSend:    ETag/store -> quota headers (so a 304 is known before the quota is reported)
 */
export const pipelinePlugin = fp<PipelineOptions>(
  (app: FastifyInstance, options) => {
    const authenticate = apiKeyAuthHook(options.keys);
    const consumeQuota = consumeQuotaHook(options.rateLimitStore, options.now);
    const serveFromCache = serveFromCacheHook(options.cache, options.now);
    const tagAndStore = etagHook(options.cache, options.now);
    const writeQuotaHeaders = quotaHeadersHook(options.rateLimitStore, options.now);

    app.addHook('onRoute', (route) => {
      const config = route.config;
      if (!config) return;
      // Hook arrays hold async handlers; Fastify awaits them.
      const onRequest: onRequestAsyncHookHandler[] = [];
      const onSend: onSendAsyncHookHandler[] = [];
      if (config.auth === 'apiKey') onRequest.push(authenticate, consumeQuota);
      if (config.cache) {
        onRequest.push(serveFromCache);
        onSend.push(tagAndStore);
      }
      if (config.auth === 'apiKey') onSend.push(writeQuotaHeaders);
      if (onRequest.length) route.onRequest = [...asArray(route.onRequest), sequence(onRequest)];
      // Ahead of the route's own onSend hooks: Fastify's HEAD twin of a GET ends with one that drops
      // the body, and the ETag must be computed from that body for HEAD to carry the GET's headers.
      if (onSend.length) route.onSend = [sequenceOnSend(onSend), ...asArray(route.onSend)];
    });
  },
  { name: 'pipeline' },
);
