import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { dereference, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type {
  HeaderObject,
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  ResponseObject,
  SchemaObject,
} from '../src/http/docs/openapi-types.js';
import { ERRORS, type ErrorCode, type Problem } from '../src/http/problem.js';
import { createTestContext, json } from './helpers/context.js';

// Completeness is checked over every operation the document has, so a route added later is held
// to the same bar without this file changing.

const ctx = await createTestContext('sqlite');
const served = await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' });
const doc = json<OpenApiDocument>(served);
// The parser resolves every $ref (headers, Problem, User...) in a copy; external refs are refused.
type ApiDocument = Parameters<typeof dereference>[0];
const parserOptions = { resolve: { external: false } };
const resolved = (await dereference(
  structuredClone(doc) as unknown as ApiDocument,
  parserOptions,
)) as unknown as OpenApiDocument;

const allOperations = Object.entries(resolved.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method, op, raw: doc.paths[path]?.[method] })),
);
const isPublished = (op: OperationObject) => JSON.stringify(op.security) === JSON.stringify([{ apiKey: [] }]);
// The published API (key-protected); the portal's session routes are held to their own checks below.
const operations = allOperations.filter(({ op }) => isPublished(op));
const isPreview = (path: string) => path.startsWith('/v1/');
const isOAuth = (path: string) => path.startsWith('/api-platform/oauth/') || path.startsWith('/.well-known/');
const oauthOperations = allOperations.filter(({ path }) => isOAuth(path));
const portalOperations = allOperations.filter(
  ({ op, path }) => !isPublished(op) && !isPreview(path) && !isOAuth(path),
);
const previewOperations = allOperations.filter(({ path }) => isPreview(path));

const ajv = new Ajv2020({ strict: false, allErrors: true });
formats.default(ajv);
const problemValidator = ajv.compile(resolved.components.schemas?.Problem ?? {});

const QUOTA_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-used',
  'x-ratelimit-reset',
  'RateLimit-Policy',
  'RateLimit',
];

/** Leaf fields of a response schema that carry no example value (nor const, enum or default). */
function fieldsWithoutExamples(schema: SchemaObject, at: string): string[] {
  const hasValue =
    (schema.examples?.length ?? 0) > 0 ||
    schema.example !== undefined ||
    schema.const !== undefined ||
    (schema.enum?.length ?? 0) > 0 ||
    schema.default !== undefined;
  if (hasValue || schema.type === 'null') return [];
  const members = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  if (members.length) return members.flatMap((m, i) => fieldsWithoutExamples(m, `${at}|${i}`));
  if (schema.properties)
    return Object.entries(schema.properties).flatMap(([name, s]) =>
      fieldsWithoutExamples(s, `${at}.${name}`),
    );
  if (schema.items) return fieldsWithoutExamples(schema.items, `${at}[]`);
  return [at];
}

/** What the parameters of an operation lack: a description, a schema, bounds, defaults. */
function parameterProblems(op: OperationObject): string[] {
  const problems: string[] = [];
  for (const p of op.parameters ?? []) {
    const where = `${p.in} parameter ${p.name}`;
    const s: SchemaObject = p.schema ?? {};
    if (!p.description || p.description.length < 5) problems.push(`${where}: no description`);
    if (!p.schema) problems.push(`${where}: no schema`);
    if (p.in === 'path' && p.required !== true) problems.push(`${where}: path parameters are required`);
    if (s.type === 'integer' || s.type === 'number') {
      if (s.minimum === undefined || s.maximum === undefined) problems.push(`${where}: no minimum/maximum`);
      // An optional number has a default, unless it is a filter whose description says what
      // leaving it out means.
      if (p.in === 'query' && !p.required && s.default === undefined && !/omit/i.test(p.description ?? ''))
        problems.push(`${where}: optional without a default (or "omit ..." in its description)`);
      if (
        typeof s.default === 'number' &&
        (s.default < (s.minimum ?? -Infinity) || s.default > (s.maximum ?? Infinity))
      )
        problems.push(`${where}: default ${s.default} outside its bounds`);
    }
    if (s.type === 'string' && p.in !== 'header' && !s.enum && !s.pattern && s.maxLength === undefined)
      problems.push(`${where}: a string needs an enum, a pattern or a maxLength`);
  }
  return problems;
}

