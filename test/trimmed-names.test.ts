import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Problem } from '../src/http/problem.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { REDIRECT_URI } from './helpers/oauth.js';
import { signUp, type PortalSession } from './helpers/portal.js';

/**
 * Names people type are stored without their surrounding whitespace, and the published schema
 * says so: a key's and an app's name (a name of only whitespace is a 400 naming the field, as the
 * schema's pattern says) and a webhook's note (whitespace only clears it).
 */

type Schema = { $ref?: string; description?: string; pattern?: string; properties?: Record<string, Schema> };
interface Doc {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
}

for (const dialect of testDialects()) {
  describe(`names are trimmed, as published (${dialect})`, () => {
    let ctx: TestContext;
    let dev: PortalSession;
    let doc: Doc;

    before(async () => {
      ctx = await createTestContext(dialect);
      dev = await signUp(ctx);
      doc = json<Doc>(await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }));
    });
    after(() => ctx.close());

    /** A body's field as published (bodies are named components: `$ref`s are followed). */
    const field = (path: string, method: string, name: string) => {
      const schema = doc.paths[path]?.[method]?.requestBody?.content['application/json']?.schema;
      const body = schema?.$ref
        ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]
        : schema;
      return body?.properties?.[name];
    };
    const refused = (res: LightMyRequestResponse, name: string) => {
      assert.equal(res.statusCode, 400, res.body);
      const problem = res.json<Problem & { errors?: { name: string; reason: string }[] }>();
      assert.equal(problem.code, 'invalid_body', res.body);
      assert.match(problem.errors?.find((e) => e.name === name)?.reason ?? '', /whitespace/, res.body);
    };

    it('publishes the rule on each field', () => {
      for (const [path, method] of [
        ['/api-platform/developer/keys', 'post'],
        ['/api-platform/developer/my-apps', 'post'],
        ['/api-platform/developer/my-apps/{id}', 'patch'],
      ] as const) {
        const name = field(path, method, 'name');
        assert.match(name?.description ?? '', /surrounding whitespace is removed/, `${method} ${path}`);
        assert.equal(name?.pattern, '\\S', `${method} ${path}`);
      }
      assert.match(
        field('/v1/webhooks', 'post', 'description')?.description ?? '',
        /surrounding whitespace is removed/,
      );
    });

    it('stores a key name without its surrounding whitespace; only whitespace is a 400', async () => {
      const made = await dev.call('POST', '/keys', { name: '  match bot \t' });
      assert.equal(made.statusCode, 201, made.body);
      assert.equal(made.json<{ key: { name: string } }>().key.name, 'match bot');
      const before = await dev.call('GET', '/my-keys');
      refused(await dev.call('POST', '/keys', { name: ' \t ' }), 'name');
      assert.equal((await dev.call('GET', '/my-keys')).body, before.body, 'no key was made');
    });

    it('stores an app name without its surrounding whitespace; only whitespace is a 400, on create and on edit', async () => {
      const app = { kind: 'confidential', redirect_uris: [REDIRECT_URI] };
      const made = await dev.call('POST', '/my-apps', { ...app, name: ' Frag Tracker  ' });
      assert.equal(made.statusCode, 201, made.body);
      const { id, name } = made.json<{ app: { id: number; name: string } }>().app;
      assert.equal(name, 'Frag Tracker');
      refused(await dev.call('POST', '/my-apps', { ...app, name: '   ' }), 'name');
      refused(await dev.call('PATCH', `/my-apps/${id}`, { name: '\n' }), 'name');
      const edited = await dev.call('PATCH', `/my-apps/${id}`, { name: ' Frag Tracker 2 ' });
      assert.equal(edited.json<{ app: { name: string } }>().app.name, 'Frag Tracker 2', edited.body);
    });

    it('stores a webhook note without its surrounding whitespace; only whitespace clears it', async () => {
      const { secret: key } = await ctx.makeKey({ userId: dev.accountId, tier: 'partner' });
      const create = (description: string, n: number) =>
        ctx.inject({
          method: 'POST',
          url: '/v1/webhooks',
          headers: { authorization: `Bearer ${key}`, 'idempotency-key': `trim-${dialect}-${n}` },
          payload: { url: 'https://example.com/hook', events: ['*'], description },
        });
      const noted = await create('  production receiver ', 1);
      assert.equal(noted.statusCode, 201, noted.body);
      const hook = noted.json<{ data: { webhook: { description: string | null } } }>().data.webhook;
      assert.equal(hook.description, 'production receiver');
      const blank = await create('   ', 2);
      assert.equal(
        blank.json<{ data: { webhook: { description: string | null } } }>().data.webhook.description,
        null,
      );
    });
  });
}
