import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { errorsPlugin } from '../../src/http/errors.js';
import type { Problem } from '../../src/http/problem.js';

describe('validation problems for a literal union parameter', () => {
  it('name the parameter once, with its allowed values', async () => {
    const app = Fastify({ logger: false, ajv: { customOptions: { verbose: true, allErrors: false } } });
    await app.register(errorsPlugin);
    const period = Type.Union([Type.Literal('week'), Type.Literal('month'), Type.Literal('all')]);
    app.get('/top', { schema: { querystring: Type.Object({ period: Type.Optional(period) }) } }, () => ({}));
    const res = await app.inject({ method: 'GET', url: '/top?period=year' });
    await app.close();
    assert.equal(res.statusCode, 400);
    const problem = res.json<Problem>();
    assert.equal(problem.detail, `query parameter 'period' must be one of: week, month, all (got "year")`);
    assert.deepEqual(problem.errors, [
      { in: 'query', name: 'period', reason: 'must be one of: week, month, all (got "year")' },
    ]);
  });
});