/** Every response of 400 and up: problem+json by reference to Problem, with a valid example per code. */
function assertProblemResponses(op: OperationObject, raw: OperationObject | undefined): void {
  for (const [status, response] of Object.entries(op.responses)) {
    assert.ok(response.description, `${status} has no description`);
    if (Number(status) < 400) continue;
    assert.deepEqual(Object.keys(response.content ?? {}), ['application/problem+json'], status);
    assert.deepEqual(raw?.responses[status]?.content?.['application/problem+json']?.schema, {
      $ref: '#/components/schemas/Problem',
    });
    const examples = Object.entries(response.content?.['application/problem+json']?.examples ?? {});
    assert.ok(examples.length > 0, `${status} has no example`);
    for (const [code, example] of examples) {
      const body = example.value as Problem;
      assert.ok(problemValidator(body), `${status} ${code}: ${JSON.stringify(problemValidator.errors)}`);
      assert.equal(body.code, code);
      assert.equal(body.status, Number(status));
      assert.equal(ERRORS[code as ErrorCode].status, Number(status));
      assert.equal(body.type, `/api-platform/problems/${code}`);
      assert.ok(response.description.includes(`\`${code}\``), `${status} description omits ${code}`);
    }
  }
}

/** A success response's JSON: a schema, an example valid against it, and examples on every field. */
function assertJsonExample(response: ResponseObject, status: string): void {
  const media = response.content?.['application/json'];
  assert.ok(media?.schema, `${status} has no application/json schema`);
  assert.notEqual(media.example, undefined, `${status} has no example`);
  const check = ajv.compile(media.schema);
  assert.ok(check(media.example), JSON.stringify(check.errors));
  assert.deepEqual(
    fieldsWithoutExamples(media.schema, 'body'),
    [],
    `${status}: response fields without \`examples\``,
  );
}

function headerNames(headers: Record<string, unknown> | undefined): string[] {
  return Object.keys(headers ?? {});
}

