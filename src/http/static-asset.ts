import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchesIfNoneMatch } from './response-cache.js';

/** For a content-addressed URL: its bytes never change, a new version gets a new name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** For a URL whose bytes change with a release: keep a copy, but revalidate it (ETag) before use. */
export const REVALIDATE = 'no-cache';

type Coding = 'br' | 'gzip';
const CODINGS: readonly Coding[] = ['br', 'gzip'];

/**
 * Bytes the service sends as they are (scripts, styles, documents), with everything a cache needs:
 * a content hash for hashed file names and ETags, and brotli and gzip copies made once.
 */
export interface StaticAsset {
  readonly bytes: Buffer;
  readonly type: string;
  /** base64url SHA-256 prefix of the bytes: names and validators change exactly when they do */
  readonly hash: string;
}

export function staticAsset(body: string | Buffer, type: string): StaticAsset {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return { bytes, type, hash: createHash('sha256').update(bytes).digest('base64url').slice(0, 16) };
}

/** `scalar.js` → `scalar.<hash>.js`: the name to publish with IMMUTABLE caching. */
export function hashedName(name: string, asset: StaticAsset): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? `${name}.${asset.hash}` : `${name.slice(0, dot)}.${asset.hash}${name.slice(dot)}`;
}

/** Below this, compression saves less than the headers it adds. */
const MIN_COMPRESSIBLE = 1024;
const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Compressed copies by content hash and coding, shared by every app in the process (tests build
 * dozens on the same bytes). The set is the service's own assets, a handful; the bound only guards
 * against misuse.
 */
const compressed = new Map<string, Promise<Buffer>>();
const MAX_COMPRESSED = 64;

/**
 * Brotli's top quality costs about 10 s of CPU on the 4.3 MB docs bundle for 10% fewer bytes than
 * quality 9 (about 1 s), so large assets get 9; gzip is always level 9 (about 0.15 s).
 */
const compress = (bytes: Buffer, coding: Coding): Promise<Buffer> =>
  coding === 'br'
    ? brotli(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: bytes.length > 1_048_576 ? 9 : constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        },
      })
    : gzipped(bytes, { level: constants.Z_BEST_COMPRESSION });

/**
 * Made once, off the event loop (zlib's thread pool); concurrent first requests share the work, and
 * a request waits only for the coding it gets.
 */
function compressedCopy(asset: StaticAsset, coding: Coding): Promise<Buffer> {
  const key = `${asset.hash}:${coding}`;
  let copy = compressed.get(key);
  if (!copy) {
    copy = compress(asset.bytes, coding);
    // A failure is not kept: the next request tries again (and is served uncompressed meanwhile).
    void copy.catch(() => compressed.delete(key));
    if (compressed.size >= MAX_COMPRESSED) {
      const oldest = compressed.keys().next();
      if (!oldest.done) compressed.delete(oldest.value);
    }
    compressed.set(key, copy);
  }
  return copy;
}

/**
 * Starts making the compressed copies now (a server calls this once it listens), so the first
 * visitor does not wait for them; failures surface, and are retried, when a request asks.
 */
export function precompress(asset: StaticAsset): void {
  if (asset.bytes.length < MIN_COMPRESSIBLE) return;
  for (const coding of CODINGS) void compressedCopy(asset, coding).catch(() => undefined);
}

/**
 * The coding to send for an Accept-Encoding header (RFC 9110 §12.5.3): the highest q-value among
 * br and gzip, br on a tie; identity when neither is acceptable or the header is absent.
 */
export function chooseCoding(header: string | undefined): Coding | undefined {
  if (!header) return undefined;
  const q = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim());
    const qParam = params.find((p) => p.startsWith('q='));
    const value = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (name && Number.isFinite(value)) q.set(name, value);
  }
  const wildcard = q.get('*') ?? 0;
  let best: Coding | undefined;
  let bestQ = 0;
  for (const coding of CODINGS) {
    const value = q.get(coding) ?? wildcard;
    if (value > bestQ) [best, bestQ] = [coding, value];
  }
  return best;
}

const etagFor = (asset: StaticAsset, coding: Coding | undefined) =>
  coding ? `"${asset.hash}-${coding}"` : `"${asset.hash}"`;

/**
 * Sends an asset: 304 when the client's copy is current (any coding of the same bytes), else the
 * best compressed copy the client accepts. Each coding has its own strong ETag, as RFC 9110 asks
 * of different representations; `Vary: Accept-Encoding` keeps shared caches from mixing them.
 */
export async function sendAsset(
  request: FastifyRequest,
  reply: FastifyReply,
  asset: StaticAsset,
  cacheControl: string,
): Promise<FastifyReply> {
  const compressible = asset.bytes.length >= MIN_COMPRESSIBLE;
  let coding = compressible ? chooseCoding(request.headers['accept-encoding']) : undefined;
  void reply.header('cache-control', cacheControl).type(asset.type);
  if (compressible) void reply.header('vary', 'Accept-Encoding');
  const ifNoneMatch = request.headers['if-none-match'];
  if ([undefined, ...CODINGS].some((c) => matchesIfNoneMatch(ifNoneMatch, etagFor(asset, c)))) {
    return reply.header('etag', etagFor(asset, coding)).code(304).send();
  }
  let body = asset.bytes;
  if (coding) {
    try {
      body = await compressedCopy(asset, coding);
    } catch (err) {
      request.log.warn({ err }, 'asset compression failed; sending it uncompressed');
      coding = undefined;
    }
  }
  if (coding) void reply.header('content-encoding', coding);
  return reply.header('etag', etagFor(asset, coding)).send(body);
}
