import type { InvalidParam } from '../../http/problem.js';

export const APP_NAME_MAX = 100;
export const REDIRECT_URIS_MAX = 10;
export const URL_MAX = 500;

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Why a redirect URI is refused, or undefined when it is acceptable. Redirect URIs are compared
 * exactly (no wildcards, no prefix match): https anywhere, plain http only to this machine (a
 * native or development app), never with a fragment or credentials.
 */
export function redirectUriProblem(raw: string): string | undefined {
  if (raw.length > URL_MAX) return `must be at most ${URL_MAX} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (raw.includes('*')) return 'must not contain wildcards: redirect URIs match exactly';
  if (url.hash || raw.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return undefined;
  return 'must use https (plain http only to 127.0.0.1, [::1] or localhost)';
}

function webUrlProblem(raw: string): string | undefined {
  if (raw.length > URL_MAX) return `must be at most ${URL_MAX} characters`;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? undefined : 'must be an http(s) URL';
  } catch {
    return 'must be an absolute URL';
  }
}

export interface AppFields {
  name?: string | undefined;
  redirect_uris?: string[] | undefined;
  homepage_url?: string | null | undefined;
  logo_url?: string | null | undefined;
}

/** Every rule the fields break, as body parameters (empty when all pass). */
export function appFieldErrors(fields: AppFields): InvalidParam[] {
  const errors: InvalidParam[] = [];
  const name = fields.name;
  if (name !== undefined && (name.trim().length === 0 || name.length > APP_NAME_MAX)) {
    errors.push({ in: 'body', name: 'name', reason: `must be 1 to ${APP_NAME_MAX} characters` });
  }
  const uris = fields.redirect_uris;
  if (uris !== undefined) {
    if (uris.length === 0 || uris.length > REDIRECT_URIS_MAX) {
      errors.push({
        in: 'body',
        name: 'redirect_uris',
        reason: `must list 1 to ${REDIRECT_URIS_MAX} redirect URIs`,
      });
    }
    uris.forEach((uri, i) => {
      const problem = redirectUriProblem(uri);
      if (problem) errors.push({ in: 'body', name: `redirect_uris[${i}]`, reason: problem });
    });
  }
  for (const field of ['homepage_url', 'logo_url'] as const) {
    const value = fields[field];
    const problem = value ? webUrlProblem(value) : undefined;
    if (problem) errors.push({ in: 'body', name: field, reason: problem });
  }
  return errors;
}