describe('OpenAPI document', () => {
  after(() => ctx.close());

  it('is served without a key, as JSON with an ETag', () => {
    assert.equal(served.statusCode, 200);
    assert.match(String(served.headers['content-type']), /^application\/json/);
    assert.ok(served.headers.etag);
    assert.equal(served.headers['x-ratelimit-limit'], undefined);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const result = await validate(structuredClone(doc) as unknown as ApiDocument, parserOptions);
    assert.ok(result.valid, result.valid ? '' : JSON.stringify(result.errors, null, 2));
    assert.deepEqual(result.warnings, []);
  });

  it('describes the API: version, server, key header, tiers, quota headers, caching, errors, policy', () => {
    assert.equal(doc.info.title, 'Gaming Hub API');
    assert.equal(doc.info.version, '1.0.0');
    assert.deepEqual(
      doc.servers?.map((s) => s.url),
      ['/'],
    );
    assert.deepEqual(doc.components.securitySchemes?.apiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description: 'Your API key (`ghk_` followed by 38 letters and digits), from the developer portal.',
    });
    assert.deepEqual(doc.security, [{ apiKey: [] }]);
    const text = doc.info.description ?? '';
    // The tier table of SPEC "Limits", rendered from TIERS.
    for (const row of [
      '| free | 100 | default tier for all API keys |',
      '| authenticated | 1,000 | users with an active subscription |',
      '| premium | 10,000 | subscribers of the top subscription tier |',
      '| partner | 50,000 | approved partner applications |',
    ])
      assert.ok(text.includes(row), `tier row missing: ${row}`);
    for (const word of [
      ...QUOTA_HEADERS,
      'Retry-After',
      'ETag',
      'If-None-Match',
      '304 Not Modified',
      'application/problem+json',
      '## Pagination',
      '## Versioning and deprecation',
      'WWW-Authenticate: ApiKey header="x-api-key"',
    ])
      assert.ok(text.includes(word), `info.description does not mention ${word}`);
    // Every error code is listed, linking to its explanation page.
    for (const code of Object.keys(ERRORS))
      assert.ok(text.includes(`[\`${code}\`](/api-platform/problems/${code})`), `error table lacks ${code}`);
  });

  it('names shared schemas by $id and documents the shared headers', () => {
    const names = Object.keys(doc.components.schemas ?? {});
    for (const name of ['Problem', 'User', 'UserStats']) assert.ok(names.includes(name), name);
    assert.deepEqual(
      names.filter((n) => /^def-\d+$/.test(n)),
      [],
      'a shared schema has no $id',
    );
    for (const [name, header] of Object.entries(doc.components.headers ?? {})) {
      assert.ok(header.description.length > 10, name);
      assert.ok(header.schema.type, name);
      assert.notEqual(header.example, undefined, name);
    }
  });

  it('shows a 202 sharing the 200\u2019s named body with its own example and its Location header', () => {
    const responses = doc.paths['/v1/servers/{id}/command']?.post?.responses ?? {};
    const example = (status: string) =>
      (responses[status]?.content?.['application/json']?.example as { data: { status: string } } | undefined)
        ?.data.status;
    assert.deepEqual([example('200'), example('202')], ['ok', 'pending']);
    assert.ok(responses['202']?.headers?.Location, 'the 202 declares its Location');
    assert.equal(responses['200']?.headers?.Location, undefined);
  });

  it('lists a described tag for every operation, and no empty tag', () => {
    const names = (doc.tags ?? []).map((t) => t.name);
    assert.deepEqual(
      names.filter((name, i) => names.indexOf(name) !== i),
      [],
      'each tag is declared once',
    );
    const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
    const used = new Set(allOperations.flatMap(({ op }) => op.tags ?? []));
    for (const [name, description] of declared) {
      assert.ok(description.length > 20, `tag ${name} needs a description`);
      assert.ok(used.has(name), `tag ${name} has no operation`);
    }
    for (const tag of used) assert.ok(declared.has(tag), `tag ${tag} is not declared in TAGS`);
    for (const tag of used)
      assert.ok(
        [
          'Users',
          'Leaderboards',
          'Tournaments',
          'Servers',
          'Forum',
          'Achievements',
          'Killboard',
          'ELO',
          'Developer portal',
          'OAuth',
          'Ingest',
          'Operations',
          // the preview surface's own tags (tags belong to one surface)
          'v1 Users',
          'v1 Tournaments',
          'v1 Servers',
          'v1 Clans',
          'v1 Economy',
          'v1 Events',
          'v1 Webhooks',
        ].includes(tag),
        `unexpected tag ${tag}`,
      );
  });

  it('has at least the operations of this branch, with unique operationIds', () => {
    const ids = operations.map(({ op }) => op.operationId);
    for (const id of ['users_get', 'users_stats_get']) assert.ok(ids.includes(id), id);
    assert.equal(new Set(ids).size, ids.length);
  });

  for (const { path, method, op, raw } of operations) {
    describe(`${method.toUpperCase()} ${path}`, () => {
      const hasInputs = (op.parameters ?? []).some((p) => p.in === 'query' || p.in === 'path');

      it('has an operationId, summary, description, one tag and the key requirement', () => {
        assert.match(op.operationId ?? '', /^[a-z][a-z0-9_]+$/); // the full rule: openapi-ids.test.ts
        assert.ok((op.summary ?? '').length >= 5, 'summary');
        assert.ok((op.description ?? '').length >= 20, 'description');
        assert.notEqual(op.description, op.summary);
        assert.equal(op.tags?.length, 1);
        assert.doesNotMatch(String(op.tags), /^v1 /, 'a tag of the published surface');
        assert.deepEqual(op.security, [{ apiKey: [] }]);
        assert.equal(
          Object.keys(op).filter((k) => k.startsWith('x-hub-')).length,
          0,
          'generator marks must not leak into the document',
        );
      });

      it('documents every parameter with a description, a schema, bounds and defaults', () => {
        const problems = parameterProblems(op);
        const conditional = (op.parameters ?? []).find(
          (p: ParameterObject) => p.in === 'header' && p.name === 'If-None-Match',
        );
        if (!conditional?.description) problems.push('no If-None-Match header parameter');
        assert.deepEqual(problems, []);
      });

      it('documents 200 with the quota and ETag headers and an example valid against its schema', () => {
        const ok = op.responses['200'];
        assert.ok(ok, 'no 200');
        assert.ok(ok.description.length > 5);
        for (const h of [...QUOTA_HEADERS, 'ETag', 'x-request-id'])
          assert.ok(headerNames(ok.headers).includes(h), `200 lacks header ${h}`);
        for (const h of Object.values(ok.headers ?? {})) assert.ok((h as HeaderObject).description);
        assertJsonExample(ok, '200');
      });

      it('documents 304 Not Modified without a body', () => {
        const notModified = op.responses['304'];
        assert.ok(notModified, 'no 304');
        assert.match(notModified.description, /Not Modified/);
        assert.equal(notModified.content, undefined);
        assert.ok(headerNames(notModified.headers).includes('ETag'));
      });

      it('documents every error as application/problem+json with a valid example per code', () => {
        const required = ['401', '429', '500', ...(hasInputs ? ['400'] : [])];
        for (const status of required) assert.ok(op.responses[status], `no ${status} response`);
        assert.ok(headerNames(op.responses['401']?.headers).includes('WWW-Authenticate'), '401 challenge');
        assert.ok(headerNames(op.responses['429']?.headers).includes('Retry-After'), '429 Retry-After');
        assertProblemResponses(op, raw);
      });

      it('documents the 400 the service really answers for an out-of-range parameter', async (t) => {
        const example = op.responses['400']?.content?.['application/problem+json']?.examples
          ?.invalid_parameter?.value as Problem | undefined;
        const invalid = example?.errors?.[0];
        if (!invalid) {
          assert.equal(hasInputs, false, 'an operation with parameters documents an out-of-range example');
          return t.skip('no parameters');
        }
        const value = /\(got (.*)\)$/.exec(invalid.reason)?.[1];
        assert.ok(value, invalid.reason);
        const bad = JSON.parse(value) as string | number;
        let url = path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
          invalid.in === 'path' && name === invalid.name ? encodeURIComponent(String(bad)) : '1',
        );
        if (invalid.in === 'query') url += `?${invalid.name}=${encodeURIComponent(String(bad))}`;
        const res = await ctx.get(url.slice('/api-platform/v1'.length));
        assert.equal(res.statusCode, 400, url);
        const answer = json<Problem>(res);
        assert.equal(answer.detail, example.detail);
        assert.deepEqual(answer.errors, example.errors);
      });
    });
  }
});

