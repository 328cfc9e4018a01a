import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Dialect } from '../../src/db/connect.js';
import { V1_PREFIX } from '../../src/http/paths.js';
import type { Scope } from '../../src/http/scopes.js';
import { createTestContext, json, type ContextOptions, type TestContext } from './context.js';
import { TokenTable, userToken } from './token-table.js';

/** GET under /v1 with `Authorization: Bearer <credential>` (an API key or a test token). */
export const v1Get = (
  ctx: Pick<TestContext, 'inject'>,
  path: string,
  credential: string,
): Promise<LightMyRequestResponse> =>
  ctx.inject({
    method: 'GET',
    url: `${V1_PREFIX}${path}`,
    headers: { authorization: `Bearer ${credential}` },
  });

/** GET under /v1 that must answer 200 (the test fails showing the body otherwise): its JSON. */
export async function v1Json<T>(
  ctx: Pick<TestContext, 'inject' | 'key'>,
  path: string,
  credential: string = ctx.key,
): Promise<T> {
  const res = await v1Get(ctx, path, credential);
  assert.equal(res.statusCode, 200, res.body);
  return json<T>(res);
}

/**
 * A fresh app for tests of /v1 routes. Besides the context's API key (`ctx.key`), each named token
 * of `tokens` is accepted as a user's OAuth token holding those scopes.
 */
export function v1Context(
  dialect: Dialect,
  tokens: Record<string, Scope[]>,
  options: Omit<ContextOptions, 'accessTokens'> = {},
): Promise<TestContext> {
  const table = new TokenTable();
  for (const [name, scopes] of Object.entries(tokens)) table.tokens.set(name, userToken(scopes));
  return createTestContext(dialect, { ...options, accessTokens: table });
}
