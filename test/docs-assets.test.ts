import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, type TestContext } from './helpers/context.js';

const DOCS = '/api-platform/docs';
const OPENAPI = '/api-platform/v1/openapi.json';
const BROWSER = 'gzip, deflate, br, zstd';

const decoded = (res: LightMyRequestResponse): Buffer => {
  const coding = res.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(res.rawPayload);
  if (coding === 'gzip') return gunzipSync(res.rawPayload);
  assert.equal(coding, undefined);
  return res.rawPayload;
};

describe('docs assets: hashed names, precompressed, cached', () => {
  let ctx: TestContext;
  let page: LightMyRequestResponse;
  let scripts: string[];
  before(async () => {
    ctx = await createTestContext('sqlite');
    page = await get(`${DOCS}/`);
    scripts = [...page.body.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => `${DOCS}/${m[1] ?? ''}`);
  });
  after(() => ctx.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    ctx.inject({ method: 'GET', url, headers });

  it('serves the page behind one redirect, with scripts only from content-hashed local files', async () => {
    const bare = await get(DOCS);
    assert.equal(bare.statusCode, 301);
    assert.equal(bare.headers.location, `${DOCS}/`);
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.ok(!/(src|href)="https?:/i.test(page.body), 'the page references another host');
    assert.equal(scripts.length, 2);
    for (const script of scripts) assert.match(script, /^\/api-platform\/docs\/assets\/\w+\.[\w-]{16}\.js$/);
    // Every <script> has a src: nothing inline for the policy to allow.
    assert.equal((page.body.match(/<script\b/g) ?? []).length, 2);
  });

  it('sends a policy with no inline script, and the page is revalidated by ETag', async () => {
    const csp = String(page.headers['content-security-policy']);
    const scriptSrc = /(?:^|;\s*)script-src ([^;]*)/.exec(csp)?.[1];
    assert.equal(scriptSrc, "'self'");
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(page.headers['cache-control'], 'no-cache');
    const etag = String(page.headers.etag);
    const again = await get(`${DOCS}/`, { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  it('starts Scalar with the configuration that keeps it offline, from a script file', async () => {
    const start = scripts.find((s) => s.includes('/reference.'));
    assert.ok(start);
    const body = (await get(start)).body;
    assert.match(body, /^'use strict';\nScalar\.createApiReference\('#app', \{/);
    const config = JSON.parse(/createApiReference\('#app', (\{.*\})\);/s.exec(body)?.[1] ?? '{}') as Record<
      string,
      unknown
    >;
    assert.equal(config.url, OPENAPI);
    assert.equal(config.withDefaultFonts, false);
    assert.equal(config.telemetry, false);
    assert.deepEqual(config.agent, { disabled: true });
  });

  it('serves the Scalar bundle brotli- or gzip-compressed by Accept-Encoding, immutable', async () => {
    const bundle = scripts.find((s) => s.includes('/scalar.'));
    assert.ok(bundle);
    const plain = await get(bundle);
    assert.equal(plain.statusCode, 200);
    assert.match(String(plain.headers['content-type']), /^text\/javascript/);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.rawPayload.length > 1_000_000);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(plain.headers.vary, 'Accept-Encoding');

    const br = await get(bundle, { 'accept-encoding': BROWSER });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(Number(br.headers['content-length']), br.rawPayload.length);
    assert.ok(br.rawPayload.length < plain.rawPayload.length / 3, `brotli: ${br.rawPayload.length} bytes`);
    assert.ok(decoded(br).equals(plain.rawPayload));

    const gz = await get(bundle, { 'accept-encoding': 'gzip, deflate' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.ok(decoded(gz).equals(plain.rawPayload));
    assert.ok(gz.rawPayload.length < plain.rawPayload.length / 3, `gzip: ${gz.rawPayload.length} bytes`);

    // One strong validator per coding (RFC 9110); any of them revalidates, as all are the same bytes.
    const etags = new Set([plain, br, gz].map((r) => String(r.headers.etag)));
    assert.equal(etags.size, 3);
    for (const etag of etags) {
      const revalidated = await get(bundle, { 'if-none-match': etag, 'accept-encoding': BROWSER });
      assert.equal(revalidated.statusCode, 304, etag);
      assert.equal(revalidated.headers.etag, br.headers.etag);
    }
    const head = await ctx.inject({ method: 'HEAD', url: bundle, headers: { 'accept-encoding': BROWSER } });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-encoding'], 'br');
    assert.equal(head.body, '');

    process.stdout.write(
      `# docs bundle bytes: identity ${plain.rawPayload.length}, br ${br.rawPayload.length}, gzip ${gz.rawPayload.length}\n`,
    );
  });

  it('honours q-values, refusals and a missing header', async () => {
    const bundle = scripts[0] ?? '';
    const coding = async (acceptEncoding: string) =>
      (await get(bundle, { 'accept-encoding': acceptEncoding })).headers['content-encoding'];
    assert.equal(await coding('br;q=0, gzip'), 'gzip');
    assert.equal(await coding('gzip;q=1, br;q=0.5'), 'gzip');
    assert.equal(await coding('*'), 'br');
    assert.equal(await coding('*;q=0.5, gzip'), 'gzip');
    assert.equal(await coding('identity'), undefined);
    assert.equal(await coding('deflate'), undefined);
    assert.equal(await coding('br;q=0, gzip;q=0'), undefined);
    assert.equal(await coding('br;q=nonsense, gzip'), 'gzip');
  });

  it('answers an unknown or stale asset name with a 404 problem', async () => {
    for (const name of ['scalar.js', 'scalar.AAAAAAAAAAAAAAAA.js', '..%2Fdocs']) {
      const res = await get(`${DOCS}/assets/${name}`);
      assert.equal(res.statusCode, 404, name);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    }
  });

  it('serves the OpenAPI document compressed and revalidated', async () => {
    const plain = await get(OPENAPI);
    assert.equal(plain.statusCode, 200);
    assert.match(String(plain.headers['content-type']), /^application\/json/);
    assert.equal(plain.headers['cache-control'], 'no-cache');
    const br = await get(OPENAPI, { 'accept-encoding': BROWSER });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(JSON.parse(decoded(br).toString()), plain.json());
    assert.ok(br.rawPayload.length < plain.rawPayload.length / 5);
    const again = await get(OPENAPI, {
      'accept-encoding': BROWSER,
      'if-none-match': String(br.headers.etag),
    });
    assert.equal(again.statusCode, 304);
    process.stdout.write(
      `# openapi.json bytes: identity ${plain.rawPayload.length}, br ${br.rawPayload.length}\n`,
    );
  });
});