describe('paths, as client generators read them', () => {
  // Generators ignore per-path and per-operation `servers` (DESIGN.md, "Client libraries"): one
  // server for the whole document, and every path written in full from the service's root.
  it('has one server, the service root, and no other server anywhere', () => {
    assert.deepEqual(
      doc.servers?.map((s) => s.url),
      ['/'],
    );
    for (const [path, item] of Object.entries(doc.paths)) {
      assert.equal((item as { servers?: unknown }).servers, undefined, path);
      for (const [method, op] of Object.entries(item))
        assert.equal(op.servers, undefined, `${method} ${path}`);
    }
  });

  it('writes every path in full, under one of the surfaces', () => {
    const surfaces =
      /^\/(api-platform\/(v1|developer|ingest|oauth)\/|v1\/|\.well-known\/|(health|ready|metrics)$)/;
    assert.deepEqual(
      Object.keys(doc.paths).filter((path) => !surfaces.test(path)),
      [],
    );
    assert.ok(doc.paths['/api-platform/v1/users/{id}']?.get, 'the published API under its prefix');
    assert.ok(doc.paths['/v1/clans']?.get, 'the preview API under /v1');
  });
});

describe('operation list', () => {
  it('is not empty', () => {
    assert.ok(operations.length >= 2, `only ${operations.length} operations`);
    const sample: OperationObject | undefined = resolved.paths['/api-platform/v1/users/{id}']?.get;
    assert.equal(sample?.summary, 'Get a public user profile');
  });
});

describe('developer portal and ingest operations', () => {
  it('are documented in the same document under their own tag', () => {
    const ids = portalOperations.map(({ op }) => op.operationId);
    for (const id of [
      'developer_my_keys_list',
      'developer_keys_create',
      'developer_keys_revoke',
      'developer_keys_usage_get',
      'developer_accounts_create',
      'developer_session_create',
      'ingest_logs_create',
      'ingest_events_create',
      'ops_health_get',
      'ops_ready_get',
      'ops_metrics_get',
    ])
      assert.ok(ids.includes(id), `${id} in ${ids.join(', ')}`);
  });

  for (const { path, method, op } of portalOperations) {
    it(`${method.toUpperCase()} ${path}: server, tag, security, problem+json errors`, () => {
      const ingest = path.startsWith('/api-platform/ingest/');
      const ops = ['/health', '/ready', '/metrics'].includes(path);
      assert.ok(ingest || ops || path.startsWith('/api-platform/developer/'), path);
      assert.deepEqual(op.tags, [ingest ? 'Ingest' : ops ? 'Operations' : 'Developer portal']);
      assert.match(op.operationId ?? '', /^[a-z][a-z0-9_]+$/); // the full rule: openapi-ids.test.ts
      assert.ok((op.summary ?? '').length >= 5 && (op.description ?? '').length >= 20);
      const security = JSON.stringify(op.security);
      if (ingest) assert.equal(security, JSON.stringify([{ ingestToken: [] }]));
      else if (ops)
        assert.ok(security === '[]' || security === JSON.stringify([{}, { metricsToken: [] }]), security);
      else
        assert.ok(
          security === JSON.stringify([{ session: [] }]) || security === '[]',
          `security ${security}`,
        );
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        assert.ok(response.content?.['application/problem+json'], `${status} is not problem+json`);
      }
    });
  }
});

