import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Dialect } from '../../src/db/connect.js';
import { OPENAPI_PATH, V1_PREFIX } from '../../src/http/paths.js';
import type { Problem } from '../../src/http/problem.js';
import { appStoreKeyOf, windowStartOf } from '../../src/http/quota.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit-store.js';
import { isScope, SCOPE_NAMES, type Scope } from '../../src/http/scopes.js';
import { generateKey } from '../../src/modules/keys/key-format.js';
import { keysRepo } from '../../src/modules/keys/repo.js';
import { TIERS } from '../../src/modules/keys/tiers.js';
import { injectAnswer, type Answer } from './answer.js';
import { createTestContext } from './context.js';
import { TokenTable, userToken } from './token-table.js';

/** One /v1 operation of the app's route table, with what its OpenAPI operation declares. */
export interface V1Operation {
  method: string;
  /** the route's path, `:id` style */
  path: string;
  /** the path with every parameter set to 1, ready to request */
  url: string;
  /** the OAuth scope it needs, if any */
  scope: Scope | undefined;
  /** an API key (`Bearer ghk_…`) may call it */
  apiKey: boolean;
  /** only a user's token may call it (403 user_context_required otherwise) */
  userContext: boolean;
}

/**
 * `(method, path)` of every route in the printed route tree (`printRoutes({ commonPrefix: false })`):
 * each line is a node whose depth is its indentation in 4-character steps; a node's full path is
 * its ancestors' segments joined, and the methods it serves are in parentheses.
 */
export function routeTable(app: FastifyInstance): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const marker = line.search(/[├└]── /);
    if (marker < 0) continue;
    const depth = marker / 4;
    const node = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(marker + 4));
    if (!node?.[1]) continue;
    stack.length = depth;
    stack.push(node[1]);
    const path = stack.join('').replace(/\/{2,}/g, '/');
    for (const method of (node[2] ?? '').split(', ').filter(Boolean)) out.push({ method, path });
  }
  return out;
}

interface DocOperation {
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }>;
}

/**
 * Every /v1 route the app serves (HEAD twins aside), with the credential rules its OpenAPI
 * operation publishes. A /v1 route missing from the document fails here, so none escapes the suite.
 */
export async function v1Operations(app: FastifyInstance): Promise<V1Operation[]> {
  const doc = (await app.inject({ method: 'GET', url: OPENAPI_PATH })).json<{
    paths: Record<string, Record<string, DocOperation>>;
  }>();
  return routeTable(app)
    .filter(({ method, path }) => method !== 'HEAD' && path.startsWith(`${V1_PREFIX}/`))
    .map(({ method, path }) => {
      const documented = path.replace(/:([A-Za-z_]+)/g, '{$1}');
      const op = doc.paths[documented]?.[method.toLowerCase()];
      assert.ok(op, `${method} ${path} is served but not in the OpenAPI document`);
      const oauth = op.security?.find((s) => Array.isArray(s.oauth2))?.oauth2;
      assert.ok(oauth, `${method} ${path} publishes no oauth2 requirement`);
      const scope = oauth[0];
      if (scope !== undefined) assert.ok(isScope(scope), `${method} ${path}: unknown scope ${scope}`);
      const forbidden = op.responses['403']?.content?.['application/problem+json']?.examples ?? {};
      return {
        method,
        path,
        url: path.replace(/:[A-Za-z_]+/g, '1'),
        scope,
        apiKey: op.security?.some((s) => 'bearer' in s) ?? false,
        userContext: 'user_context_required' in forbidden,
      };
    });
}

/**
 * What the suite needs from the service under test: the app and ways to mint credentials. The
 * default (`tokenTableTarget`) uses a table of tokens; a suite with the real authorization server
 * can hand its own tokens.
 */
