import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { ERRORS, problemType, type ErrorCode, type Problem } from '../src/http/problem.js';
import { injectAnswer, type Answer } from './helpers/answer.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { registerServer } from './helpers/ingest.js';
import { GOOD_PASSWORD, PORTAL, sessionFrom, signIn, signUp, type PortalSession } from './helpers/portal.js';

/**
 * Property-based fuzzing of every operation in the OpenAPI document: generated parameters of any
 * length and kind (valid, junk, huge, badly encoded, repeated, unknown), bodies (JSON of any shape,
 * deep nesting, wrong content types, text, oversize), headers and credentials (valid, junk,
 * missing), and other methods. Every answer must be below 500, and every 4xx a well-formed problem
 * with a code from the closed list. FUZZ_RUNS sets the runs per operation (CI default below).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
/**
 * A long-poll (an operation with a `wait` parameter) holds a valid request up to 30 s while nothing
 * is due; the fuzzer hangs up on it after this long, as a client with a timeout would (the hub lets
 * go at once: plugin-commands tests that). Without it the holds took 95% of the fuzzer's time.
 */
const HANG_UP_MS = 250;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: Record<string, unknown>;
}
interface Operation {
  method: string;
  path: string;
  base: string;
  parameters: Parameter[];
  security: Record<string, unknown>[];
  /** a long-poll: `wait` holds the request */
  holds: boolean;
}
interface OpenApi {
  servers: { url: string }[];
  paths: Record<
    string,
    Record<
      string,
      {
        servers?: { url: string }[];
        parameters?: Parameter[];
        security?: Record<string, unknown>[];
      }
    >
  >;
}

function operations(doc: OpenApi): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      base: (op.servers ?? doc.servers)[0]?.url.replace(/\/$/, '') ?? '',
      parameters: op.parameters ?? [],
      security: op.security ?? [],
      holds: (op.parameters ?? []).some((p) => p.in === 'query' && p.name === 'wait'),
    })),
  );
}

const printable = (maxLength: number) => fc.stringMatching(new RegExp(`^[\\x20-\\x7e]{0,${maxLength}}$`));

/** Values a client might send for anything: junk of every kind, numbers of any length, tricks. */
const junk = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 400n), max: 10n ** 400n }).map(String),
  fc.nat(400).map((n) => '9'.repeat(n)),
  fc.double().map(String),
  fc.constantFrom(
    '',
    '0',
    '-0',
    '1e3',
    '0x10',
    ' 1',
    '1.5',
    'NaN',
    'Infinity',
    '-Infinity',
    'null',
    'true',
    '[]',
    '{}',
    '__proto__',
    "' OR 1=1 --",
    '../../etc/passwd',
    '\u0000',
    '\ud800',
    'u1',
    '76561197960265729',
    'STEAM_0:1:1',
    '[U:1:2]',
  ),
  fc.string({ maxLength: 300 }),
);

function validValue(schema: Record<string, unknown> | undefined): fc.Arbitrary<string> {
  if (Array.isArray(schema?.enum)) return fc.constantFrom(...(schema.enum as unknown[]).map(String));
  if (schema?.type === 'integer') {
    const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
    const max = typeof schema.maximum === 'number' ? schema.maximum : 1000;
    return fc.integer({ min, max: Math.min(max, min + 100_000) }).map(String);
  }
  return fc.string({ maxLength: 20 });
}

const paramValue = (p: Parameter) => fc.oneof({ weight: 2, arbitrary: validValue(p.schema) }, junk);

/** Percent-encoded as a client would (a lone surrogate cannot be: it becomes U+FFFD first). */
const encode = (value: string) => encodeURIComponent(value.replace(/[\ud800-\udfff]/gu, '\ufffd'));

/** A path segment: usually encoded, sometimes raw tricks the router must survive. */
const pathSegment = (p: Parameter) =>
  fc.oneof(
    { weight: 6, arbitrary: paramValue(p).map(encode) },
    fc.constantFrom('%ZZ', '%', '%E0%A4%A', '%00', '..', '%2F', 'a'.repeat(257), '1'.repeat(150)),
  );

const rawQueryTricks = fc.constantFrom(
  '',
  'a=%ZZ',
  '&&&',
  '=',
  '==1',
  'limit',
  'limit=1&limit=2',
  'limit[]=1',
  '__proto__=1',
  'constructor[prototype][x]=1',
  '%00=%00',
);

const body = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc
    .record(
      {
        username: junk,
        password: junk,
        name: junk,
        events: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }),
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  fc.nat(200).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.nat(200).map((n) => '{"a":'.repeat(n)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom(
    '',
    'null',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '{"a":1e400}',
  ),
  fc.nat(40_000).map((n) => `{"name":"${'x'.repeat(n)}"}`),
);