describe('OAuth authorization server operations', () => {
  it('are the endpoints the metadata names, and the metadata itself', () => {
    assert.deepEqual(oauthOperations.map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort(), [
      'GET /.well-known/oauth-authorization-server',
      'GET /.well-known/openid-configuration',
      'GET /api-platform/oauth/authorize',
      'GET /api-platform/oauth/jwks',
      'GET /api-platform/oauth/userinfo',
      'POST /api-platform/oauth/introspect',
      'POST /api-platform/oauth/par',
      'POST /api-platform/oauth/revoke',
      'POST /api-platform/oauth/token',
      'POST /api-platform/oauth/userinfo',
    ]);
  });

  for (const { path, method, op } of oauthOperations) {
    it(`${method.toUpperCase()} ${path}: tag, resource_action id, forms in, RFC 6749 errors out`, () => {
      assert.deepEqual(op.tags, ['OAuth']);
      assert.match(op.operationId ?? '', /^(oauth|well_known)_[a-z]+(_[a-z]+)*$/);
      assert.ok((op.summary ?? '').length >= 5 && (op.description ?? '').length >= 20);
      const body = (op as { requestBody?: { content: Record<string, unknown> } }).requestBody;
      for (const type of Object.keys(body?.content ?? {}))
        assert.equal(type, 'application/x-www-form-urlencoded', 'OAuth requests are forms');
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content ?? {};
        const html = path.endsWith('/authorize') && Object.keys(media).join() === 'text/html';
        const schema = media['application/json']?.schema as { required?: string[] } | undefined;
        assert.ok(
          html || (schema?.required ?? []).includes('error'),
          `${status} is an OAuth error (RFC 6749 §5.2)`,
        );
      }
    });
  }
});

describe('preview /v1 operations', () => {
  for (const { path, method, op, raw } of previewOperations) {
    it(`${method.toUpperCase()} ${path}: server, tag, OAuth scope, bearer errors as problem+json`, () => {
      assert.equal(op.tags?.length, 1);
      assert.match(String(op.tags), /^v1 /, 'a tag of the preview surface');
      assert.match(op.operationId ?? '', /^[a-z][a-z0-9_]+$/); // the full rule: openapi-ids.test.ts
      assert.ok((op.summary ?? '').length >= 5 && (op.description ?? '').length >= 20);
      const security = op.security ?? [];
      assert.ok(
        security.some((s) => Array.isArray(s.oauth2)),
        `an oauth2 requirement in ${JSON.stringify(security)}`,
      );
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        assert.ok(response.content?.['application/problem+json'], `${status} is not problem+json`);
      }
      assert.ok(op.responses['401'], 'documents 401 for a missing or invalid token');
    });

    it(`${method.toUpperCase()} ${path}: parameters with bounds, an example per success and per error code`, () => {
      assert.deepEqual(
        parameterProblems(op).filter((p) => !p.includes('header parameter')),
        [],
      );
      const successes = Object.entries(op.responses).filter(([status]) => Number(status) < 300);
      assert.ok(successes.length > 0, 'no success response');
      for (const [status, response] of successes) {
        assert.ok(response.description, `${status} has no description`);
        if (response.content?.['application/json']) assertJsonExample(response, status);
        else if (status !== '204')
          for (const [type, media] of Object.entries(response.content ?? {}))
            assert.ok(media.example !== undefined || media.examples, `${status} ${type} has no example`);
      }
      assertProblemResponses(op, raw);
    });
  }
});