export interface V1SecurityTarget {
  app: FastifyInstance;
  /** a new API key, with an hourly quota when given */
  apiKey(quota?: number): Promise<{ secret: string; revoke(): Promise<void> }>;
  /** a new access token of a user (or, with `app: true`, of an app alone) holding these scopes */
  token(
    scopes: readonly Scope[],
    options?: { app?: boolean },
  ): Promise<{ token: string; revoke(): Promise<void>; exhaustQuota(): Promise<void> }>;
  close(): Promise<void>;
}

/** The service built on a fresh database, with a token table standing in for the authorization server. */
export async function tokenTableTarget(dialect: Dialect): Promise<V1SecurityTarget> {
  const tokens = new TokenTable();
  const store = new MemoryRateLimitStore();
  const ctx = await createTestContext(dialect, { accessTokens: tokens, rateLimitStore: store });
  const keys = keysRepo(ctx.testDb.db.kysely);
  let next = 1000;
  return {
    app: ctx.app,
    apiKey: async (quota) => {
      const { id, secret } = await ctx.makeKey(quota ? { tier: 'free', quota } : { tier: 'partner' });
      return {
        secret,
        revoke: async () => {
          await keys.revoke(id, Date.now());
        },
      };
    },
    token: (scopes, options = {}) => {
      const appId = ++next;
      const userId = options.app ? null : appId;
      const token = `tok-${appId}`;
      tokens.tokens.set(token, userToken([...scopes], { appId, userId, tier: 'free' }));
      return Promise.resolve({
        token,
        revoke: () => Promise.resolve(void tokens.tokens.delete(token)),
        exhaustQuota: () => {
          const window = windowStartOf(Date.now());
          for (let i = 0; i < TIERS.free; i++) store.hit(appStoreKeyOf(appId, userId), window);
          return Promise.resolve();
        },
      });
    },
    close: () => ctx.close(),
  };
}

const call = (app: FastifyInstance, op: V1Operation, authorization?: string) =>
  injectAnswer(app, {
    method: op.method as InjectOptions['method'],
    url: op.url,
    headers: authorization === undefined ? {} : { authorization },
  });

