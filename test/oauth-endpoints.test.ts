import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import {
  authorizationCode,
  openAuthorization,
  pkcePair,
  REDIRECT_URI,
  registerApp,
  userTokens,
} from './helpers/oauth.js';
import { FORM, signUp, type PortalSession } from './helpers/portal.js';

/**
 * The OAuth endpoints answer what the served document says they answer: each body is checked
 * against the document's own component with an independent validator (Ajv 2020, strict), errors are
 * RFC 6749 JSON, and forms follow RFC 6749 §3.2 (unknown parameters ignored, repeated ones refused).
 */

interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
  components: { schemas: Record<string, unknown> };
}

describe('OAuth endpoints as documented', () => {
  let ctx: TestContext;
  let doc: Doc;
  let developer: PortalSession;
  let client: { clientId: string; secret: string | undefined };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  formats.default(ajv);

  before(async () => {
    ctx = await createTestContext('sqlite');
    doc = json<Doc>(await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }));
    ajv.addSchema({ $id: 'doc', components: doc.components });
    developer = await signUp(ctx);
    client = await registerApp(ctx, developer.accountId);
  });
  after(() => ctx.close());

  /** The answer's status and media type are documented for the operation, and its body fits the schema. */
  function assertDocumented(method: string, path: string, res: LightMyRequestResponse): void {
    const label = `${method} ${path} ${res.statusCode} ${res.body.slice(0, 300)}`;
    const response = doc.paths[path]?.[method.toLowerCase()]?.responses[String(res.statusCode)];
    assert.ok(response, `undocumented status: ${label}`);
    const type = String(res.headers['content-type'] ?? '').split(';')[0] ?? '';
    if (!response.content) {
      assert.equal(res.body, '', label);
      return;
    }
    const media = response.content[type] as { schema?: { $ref?: string } } | undefined;
    assert.ok(media, `undocumented media type ${type}: ${label}`);
    const ref = media.schema?.$ref;
    if (ref) {
      const validate = ajv.getSchema(`doc${ref}`);
      assert.ok(validate, ref);
      assert.ok(validate(JSON.parse(res.body)), `${label}: ${ajv.errorsText(validate.errors)}`);
    }
    // what every answer of the service carries, the provider's included
    assert.ok(res.headers['x-request-id'], `${label}: no x-request-id`);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', label);
  }

  const form = (path: string, body: string, headers: Record<string, string> = {}) =>
    ctx.inject({ method: 'POST', url: path, headers: { ...FORM, ...headers }, payload: body });
  const basic = () => ({
    authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret ?? ''}`).toString('base64')}`,
  });

  test('the metadata, the key set and userinfo answer their documented schemas', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      assertDocumented('GET', path, await ctx.inject({ method: 'GET', url: path }));
    }
    const jwks = '/api-platform/oauth/jwks';
    assertDocumented('GET', jwks, await ctx.inject({ method: 'GET', url: jwks }));
    const tokens = await userTokens(ctx, developer, client, 'openid identify');
    const userinfo = '/api-platform/oauth/userinfo';
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    assertDocumented('GET', userinfo, await ctx.inject({ method: 'GET', url: userinfo, headers: bearer }));
    assertDocumented('POST', userinfo, await ctx.inject({ method: 'POST', url: userinfo, headers: bearer }));
    assertDocumented('GET', userinfo, await ctx.inject({ method: 'GET', url: userinfo }));
  });

  test('token, introspection, revocation and PAR answer their documented schemas, errors as RFC 6749 JSON', async () => {
    const token = '/api-platform/oauth/token';
    const ok = await form(token, 'grant_type=client_credentials&scope=servers%3Aread', basic());
    assertDocumented('POST', token, ok);
    const access = ok.json<{ access_token: string }>().access_token;
    assertDocumented('POST', token, await form(token, 'grant_type=client_credentials'));
    // an app's call gets the JSON error even when it says it prefers HTML (only browsers get pages)
    const html = await form(token, 'grant_type=client_credentials', { accept: 'text/html' });
    assert.match(String(html.headers['content-type']), /^application\/json/, html.body.slice(0, 200));
    assertDocumented('POST', token, html);
    const wrongSecret = await form(token, 'grant_type=client_credentials', {
      authorization: `Basic ${Buffer.from(`${client.clientId}:nope`).toString('base64')}`,
    });
    assert.equal(wrongSecret.statusCode, 401);
    assertDocumented('POST', token, wrongSecret);

    const introspect = '/api-platform/oauth/introspect';
    const described = await form(introspect, `token=${access}`, basic());
    assertDocumented('POST', introspect, described);
    assert.equal(described.json<{ active: boolean }>().active, true);
    const revoke = '/api-platform/oauth/revoke';
    assertDocumented('POST', revoke, await form(revoke, `token=${access}`, basic()));
    assertDocumented('POST', revoke, await form(revoke, 'token_type_hint=access_token', basic()));

    const par = '/api-platform/oauth/par';
    const { challenge } = pkcePair();
    const pushed = await form(
      par,
      new URLSearchParams({
        client_id: client.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT_URI,
        scope: 'identify',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).toString(),
      basic(),
    );
    assert.equal(pushed.statusCode, 201, pushed.body);
    assertDocumented('POST', par, pushed);
  });

  test('forms follow RFC 6749 §3.2: an unknown parameter is ignored, a repeated one is invalid_request', async () => {
    const token = '/api-platform/oauth/token';
    const ignored = await form(
      token,
      'grant_type=client_credentials&scope=servers%3Aread&colour=blue',
      basic(),
    );
    assert.equal(ignored.statusCode, 200, ignored.body);
    const twice = await form(
      token,
      'grant_type=client_credentials&scope=servers%3Aread&scope=clans%3Aread',
      basic(),
    );
    assert.equal(twice.statusCode, 400, twice.body);
    assert.equal(twice.json<{ error: string }>().error, 'invalid_request');
    assertDocumented('POST', token, twice);
  });

  test('the authorization endpoint answers as documented: a redirect, a form_post page, an error page', async () => {
    const authorize = '/api-platform/oauth/authorize';
    const { challenge } = pkcePair();
    const params = {
      client_id: client.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'identify',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const first = await ctx.inject({
      method: 'GET',
      url: `${authorize}?${new URLSearchParams(params).toString()}`,
    });
    assert.equal(first.statusCode, 303);
    assert.ok(first.headers.location);
    const unknownApp = await ctx.inject({
      method: 'GET',
      url: `${authorize}?client_id=nobody&response_type=code`,
    });
    assert.equal(unknownApp.statusCode, 400);
    assert.match(String(unknownApp.headers['content-type']), /^text\/html/);
    const documented = doc.paths[authorize]?.get?.responses ?? {};
    assert.ok(documented['400']?.content?.['text/html']);

    // once the user granted the scope, form_post ends on a page that posts the code to the app
    await authorizationCode(ctx, developer, client, 'identify');
    const { page } = await openAuthorization(ctx, developer, { ...params, response_mode: 'form_post' });
    assert.equal(page.statusCode, 200, page.body.slice(0, 300));
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, new RegExp(`action="${REDIRECT_URI}"`));
    assert.ok(documented['200']?.content?.['text/html']);
  });
});
