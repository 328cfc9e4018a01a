import type { LightMyRequestResponse } from 'fastify';
import { setScryptCost } from '../../src/modules/accounts/password.js';
import type { SessionBody } from '../../src/modules/portal/schemas.js';
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
    method: 'GET' | 'POST' | 'DELETE',
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

export async function signUp(
  ctx: TestContext,
  username = uniqueName(),
  password = GOOD_PASSWORD,
): Promise<PortalSession> {
  const res = await ctx.inject({
    method: 'POST',
    url: `${PORTAL}/accounts`,
    payload: { username, password },
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

/** The CSRF token a page's form carries in its hidden `_csrf` field. */
export const hiddenCsrf = (res: LightMyRequestResponse): string =>
  /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '';
