import { readFileSync } from 'node:fs';

/** A response body a baseline server sends for one path, as the hub sent it. */
export interface RecordedBody {
  path: string;
  contentType: string;
  /** base64, so the bytes survive JSON exactly */
  body: string;
}

/**
 * The bodies a baseline server sends (from the JSON file named by its first argument), by path
 * (query string included); any other path gets the first one. Looked up once per request by the
 * URL, the same work for the raw server and bare Fastify.
 */
export function loadBodies(
  file: string | undefined,
  fallback: RecordedBody,
): {
  forUrl: (url: string) => { contentType: string; body: Buffer };
} {
  const recorded = file ? (JSON.parse(readFileSync(file, 'utf8')) as RecordedBody[]) : [fallback];
  const byPath = new Map(
    recorded.map((r) => [r.path, { contentType: r.contentType, body: Buffer.from(r.body, 'base64') }]),
  );
  const first = byPath.values().next().value as { contentType: string; body: Buffer };
  return { forUrl: (url) => byPath.get(url) ?? first };
}