function expectProblem(res: Answer, op: V1Operation, status: number, code: string) {
  const where = `${op.method} ${op.path}`;
  assert.equal(res.statusCode, status, `${where}: ${res.statusCode} ${res.body}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, where);
  assert.equal(res.json<Problem>().code, code, where);
}

/** Status of a request the credential checks let through (what the handler made of it). */
function expectAdmitted(res: Answer, op: V1Operation, what: string) {
  assert.ok(
    ![401, 403, 429].includes(res.statusCode),
    `${op.method} ${op.path} refused ${what}: ${res.statusCode} ${res.body}`,
  );
}

/**
 * The shared /v1 security suite (STYLE: Do 6), over every /v1 route of the route table: no
 * credential 401, bad credential 401, revoked key or token 401, over quota 429, wrong scope 403,
 * an API key or app token on a user-context route 403. Routes added later are covered as they are.
 */
export function v1SecuritySuite(name: string, makeTarget: () => Promise<V1SecurityTarget>): void {
  describe(`/v1 security suite over every /v1 route (${name})`, () => {
    let target: V1SecurityTarget;
    let ops: V1Operation[];
    before(async () => {
      target = await makeTarget();
      ops = await v1Operations(target.app);
    });
    after(() => target.close());

    /** a user token with every scope the operation may need */
    const granted = (op: V1Operation, options: { app?: boolean } = {}) =>
      target.token(op.scope ? [op.scope] : [], options);

    it('finds the /v1 routes in the route table', () => {
      assert.ok(ops.length >= 1, 'no /v1 route');
      assert.ok(ops.some((op) => op.path === `${V1_PREFIX}/tournaments`));
    });

    it('refuses a request without a credential: 401 missing_token with the Bearer challenge', async () => {
      for (const op of ops) {
        for (const header of [undefined, '', 'Bearer', 'Bearer   ', 'Basic dXNlcjpwYXNz']) {
          const res = await call(target.app, op, header);
          expectProblem(res, op, 401, 'missing_token');
          assert.equal(res.headers['www-authenticate'], 'Bearer realm="hub"');
          assert.equal(res.headers['x-ratelimit-limit'], undefined);
        }
      }
    });

    it('refuses an unknown token, an unknown or mistyped API key: 401 invalid_token', async () => {
      const unknownKey = generateKey();
      const mistyped = unknownKey.slice(0, -1) + (unknownKey.endsWith('A') ? 'B' : 'A');
      for (const op of ops) {
        for (const credential of ['not-a-token', 'tok-unknown', unknownKey, mistyped, 'ghk_short']) {
          const res = await call(target.app, op, `Bearer ${credential}`);
          expectProblem(res, op, 401, 'invalid_token');
          assert.equal(res.headers['www-authenticate'], 'Bearer realm="hub", error="invalid_token"');
          assert.ok(!res.body.includes(credential), 'the credential is never echoed');
        }
      }
    });

    it('refuses a revoked API key and a revoked token from the very next request', async () => {
      for (const op of ops) {
        const key = await target.apiKey();
        const token = await granted(op);
        if (op.apiKey) expectAdmitted(await call(target.app, op, `Bearer ${key.secret}`), op, 'a key');
        expectAdmitted(await call(target.app, op, `Bearer ${token.token}`), op, 'a token');
        await key.revoke();
        await token.revoke();
        expectProblem(await call(target.app, op, `Bearer ${key.secret}`), op, 401, 'invalid_token');
        expectProblem(await call(target.app, op, `Bearer ${token.token}`), op, 401, 'invalid_token');
      }
    });

    it('answers 429 rate_limited with Retry-After past the quota, for keys and tokens', async () => {
      for (const op of ops) {
        const token = await granted(op);
        await token.exhaustQuota();
        const limited = await call(target.app, op, `Bearer ${token.token}`);
        expectProblem(limited, op, 429, 'rate_limited');
        const retryAfter = Number(limited.headers['retry-after']);
        assert.ok(retryAfter >= 1 && retryAfter <= 3600, `retry-after ${retryAfter}`);
        if (!op.apiKey) continue;
        const key = await target.apiKey(1);
        const first = await call(target.app, op, `Bearer ${key.secret}`);
        expectAdmitted(first, op, 'a key within its quota');
        assert.equal(first.headers['x-ratelimit-remaining'], '0');
        expectProblem(await call(target.app, op, `Bearer ${key.secret}`), op, 429, 'rate_limited');
      }
    });

    it('answers 403 insufficient_scope, naming the scope, to a token without it', async () => {
      for (const op of ops.filter((o) => o.scope !== undefined)) {
        const others = SCOPE_NAMES.filter((s) => s !== op.scope);
        const { token } = await target.token(others);
        const res = await call(target.app, op, `Bearer ${token}`);
        expectProblem(res, op, 403, 'insufficient_scope');
        assert.equal(
          res.headers['www-authenticate'],
          `Bearer realm="hub", error="insufficient_scope", scope="${op.scope}"`,
        );
        // refused before the quota: nothing was spent
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
      }
    });

    it('lets an API key call public routes, and refuses it (and app tokens) on user-context routes', async () => {
      const key = await target.apiKey();
      for (const op of ops) {
        const res = await call(target.app, op, `Bearer ${key.secret}`);
        if (op.userContext) expectProblem(res, op, 403, 'user_context_required');
        else if (op.apiKey) expectAdmitted(res, op, 'an API key it documents');
        else expectProblem(res, op, 403, 'insufficient_scope');
        if (!op.userContext) continue;
        const appOnly = await granted(op, { app: true });
        expectProblem(
          await call(target.app, op, `Bearer ${appOnly.token}`),
          op,
          403,
          'user_context_required',
        );
      }
    });
  });
}
