import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Db } from '../../src/db/connect.js';
import { appsRepo } from '../../src/modules/apps/repo.js';
import { appsService, type NewAppInput } from '../../src/modules/apps/service.js';
import type { TestContext } from './context.js';
import { FORM, hiddenCsrf, setCookies } from './portal.js';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';
export const AUTHORIZE = '/api-platform/oauth/authorize';
export const TOKEN = '/api-platform/oauth/token';

/** The app service called straight, with the authorization server of a built app. */
export const directAppsFor = (db: Db, app: FastifyInstance) =>
  appsService(appsRepo(db.kysely), (clientId) => app.oauth.revokeClient(clientId), Date.now);
export const directApps = (ctx: TestContext) => directAppsFor(ctx.testDb.db, ctx.app);

export async function registerApp(
  ctx: TestContext,
  ownerId: number,
  input: Partial<NewAppInput> = {},
): Promise<{ clientId: string; secret: string | undefined; id: number }> {
  const { app, secret } = await directApps(ctx).create(ownerId, {
    name: 'Frag Tracker',
    kind: 'confidential',
    redirect_uris: [REDIRECT_URI],
    ...input,
  });
  return { clientId: app.client_id, secret, id: app.id };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A browser's cookies, enough for the flow (paths ignored). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  constructor(initial?: string) {
    if (initial) this.add(initial);
  }
  add(pair: string): void {
    const eq = pair.indexOf('=');
    this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  take(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const header of setCookies(res)) {
      const pair = header.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(header)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1));
    }
    return res;
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

const pathOf = (location: string) => {
  const url = new URL(location, 'http://localhost');
  return url.origin === 'http://localhost' ? url.pathname + url.search : undefined;
};

/** Follows same-origin redirects until one leaves the service (to the app) or a page answers. */
export async function follow(
  ctx: TestContext,
  jar: CookieJar,
  res: LightMyRequestResponse,
): Promise<LightMyRequestResponse> {
  let current = res;
  for (let hops = 0; hops < 10; hops++) {
    const location = current.headers.location;
    if (current.statusCode < 300 || current.statusCode >= 400 || typeof location !== 'string') return current;
    const path = pathOf(location);
    if (!path) return current;
    current = jar.take(await ctx.inject({ method: 'GET', url: path, headers: { cookie: jar.header() } }));
  }
  throw new Error('too many redirects');
}

export function authorizeUrl(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  return `${AUTHORIZE}?${query.toString()}`;
}

/** Posts a form of the page `page` (its CSRF field included) and follows the redirects. */
export async function submit(
  ctx: TestContext,
  jar: CookieJar,
  page: LightMyRequestResponse,
  fields: Record<string, string>,
): Promise<LightMyRequestResponse> {
  const action = /<form method="post" action="([^"]+)"/.exec(page.body)?.[1];
  if (!action) throw new Error(`no form on the page: ${page.body.slice(0, 300)}`);
  const res = await ctx.inject({
    method: 'POST',
    url: action.replace(/&amp;/g, '&'),
    headers: { ...FORM, cookie: jar.header() },
    payload: new URLSearchParams({ _csrf: hiddenCsrf(page), ...fields }).toString(),
  });
  return follow(ctx, jar, jar.take(res));
}

/** The authorization response's query (code, state, iss or error) from the redirect to the app. */
export function callbackParams(res: LightMyRequestResponse): URLSearchParams {
  const location = res.headers.location;
  if (typeof location !== 'string' || !location.startsWith(REDIRECT_URI)) {
    throw new Error(
      `expected a redirect to the app, got ${res.statusCode} ${String(location)} ${res.body.slice(0, 500)}`,
    );
  }
  return new URL(location).searchParams;
}

export async function tokenRequest(
  ctx: TestContext,
  client: { clientId: string; secret: string | undefined },
  fields: Record<string, string>,
  path = TOKEN,
): Promise<LightMyRequestResponse> {
  const auth = client.secret
    ? { authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString('base64')}` }
    : {};
  return ctx.inject({
    method: 'POST',
    url: path,
    headers: { ...FORM, ...auth },
    payload: new URLSearchParams({
      ...(client.secret ? {} : { client_id: client.clientId }),
      ...fields,
    }).toString(),
  });
}

export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
  expires_in: number;
  token_type: string;
}