const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  '*/*',
  'application/json, text/plain',
  ';;;',
);

const credentialChoice = fc.constantFrom('valid', 'valid', 'valid', 'none', 'junk');

type FuzzRequest = InjectOptions & { method: string; url: string };

interface Credentials {
  apiKey: string;
  session: () => PortalSession;
  ingestToken: string;
}

function requestFor(op: Operation, creds: Credentials) {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  return fc
    .record({
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constant(op.method) },
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
      ),
      path: fc.tuple(...pathParams.map(pathSegment), fc.constant('')),
      query: fc.tuple(
        ...queryParams.map((p) => fc.option(paramValue(p), { nil: undefined })),
        fc.constant(undefined),
      ),
      extraQuery: fc.dictionary(printable(10), junk, { maxKeys: 2 }),
      rawQuery: rawQueryTricks,
      credential: credentialChoice,
      junkCredential: printable(80),
      body: fc.option(body, { nil: undefined }),
      contentType,
      headers: fc.record(
        {
          accept: fc.constantFrom('application/json', 'text/html', '*/*', 'image/png', 'application/xml;q=0'),
          'if-none-match': printable(60),
          origin: fc.constantFrom('https://app.example', 'null', 'http://127.0.0.1:3000'),
          'idempotency-key': printable(300),
          'x-forwarded-for': printable(40),
          'sec-fetch-site': fc.constantFrom('cross-site', 'same-origin', 'none'),
        },
        { requiredKeys: [] },
      ),
      remoteAddress: fc.ipV4(),
    })
    .map((g): FuzzRequest => {
      let url = op.base + op.path;
      pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, g.path[i] ?? '')));
      const search = new URLSearchParams();
      queryParams.forEach((p, i) => {
        const value = g.query[i];
        if (value !== undefined) search.append(p.name, value);
      });
      for (const [name, value] of Object.entries(g.extraQuery)) search.append(name, value);
      const query = [search.toString(), g.rawQuery].filter(Boolean).join('&');
      if (query) url += `?${query}`;

      const headers: Record<string, string> = { ...g.headers };
      const schemes = op.security.flatMap((s) => Object.keys(s));
      const useValid = g.credential === 'valid';
      if (g.credential !== 'none') {
        if (schemes.includes('apiKey')) headers['x-api-key'] = useValid ? creds.apiKey : g.junkCredential;
        if (schemes.includes('bearer') || schemes.includes('oauth2'))
          headers.authorization = `Bearer ${useValid ? creds.apiKey : g.junkCredential}`;
        if (schemes.includes('ingestToken'))
          headers.authorization = `Bearer ${useValid ? creds.ingestToken : g.junkCredential}`;
        if (schemes.includes('session') || op.base + op.path === `${PORTAL}/keys`) {
          const session = creds.session();
          headers.cookie = useValid ? session.cookie : `hub_session=${encodeURIComponent(g.junkCredential)}`;
          headers['x-csrf-token'] = useValid ? session.csrf : g.junkCredential;
        }
      }
      if (g.contentType !== undefined) headers['content-type'] = g.contentType;
      // a GET with a body is legal HTTP but no client sends one; every other method gets bodies
      const withBody = g.body !== undefined && g.method !== 'GET';
      return {
        // a method name from the OpenAPI document, typed as inject() takes it
        method: g.method as NonNullable<InjectOptions['method']>,
        url,
        headers,
        remoteAddress: g.remoteAddress,
        ...(withBody ? { payload: g.body } : {}),
      };
    });
}

const CODES = new Set(Object.keys(ERRORS));

/**
 * The web pages among the fuzzed paths, as `METHOD /path`: a method the app serves on a documented
 * path that the document does not list there (pages are hidden from it; `/keys/{id}/origins` is a
 * JSON route for PUT and the form for GET). A page answers with an HTML error page, by design.
 */
function pagesAmong(app: TestContext['app'], doc: OpenApi, ops: Operation[]): Set<string> {
  const pages = new Set<string>();
  for (const op of ops) {
    const url = op.base + op.path.replace(/\{([^}]+)\}/g, ':$1');
    const documented = Object.keys(doc.paths[op.path] ?? {}).map((m) => m.toUpperCase());
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      if (!documented.includes(method) && app.hasRoute({ method, url }))
        pages.add(`${method} ${op.base}${op.path}`);
    }
  }
  return pages;
}

/** The OAuth authorization server's operations answer in the protocol's formats (RFC 6749). */
const isOAuth = (path: string) => path.startsWith('/api-platform/oauth/') || path.startsWith('/.well-known/');

/**
 * No 5xx; every 4xx a problem document with a code from the closed list and matching status, or,
 * from a web page, an HTML page; from an OAuth endpoint, an RFC 6749 error (or the authorization
 * endpoint's HTML page for the user), as the document says.
 */
