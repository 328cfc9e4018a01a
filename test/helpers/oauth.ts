import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Db } from '../../src/db/connect.js';
import { appsRepo } from '../../src/modules/apps/repo.js';
import { appsService, type NewAppInput } from '../../src/modules/apps/service.js';
import type { TestContext } from './context.js';
import { FORM, mainOf, setCookies } from './portal.js';

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

/** Posts the first form of the page's content (its CSRF field included) and follows the redirects. */
export async function submit(
  ctx: TestContext,
  jar: CookieJar,
  page: LightMyRequestResponse,
  fields: Record<string, string>,
): Promise<LightMyRequestResponse> {
  const main = mainOf(page.body);
  const action = /<form method="post" action="([^"]+)"/.exec(main)?.[1];
  if (!action) throw new Error(`no form on the page: ${page.body.slice(0, 300)}`);
  const res = await ctx.inject({
    method: 'POST',
    url: action.replace(/&amp;/g, '&'),
    headers: { ...FORM, cookie: jar.header() },
    payload: new URLSearchParams({
      _csrf: /name="_csrf" value="([^"]+)"/.exec(main)?.[1] ?? '',
      ...fields,
    }).toString(),
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

/** A registered app as the flow needs it: its client id, and its secret when confidential. */
export interface FlowClient {
  clientId: string;
  secret: string | undefined;
}

/** A signed-in hub user's browser sending `params` to the authorize endpoint: the page it ends on. */
export async function openAuthorization(
  ctx: TestContext,
  user: { cookie: string },
  params: Record<string, string | undefined>,
): Promise<{ jar: CookieJar; page: LightMyRequestResponse }> {
  const jar = new CookieJar(user.cookie);
  const res = jar.take(
    await ctx.inject({ method: 'GET', url: authorizeUrl(params), headers: { cookie: jar.header() } }),
  );
  return { jar, page: await follow(ctx, jar, res) };
}

/**
 * The first step of the code flow: an authorization request for `scope` with a fresh PKCE S256
 * pair (state `st-123`; `extra` adds or overrides parameters). The page is the consent form, or the
 * redirect to the app when the user granted these scopes already.
 */
export async function requestAuthorization(
  ctx: TestContext,
  user: { cookie: string },
  client: Pick<FlowClient, 'clientId'>,
  scope: string,
  extra: Record<string, string | undefined> = {},
): Promise<{ jar: CookieJar; page: LightMyRequestResponse; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const { jar, page } = await openAuthorization(ctx, user, {
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope,
    state: 'st-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  return { jar, page, verifier };
}

/**
 * authorize -> consent (allowed, when it is asked) -> the code sent back to the app. Throws, failing
 * the test, when the flow does not come back to the app with a code.
 */
export async function authorizationCode(
  ctx: TestContext,
  user: { cookie: string },
  client: Pick<FlowClient, 'clientId'>,
  scope: string,
  extra: Record<string, string | undefined> = {},
) {
  const { jar, page, verifier } = await requestAuthorization(ctx, user, client, scope, extra);
  const done = page.statusCode === 303 ? page : await submit(ctx, jar, page, { decision: 'allow' });
  const params = callbackParams(done);
  const code = params.get('code');
  if (!code) throw new Error(`no code in the redirect to the app: ${params.toString()}`);
  return { code, state: params.get('state'), verifier, jar, consent: page };
}

/** The code -> token exchange, with the PKCE verifier (as a confidential or public client). */
export const exchangeCode = (
  ctx: TestContext,
  client: FlowClient,
  code: string,
  verifier: string,
  redirectUri = REDIRECT_URI,
): Promise<LightMyRequestResponse> =>
  tokenRequest(ctx, client, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: redirectUri,
  });

/** The whole code flow for a signed-in user: authorize -> consent -> code -> tokens (200 asserted). */
export async function userTokens(
  ctx: TestContext,
  user: { cookie: string },
  client: FlowClient,
  scope: string,
  extra: Record<string, string | undefined> = {},
): Promise<TokenSet> {
  const { code, verifier } = await authorizationCode(ctx, user, client, scope, extra);
  const res = await exchangeCode(ctx, client, code, verifier);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<TokenSet>();
}
