import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONTINUE, isPromise, type MaybePromise, type RequestStep } from './pipeline-steps.js';
import { windowStartOf, WINDOW_MS } from './quota.js';
import type { ResponseCache } from './response-cache.js';
import type { AuthenticatedKey, CachedResponse, QuotaState } from './request-context.js';

/**
 * The cheapest stand-ins for pipeline steps the pipeline benchmark turns off (pipeline-switches.ts):
 * each does only what the steps after it need, so the difference to the real step is the step's own
 * cost. Never used outside the benchmark.
 */
export function benchStandIns(now: () => number) {
  return {
    /** the key each presented secret resolved to the first time, without hashing or lookup */
    authenticate(real: RequestStep): RequestStep {
      const known = new Map<string, AuthenticatedKey>();
      return (request: FastifyRequest, reply: FastifyReply): MaybePromise<boolean> => {
        const presented = request.headers['x-api-key'];
        const key = typeof presented === 'string' ? known.get(presented) : undefined;
        if (!key) {
          const done = (answered: boolean) => {
            if (request.apiKey && typeof presented === 'string') known.set(presented, request.apiKey);
            return answered;
          };
          const result = real(request, reply);
          return isPromise(result) ? result.then(done) : done(result);
        }
        request.apiKey = key;
        request.quotaSubject = key;
        return CONTINUE;
      };
    },

    /** a fixed quota state (one request used), so the quota headers are still written */
    consumeQuota: (request: FastifyRequest): boolean => {
      const subject = request.quotaSubject;
      if (!subject) return CONTINUE;
      const windowStart = windowStartOf(now());
      const quota: QuotaState = {
        limit: subject.limit,
        used: 1,
        windowStart,
        resetAt: windowStart + WINDOW_MS,
        storeKey: subject.storeKey,
      };
      request.quota = quota;
      return CONTINUE;
    },

    /**
     * The cache's lookup without the cache: the entry each URL found first, kept. The hit is still
     * answered by the hit step (cache-hit.ts), headers, quota and usage included, so turning the
     * cache off prices the lookup and nothing else.
     */
    lookup(cache: ResponseCache): (url: string, at: number) => CachedResponse | undefined {
      const found = new Map<string, CachedResponse>();
      return (url, at) => {
        let entry = found.get(url);
        if (!entry) {
          entry = cache.get(url, at);
          if (entry) found.set(url, entry);
        }
        return entry;
      };
    },

    /** a request id that costs nothing to make (Fastify asks for one per request) */
    requestId: (): string => 'bench',
  };
}
