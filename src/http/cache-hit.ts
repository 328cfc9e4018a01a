import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ANSWERED, CONTINUE } from './pipeline-steps.js';
import { eachQuotaHeader } from './quota.js';
import { matchesIfNoneMatch, type ResponseCache } from './response-cache.js';
import type { RequestStep } from './pipeline-steps.js';
import type { CachedResponse } from './request-context.js';

export interface CacheHitOptions {
  cache: ResponseCache;
  now: () => number;
  /** write the quota headers (the pipeline's writeQuotaHeaders step) */
  quotaHeaders: boolean;
  /** count the request for its key (the pipeline's recordUsage step) */
  recordUsage?: (keyId: number, at: number, status: number) => void;
  /** finds the entry (default: the cache's own lookup; the pipeline bench's stand-in skips it) */
  lookup?: (url: string, at: number) => CachedResponse | undefined;
}

/**
 * onRequest step of a cached, authenticated GET: a hit is answered here, whole. Status, headers and
 * body go to Node in one writeHead and one end, instead of through Fastify's send path (its onSend
 * hooks, header object and payload checks), which cost more than the rest of a hit put together.
 * What the response carries is exactly what the onSend steps would have added: the headers earlier
 * steps set (request id, security, CORS), the entry's ETag, type and length (made once, when it was
 * stored), the quota headers; and the request is counted for its key. A conditional request that
 * matches is left to the general path (a 304 gives its quota back, see quota.ts).
 */
export function cacheHitStep(options: CacheHitOptions): RequestStep {
  const { cache, now, quotaHeaders, recordUsage } = options;
  const lookup = options.lookup ?? ((url: string, at: number) => cache.get(url, at));
  return function serveCacheHit(request: FastifyRequest, reply: FastifyReply): boolean {
    if (request.method !== 'GET') return CONTINUE;
    const at = now();
    const entry = lookup(request.url, at);
    if (!entry) return CONTINUE;
    request.servedFromCache = true;
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch !== undefined && matchesIfNoneMatch(ifNoneMatch, entry.etag)) {
      reply.header('etag', entry.etag).code(304).send();
      return ANSWERED;
    }
    const headers = reply.getHeaders() as OutgoingHttpHeaders;
    headers.etag = entry.etag;
    headers['content-type'] = entry.contentType;
    headers['content-length'] = entry.contentLength;
    const quota = request.quota;
    if (quota && quotaHeaders) {
      eachQuotaHeader(quota, at, (name, value) => {
        headers[name] = value;
      });
    }
    if (recordUsage && request.apiKey) recordUsage(request.apiKey.id, at, 200);
    // Fastify leaves a hijacked reply alone; its onResponse hooks (metrics, access log) still run.
    reply.hijack();
    reply.raw.writeHead(200, headers);
    reply.raw.end(entry.payload);
    return ANSWERED;
  };
}
