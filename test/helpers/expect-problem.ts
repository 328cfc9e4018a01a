import assert from 'node:assert/strict';
import type { Problem } from '../../src/http/problem.js';
import { json, type TestContext } from './context.js';

/**
 * GETs `path` and asserts a 400 `invalid_parameter` problem that names `name` first and states the
 * allowed values (`allowed`, e.g. "an integer from 1 to 100") in its detail.
 */
export async function expectInvalidParameter(
  ctx: TestContext,
  path: string,
  name: string,
  allowed: string,
): Promise<Problem> {
  const res = await ctx.get(path);
  assert.equal(res.statusCode, 400, `${path} -> ${res.statusCode} ${res.body}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, path);
  const problem = json<Problem>(res);
  assert.equal(problem.code, 'invalid_parameter', path);
  assert.equal(problem.type, '/api-platform/problems/invalid_parameter', path);
  assert.equal(problem.status, 400, path);
  assert.equal(problem.errors?.[0]?.name, name, path);
  assert.equal(problem.errors[0].in, 'query', path);
  assert.ok(problem.detail.includes(`'${name}' must be ${allowed}`), `${path}: ${problem.detail}`);
  return problem;
}
