import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Problem } from '../src/http/problem.js';
import {
  listBody,
  ListOf,
  One,
  PageQuery,
  pageWindow,
  v1Route,
  type PageParams,
} from '../src/http/v1-route.js';
import { openTestDb, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { pipelineApp } from './helpers/pipeline-app.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * The /v1 route declaration every preview operation uses: the data/meta envelope, paging bounds,
 * the scope carried into the pipeline, and the OpenAPI security requirement it publishes.
 */
describe('v1 route declaration', () => {
  let testDb: TestDb;
  let app: FastifyInstance;
  let key: string;
  const tokens = new TokenTable();
  const items = Array.from({ length: 60 }, (_, i) => ({ n: i + 1 }));

  const list = v1Route({
    operationId: 'v1_things_list',
    tag: 'Things',
    summary: 'List things',
    description: 'Things, paged the /v1 way.',
    scope: 'servers:read',
    querystring: Type.Object(PageQuery),
    response: ListOf(Type.Object({ n: Type.Integer() }), 'a page of things'),
  });
  const mine = v1Route({
    operationId: 'v1_things_me_get',
    tag: 'Things',
    summary: 'My thing',
    description: 'The signed-in user\u2019s own thing.',
    scope: 'identify',
    userContext: true,
    response: One(Type.Object({ user: Type.Integer() }), 'the thing'),
  });

  before(async () => {
    testDb = await openTestDb('sqlite');
    key = (await factories(testDb.db).makeKey({ tier: 'premium' })).secret;
    tokens.tokens.set('tok-identify-v1', userToken(['identify'], { userId: 7 }));
    app = await pipelineApp(testDb.db, tokens, (routes) => {
      routes.get('/things', list, (request) => {
        const query = request.query as PageParams;
        const { limit, offset } = pageWindow(query);
        return listBody(items.slice(offset, offset + limit), items.length, query);
      });
      routes.get('/me', mine, (request) => ({ data: { user: request.principal?.userId ?? 0 } }));
    });
  });
  after(async () => {
    await app.close();
    await testDb.drop();
  });

  const get = (url: string, token = key) =>
    app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  it('pages 25 at a time from page 1 by default, with the total', async () => {
    const res = await get('/things');
    assert.equal(res.statusCode, 200);
    const body = res.json<{ data: { n: number }[]; meta: unknown }>();
    assert.equal(body.data.length, 25);
    assert.equal(body.data[0]?.n, 1);
    assert.deepEqual(body.meta, { total: 60, page: 1, per_page: 25 });
    const last = (await get('/things?page=3&per_page=25')).json<{ data: { n: number }[] }>();
    assert.deepEqual(
      last.data.map((d) => d.n),
      [51, 52, 53, 54, 55, 56, 57, 58, 59, 60],
    );
  });

  it('refuses out-of-range paging with a 400 problem naming the parameter', async () => {
    for (const query of [
      'page=0',
      'per_page=0',
      'per_page=101',
      'page=-1',
      `page=${'9'.repeat(30)}`,
      'per_page=abc',
    ]) {
      const res = await get(`/things?${query}`);
      assert.equal(res.statusCode, 400, query);
      const problem = res.json<Problem>();
      assert.equal(problem.code, 'invalid_parameter', query);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    }
  });

  it('carries the scope and user context into the pipeline', async () => {
    const byKey = await get('/me');
    assert.equal(byKey.statusCode, 403);
    assert.equal(byKey.json<Problem>().code, 'user_context_required');
    const byUser = await get('/me', 'tok-identify-v1');
    assert.equal(byUser.statusCode, 200);
    assert.deepEqual(byUser.json(), { data: { user: 7 } });
    const noScope = await get('/things', 'tok-identify-v1');
    assert.equal(noScope.statusCode, 403);
    assert.equal(noScope.json<Problem>().code, 'insufficient_scope');
  });

  it('publishes OAuth scopes, and the API key only where a key may call', () => {
    assert.deepEqual(list.schema.security, [{ oauth2: ['servers:read'] }, { bearer: [] }]);
    assert.deepEqual(mine.schema.security, [{ oauth2: ['identify'] }]);
    assert.deepEqual(list.config, { auth: 'bearer', scope: 'servers:read' });
    assert.deepEqual(mine.config, { auth: 'bearer', scope: 'identify', userContext: true });
    assert.ok(Object.keys(mine.schema.response).includes('403'));
  });
});
