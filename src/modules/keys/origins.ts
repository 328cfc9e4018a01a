import type { InvalidParam } from '../../http/problem.js';

/** How many browser origins one key may list. */
export const MAX_ORIGINS = 10;
export const MAX_ORIGIN_LENGTH = 200;
const ORIGIN_SHAPE = /^https?:\/\/[^/?#\s@]+$/;
/**
 * What an origin looks like as a browser sends it (`Origin` is ASCII: an IDN host in punycode), for
 * the JSON schema: a scheme and a host with its port, nothing after. Written without a negated
 * class, which the interactive reference's example generator does not survive.
 */
export const ORIGIN_PATTERN = '^https?://[-A-Za-z0-9._:\\[\\]]+$';

/**
 * A key's allowed origins from what its owner typed: each exactly as a browser sends `Origin`
 * (scheme, host, and port only when it is not the default: `https://app.example.com`,
 * `http://localhost:5173`). An empty list lifts the restriction (stored as null).
 */
export function parseOrigins(entries: readonly string[]): { origins: string[] } | { errors: InvalidParam[] } {
  const errors: InvalidParam[] = [];
  const origins: string[] = [];
  const cleaned = entries.map((e) => e.trim().replace(/\/$/, '')).filter((e) => e !== '');
  if (cleaned.length > MAX_ORIGINS) {
    errors.push({ in: 'body', name: 'origins', reason: `must list at most ${MAX_ORIGINS} origins` });
  }
  for (const entry of cleaned.slice(0, MAX_ORIGINS)) {
    const shown = entry.length > 60 ? `${entry.slice(0, 60)}…` : entry;
    let origin: string | undefined;
    try {
      origin =
        ORIGIN_SHAPE.test(entry) && entry.length <= MAX_ORIGIN_LENGTH ? new URL(entry).origin : undefined;
    } catch {
      origin = undefined;
    }
    if (origin === undefined || origin === 'null') {
      errors.push({
        in: 'body',
        name: 'origins',
        reason: `'${shown}' is not an origin: write the scheme, host and port only, like https://app.example.com`,
      });
    } else if (origin !== entry) {
      errors.push({
        in: 'body',
        name: 'origins',
        reason: `write '${shown}' as browsers send it: ${origin}`,
      });
    } else if (!origins.includes(origin)) {
      origins.push(origin);
    }
  }
  return errors.length > 0 ? { errors } : { origins };
}

/** The stored form: space-separated, or null for "any origin". */
export const storedOrigins = (origins: readonly string[]): string | null =>
  origins.length === 0 ? null : origins.join(' ');

export const originsOf = (stored: string | null): string[] => (stored === null ? [] : stored.split(' '));
