import type { LightMyRequestResponse } from 'fastify';
import { MemoryRateLimitStore } from '../../src/http/rate-limit-store.js';
import { setScryptCost } from '../../src/modules/accounts/password.js';
import { keysRepo } from '../../src/modules/keys/repo.js';
import { portalKeysService, type PortalKeysService } from '../../src/modules/portal/keys-service.js';
import type { SessionBody } from '../../src/modules/portal/schemas.js';
import type { PortalAccount } from '../../src/modules/portal/session-auth.js';
import { usageRepo } from '../../src/modules/usage/repo.js';
import type { TestContext } from './context.js';

export const PORTAL = '/api-platform/developer';

// Portal tests sign in dozens of times; the production cost is checked in portal-password.test.ts.
export const TEST_SCRYPT = { N: 1024, r: 8, p: 1 } as const;
setScryptCost(TEST_SCRYPT);
let sequence = 0;

export const uniqueName = (base = 'dev') => `${base}_${process.pid % 1000}_${++sequence}`;
export const GOOD_PASSWORD = 'violet-harbor-97';

export interface PortalSession {
  cookie: string;
  csrf: string;
  accountId: number;
  username: string;
  /** portal request with the session cookie (and the CSRF header on writes) */
  call(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    payload?: object,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
}

/** `name=value` of the first Set-Cookie header. */
export function cookieOf(response: LightMyRequestResponse): string {
  const header = response.headers['set-cookie'];
  const first = Array.isArray(header) ? header[0] : header;
  if (!first) throw new Error(`no set-cookie (status ${response.statusCode}: ${response.body})`);
  return first.split(';')[0] ?? '';
}

export function sessionFrom(ctx: TestContext, response: LightMyRequestResponse): PortalSession {
  const body = response.json<SessionBody>();
  const cookie = cookieOf(response);
  return {
    cookie,
    csrf: body.csrf_token,
    accountId: body.account.id,
    username: body.account.username,
    call: (method, path, payload, headers = {}) =>
      ctx.inject({
        method,
        url: `${PORTAL}${path}`,
        headers: { cookie, ...(method === 'GET' ? {} : { 'x-csrf-token': body.csrf_token }), ...headers },
        ...(payload ? { payload } : {}),
      }),
  };
}

let addressSequence = 0;
/**
 * A fresh client address (198.18.0.0/15, the benchmarking range) per call: sign-ups are limited per
 * address, and a test that is not about that limit should not run into it.
 */
export const freshAddress = (): string => {
  const n = ++addressSequence;
  return `198.${18 + ((n >> 16) & 1)}.${(n >> 8) & 255}.${n & 255}`;
};

export async function signUp(
  ctx: TestContext,
  username = uniqueName(),
  password = GOOD_PASSWORD,
): Promise<PortalSession> {
  const res = await ctx.inject({
    method: 'POST',
    url: `${PORTAL}/accounts`,
    payload: { username, password },
    remoteAddress: freshAddress(),
  });
  if (res.statusCode !== 201) throw new Error(`sign-up failed: ${res.statusCode} ${res.body}`);
  return sessionFrom(ctx, res);
}

export const signIn = (
  ctx: TestContext,
  username: string,
  password: string,
  headers: Record<string, string> = {},
  remoteAddress?: string,
) =>
  ctx.inject({
    method: 'POST',
    url: `${PORTAL}/session`,
    payload: { username, password },
    headers,
    ...(remoteAddress ? { remoteAddress } : {}),
  });

/**
 * The portal's key service called straight, with a fresh free account: concurrent calls then
 * interleave at every await (through HTTP the requests happen to run one after another, and a
 * check-then-insert race would go unseen).
 */
export async function directKeysService(
  ctx: TestContext,
  now: () => number = Date.now,
): Promise<{ service: PortalKeysService; account: PortalAccount }> {
  const kysely = ctx.testDb.db.kysely;
  const service = portalKeysService({
    keys: keysRepo(kysely),
    usage: usageRepo(kysely),
    recorder: ctx.app.usageRecorder,
    rateLimitStore: new MemoryRateLimitStore(),
    now,
  });
  const user = await ctx.makeUser();
  const account: PortalAccount = {
    id: user.id,
    username: user.username,
    subscription: 'none',
    isPartner: false,
    tier: 'free',
    csrfToken: 'unused',
    sessionId: 'unused',
  };
  return { service, account };
}

/**
 * A portal form's answer is a 303 (post/redirect/get); this follows it with the same cookie and
 * returns the page the browser would show.
 */
export async function followForm(
  ctx: TestContext,
  res: LightMyRequestResponse,
  cookie: string,
): Promise<LightMyRequestResponse> {
  if (res.statusCode !== 303) throw new Error(`expected a 303 from the form, got ${res.statusCode}`);
  return ctx.inject({ method: 'GET', url: String(res.headers.location), headers: { cookie } });
}

/** Form posts of the portal's web pages. */
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Every Set-Cookie header of a response. */
export function setCookies(res: LightMyRequestResponse): string[] {
  const header = res.headers['set-cookie'];
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
}

/** `name=value` of the cookie a response sets under that name. */
export const cookieNamed = (res: LightMyRequestResponse, name: string): string | undefined =>
  setCookies(res)
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0];

/**
 * A page's content without its header: a signed-in page's header holds the sign-out form, so the
 * page's own forms are looked for after `<main`.
 */
export const mainOf = (body: string): string => body.slice(Math.max(0, body.indexOf('<main')));

/** The CSRF token a page's form carries in its hidden `_csrf` field. */
export const hiddenCsrf = (res: LightMyRequestResponse): string =>
  /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '';
