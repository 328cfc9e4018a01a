import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RouteOptions } from 'fastify';
import { createTestContext, json, type TestContext } from './helpers/context.js';

/**
 * Every route the service answers is in the served OpenAPI document with the same method and path,
 * unless it is a page for people or a static file, listed below with the reason it is left out.
 * The routes are read from Fastify's route table as the app factory builds it (an onRoute hook),
 * so a route added tomorrow without documentation fails here.
 */

interface Route {
  method: string;
  /** the path as OpenAPI writes it: `:id` becomes `{id}` */
  path: string;
}

interface Exclusion {
  /** the routes it covers: a method list (or every method) and a path pattern */
  methods?: string[];
  path: RegExp;
  why: string;
}

const DEV = '/api-platform/developer';
const EXCLUDED: Exclusion[] = [
  {
    methods: ['HEAD'],
    path: /./,
    why: 'Fastify answers HEAD for every GET route with the GET\u2019s headers (RFC 9110 §9.3.2); documenting each GET covers it',
  },
  {
    methods: ['OPTIONS'],
    path: /./,
    why: 'CORS preflights, answered by the browser-facing CORS rules (the portal and the OAuth endpoints), not operations a client calls',
  },
  {
    path: /^\/api-platform\/v1\/openapi\.json$/,
    why: 'the OpenAPI document itself: the reference loads it, and it cannot usefully describe its own format',
  },
  {
    path: /^\/api-platform\/docs(\/|$)/,
    why: 'the interactive reference and the rendered guides: HTML pages and their scripts',
  },
  {
    path: /^\/api-platform\/problems(\/\{code\})?$/,
    why: 'the pages each problem\u2019s `type` URI points to (HTML, or their JSON twin by content negotiation); the codes are listed in the document\u2019s description',
  },
  {
    path: /^(\/|\/api-platform\/v1)$/,
    why: 'the service index: a browser is redirected to the reference, a program gets links to it; nothing a client library calls',
  },
  { path: /^\/(favicon\.ico|avatars\/\{file\})$/, why: 'static images (the icon, avatar PNGs)' },
  {
    path: new RegExp(`^${DEV}/?$|^${DEV}/assets/\\{file\\}$`),
    why: 'the developer portal\u2019s front page (a redirect to its pages) and its stylesheet and script',
  },
  {
    methods: ['GET'],
    path: new RegExp(
      `^${DEV}/(sign-in|sign-up|keys(/created|/\\{id\\}(/revoke|/origins)?)?|apps(/\\{id\\})?|authorized-apps|webhooks(/\\{id\\})?|webhook-test|identities)$`,
    ),
    why: 'the developer portal\u2019s HTML pages; what they show is documented as its JSON routes',
  },
  {
    methods: ['POST'],
    path: new RegExp(
      `^${DEV}/(sign-in|sign-up|sign-out|keys/(new|\\{id\\}/(revoke|origins))|apps/(new|\\{id\\}/(edit|secret|delete))|authorized-apps/\\{clientId\\}/revoke|webhooks/(new|\\{id\\}/(edit|secret|delete|deliveries/\\{delivery\\}/redeliver))|webhook-test/send|identities/(code|link|remove))$`,
    ),
    why: 'the forms of the portal\u2019s pages (urlencoded, answered with a 303 to a page); the same actions are documented as its JSON routes (game identities: as the `/v1/me` link routes)',
  },
  {
    path: /^\/api-platform\/oauth\/interaction\/\{uid\}(\/sign-in|\/consent)?$/,
    why: 'the sign-in and consent pages of an authorization request, reached only through its redirects',
  },
  {
    methods: ['GET'],
    path: /^\/api-platform\/oauth\/authorize\/\{uid\}$/,
    why: 'the browser\u2019s return to the authorization endpoint once sign-in and consent are done (a redirect target, not called by apps)',
  },
];

const openApiPath = (url: string) => url.replace(/:([A-Za-z_]\w*)/g, '{$1}');
const key = (r: Route) => `${r.method} ${r.path}`;

describe('the route table against the served document', () => {
  let ctx: TestContext;
  const routes: Route[] = [];
  let documented: Set<string>;

  before(async () => {
    ctx = await createTestContext('sqlite', {
      onRoute: (route: RouteOptions) => {
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        for (const method of methods) routes.push({ method, path: openApiPath(route.url) });
      },
    });
    const doc = json<{ paths: Record<string, Record<string, unknown>> }>(
      await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }),
    );
    documented = new Set(
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
  });
  after(() => ctx.close());

  const exclusionOf = (route: Route) =>
    EXCLUDED.find((e) => (e.methods ?? [route.method]).includes(route.method) && e.path.test(route.path));

  it('documents every route that is not a page or a static file', () => {
    assert.ok(routes.length > 100, `only ${routes.length} routes seen`);
    const missing = routes.filter((r) => !exclusionOf(r) && !documented.has(key(r))).map(key);
    assert.deepEqual([...new Set(missing)], [], 'routes the service answers that the document does not show');
  });

  it('documents no page it leaves out, and every operation it shows is a route', () => {
    const table = new Set(routes.map(key));
    assert.deepEqual(
      [...documented].filter((op) => !table.has(op)),
      [],
      'operations with no route',
    );
    const both = routes.filter((r) => exclusionOf(r) && documented.has(key(r)) && r.method !== 'HEAD');
    assert.deepEqual(both.map(key), [], 'an excluded route is documented: drop its exclusion');
  });

  it('has a reason for every exclusion, and each one still covers a route', () => {
    for (const exclusion of EXCLUDED) {
      assert.ok(exclusion.why.length > 20, `no reason for ${String(exclusion.path)}`);
      assert.ok(
        routes.some((r) => exclusionOf(r) === exclusion),
        `the exclusion ${String(exclusion.path)} covers no route any more: remove it`,
      );
    }
  });

  it('documents the OAuth endpoints and the metadata, which answer as documented', async () => {
    for (const op of [
      'GET /api-platform/oauth/authorize',
      'POST /api-platform/oauth/token',
      'POST /api-platform/oauth/revoke',
      'POST /api-platform/oauth/introspect',
      'POST /api-platform/oauth/par',
      'GET /api-platform/oauth/userinfo',
      'GET /api-platform/oauth/jwks',
      'GET /.well-known/oauth-authorization-server',
      'GET /.well-known/openid-configuration',
    ])
      assert.ok(documented.has(op), op);
    // a path the authorization server does not serve is the service's 404 problem, not the provider's text
    const unknown = await ctx.inject({ method: 'GET', url: '/api-platform/oauth/nothing' });
    assert.equal(unknown.statusCode, 404);
    assert.match(String(unknown.headers['content-type']), /^application\/problem\+json/);
    const post = await ctx.inject({ method: 'POST', url: '/.well-known/openid-configuration' });
    assert.equal(post.statusCode, 405, post.body);
  });
});
