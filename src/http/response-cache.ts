import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ANSWERED, CONTINUE } from './pipeline-steps.js';
import type { CachedResponse } from './request-context.js';

/**
 * A per-instance micro-cache of public GET responses, keyed by URL. Public data is the same for
 * every key, so under load most requests are answered from memory; the short TTL bounds staleness.
 * Entries carry their ETag so conditional requests cost no hashing.
 */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 5000,
  ) {}

  get(key: string, now: number): CachedResponse | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, entry: CachedResponse): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, entry);
  }
}

export const etagOf = (payload: string): string =>
  `"${createHash('sha1').update(payload).digest('base64url')}"`;

/** RFC 9110 weak comparison, as used for If-None-Match. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === bare);
}

/** onRequest step (after quota): answers from the cache, or 304 when the client's copy is current. */
export function serveFromCacheHook(cache: ResponseCache, now: () => number) {
  return function serveFromCache(request: FastifyRequest, reply: FastifyReply): boolean {
    if (request.method !== 'GET') return CONTINUE;
    const entry = cache.get(request.url, now());
    if (!entry) return CONTINUE;
    request.servedFromCache = true;
    reply.header('etag', entry.etag);
    if (matchesIfNoneMatch(request.headers['if-none-match'], entry.etag)) reply.code(304).send();
    else reply.type(entry.contentType).send(entry.payload);
    return ANSWERED;
  };
}

/** onSend step: tags fresh 200 responses with an ETag, stores them, and turns matches into 304. */
export function etagHook(cache: ResponseCache, now: () => number) {
  return function tagAndStore(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
    if (request.servedFromCache || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const etag = etagOf(payload);
    reply.header('etag', etag);
    // GET only: Fastify's HEAD twin drops the body after this step, so it must not be stored.
    if (request.method === 'GET' && cache.ttlMs > 0) {
      const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
      const bytes = Buffer.from(payload);
      cache.set(request.url, {
        payload: bytes,
        contentLength: String(bytes.length),
        etag,
        contentType,
        expiresAt: now() + cache.ttlMs,
      });
    }
    if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
      reply.code(304);
      return '';
    }
    return payload;
  };
}
