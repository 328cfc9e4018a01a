import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import type { AccountsService } from '../accounts/service.js';
import { SESSION_TTL_MS } from '../accounts/service.js';
import { tierForOwner, type Subscription, type Tier } from '../keys/tiers.js';

export const PORTAL_PREFIX = '/api-platform/developer';
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = '_csrf';
/** Pre-sign-in double-submit token for the sign-in and sign-up forms (login CSRF). */
export const FORM_CSRF_COOKIE = 'hub_form_csrf';

export interface PortalAccount {
  id: number;
  username: string;
  subscription: Subscription;
  isPartner: boolean;
  tier: Tier;
  csrfToken: string;
  sessionId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    account?: PortalAccount;
  }
}

/**
 * Over HTTPS the cookie is `__Host-hub_session` (Secure, Path=/, no Domain: it cannot be set by a
 * sibling subdomain). The demo runs on plain http://127.0.0.1, where browsers refuse Secure
 * cookies, so there it is `hub_session` without Secure. Behind a TLS proxy set TRUST_PROXY=true so
 * X-Forwarded-Proto makes `request.protocol` https.
 */
export const sessionCookieName = (request: FastifyRequest): string =>
  request.protocol === 'https' ? '__Host-hub_session' : 'hub_session';

export function readCookies(request: FastifyRequest): Map<string, string> {
  const out = new Map<string, string>();
  const header = request.headers.cookie;
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (out.has(name)) continue; // the first (most specific path) wins, as browsers send it
    try {
      out.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // a malformed cookie value is treated as absent
    }
  }
  return out;
}

export function cookieHeader(
  request: FastifyRequest,
  name: string,
  value: string,
  maxAgeSeconds: number,
  sameSite: 'Strict' | 'Lax',
): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${name}=${encodeURIComponent(value)}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=${sameSite}${secure}`;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, id: string): void {
  // Lax (not Strict) so a link from the docs into the portal arrives signed in; every
  // state-changing route also needs the CSRF token, which a cross-site request cannot read.
  reply.header(
    'set-cookie',
    cookieHeader(request, sessionCookieName(request), id, SESSION_TTL_MS / 1000, 'Lax'),
  );
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', cookieHeader(request, sessionCookieName(request), '', 0, 'Lax'));
}

export const sessionIdOf = (request: FastifyRequest): string | undefined =>
  readCookies(request).get(sessionCookieName(request));

export function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Defence in depth on top of the tokens: a state-changing request announced by the browser as
 * cross-site (Sec-Fetch-Site) or carrying a foreign Origin is refused outright.
 */
export function assertSameOrigin(request: FastifyRequest): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new ProblemError('csrf_failed', 'Cross-site requests cannot change portal state.');
  }
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `${request.protocol}://${request.host}`) {
    throw new ProblemError('csrf_failed', `Requests from origin ${origin} cannot change portal state.`);
  }
}

/**
 * Headers of a scope of pages and routes private to the signed-in account: never cached (static
 * assets set their own caching), and the referrer kept within the origin. The forms need the latter:
 * under the default `no-referrer` (request-basics.ts) a browser posts them with `Origin: null`,
 * which `assertSameOrigin` refuses.
 */
export function privatePages(scope: App): void {
  scope.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    reply.header('referrer-policy', 'same-origin');
    return payload;
  });
}

/** Resolves the session cookie to the account; undefined when absent, unknown or expired. */
export async function loadAccount(
  service: AccountsService,
  request: FastifyRequest,
): Promise<PortalAccount | undefined> {
  const sessionId = sessionIdOf(request);
  if (!sessionId || sessionId.length > 100) return undefined;
  const row = await service.sessionFor(sessionId);
  if (!row) return undefined;
  const owner = { subscription: row.subscription, is_partner: row.is_partner };
  return {
    id: row.id,
    username: row.username,
    subscription: row.subscription,
    isPartner: row.is_partner === 1,
    tier: tierForOwner(owner),
    csrfToken: row.csrf_token,
    sessionId,
  };
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** onRequest hook of the JSON portal routes: a live session, and the CSRF header on writes. */
export function requireSessionHook(service: AccountsService) {
  return async function requireSession(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const account = await loadAccount(service, request);
    if (!account) throw new ProblemError('unauthenticated', 'Sign in to the developer portal first.');
    if (UNSAFE.has(request.method)) {
      assertSameOrigin(request);
      const header = request.headers[CSRF_HEADER];
      if (!sameToken(Array.isArray(header) ? header[0] : header, account.csrfToken)) {
        throw new ProblemError('csrf_failed', `Send the session's CSRF token in the ${CSRF_HEADER} header.`);
      }
    }
    request.account = account;
  };
}