function checkAnswer(req: FuzzRequest, res: Answer, page: boolean, oauth = false): void {
  const what = `${req.method} ${req.url} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  assert.ok(res.statusCode < 500, what);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
  if (res.statusCode < 400 || req.method === 'HEAD') return;
  if (page && /^text\/html/.test(String(res.headers['content-type']))) return;
  // (what the service refuses before the provider reads it, a 404, 405 or 415, is a problem as anywhere)
  if (oauth && !/^application\/problem\+json/.test(String(res.headers['content-type']))) {
    if (/^text\/html/.test(String(res.headers['content-type'])) && req.url.includes('/authorize')) return;
    assert.match(String(res.headers['content-type']), /^application\/json/, what);
    assert.equal(typeof res.json<{ error: unknown }>().error, 'string', what);
    return;
  }
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, what);
  const problem = res.json<Problem>();
  assert.ok(CODES.has(problem.code), what);
  const code = problem.code as ErrorCode;
  assert.equal(ERRORS[code].status, res.statusCode, what);
  assert.equal(problem.status, res.statusCode, what);
  assert.equal(problem.type, problemType(code), what);
  assert.equal(problem.title, ERRORS[code].title, what);
  assert.equal(typeof problem.detail, 'string', what);
  assert.equal(problem.instance, res.headers['x-request-id'], what);
}

for (const dialect of testDialects()) {
  describe(`fuzz: every OpenAPI operation with generated malformed input (${dialect})`, () => {
    let ctx: TestContext;
    let ops: Operation[];
    let pages: Set<string>;
    let creds: Credentials;
    let session: PortalSession;
    const statuses = new Map<number, number>();
    let requests = 0;
    let hungUp = 0;

    /** The answer, or undefined when the fuzzer hung up on a long-poll still holding (HANG_UP_MS). */
    async function send(op: Operation, req: FuzzRequest): Promise<Answer | undefined> {
      if (!op.holds || req.method !== op.method) return injectAnswer(ctx.app, req);
      const client = new AbortController();
      const timer = setTimeout(() => client.abort(), HANG_UP_MS);
      try {
        return await injectAnswer(ctx.app, { ...req, signal: client.signal });
      } catch (err) {
        if (client.signal.aborted) return undefined;
        throw err;
      } finally {
        clearTimeout(timer);
      }
    }

    before(async () => {
      ctx = await createTestContext(dialect);
      const doc = json<OpenApi>(await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }));
      ops = operations(doc);
      pages = pagesAmong(ctx.app, doc, ops);
      const apiKey = (await ctx.makeKey({ tier: 'partner', quota: 1_000_000_000, name: 'fuzz' })).secret;
      const server = await registerServer(ctx.testDb.db, 'cs2');
      session = await signUp(ctx, 'fuzzer_account');
      creds = { apiKey, ingestToken: server.token, session: () => session };
    });
    after(() => ctx.close());

    it('lists the operations to fuzz, and knows which of their paths are also web pages', () => {
      assert.ok(ops.length >= 20, `only ${ops.length} operations`);
      assert.ok(pages.has(`GET ${PORTAL}/keys/{id}/origins`), [...pages].join(', '));
      const elsewhere = [...pages].filter((p) => !p.split(' ')[1]?.startsWith(`${PORTAL}/`));
      assert.deepEqual(elsewhere, [], 'web pages are the portal\u2019s only');
    });

    it('answers every generated request below 500, every 4xx as a problem from the closed list', async () => {
      for (const op of ops) {
        await fc.assert(
          fc.asyncProperty(requestFor(op, creds), async (req) => {
            // (a live event stream is dropped once its status and headers are in)
            const res = await send(op, req);
            requests++;
            if (res === undefined) {
              hungUp++;
              return;
            }
            statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
            checkAnswer(req, res, pages.has(`${req.method} ${op.base}${op.path}`), isOAuth(op.path));
            // a generated sign-out ends the fuzzer's session; sign in again for the next requests
            if (req.url === `${PORTAL}/session` && req.method === 'DELETE' && res.statusCode === 204) {
              session = sessionFrom(ctx, await signIn(ctx, 'fuzzer_account', GOOD_PASSWORD, {}, '192.0.2.1'));
            }
          }),
          { numRuns: RUNS },
        );
      }
      const byStatus = [...statuses.entries()].sort(([a], [b]) => a - b);
      console.log(
        `fuzz (${dialect}): ${requests} requests over ${ops.length} operations; by status: ${byStatus
          .map(([status, count]) => `${status}: ${count}`)
          .join(', ')}; long-polls hung up on: ${hungUp}`,
      );
      assert.ok(
        byStatus.some(([status]) => status < 300),
        'no request got through: the generator only produces refusals',
      );
    });
  });
}
