import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { OpenApiDocument } from '../src/http/docs/openapi-types.js';
import { EVENT_CATALOG } from '../src/modules/events/catalog.js';
import type { EventTypesBody } from '../src/modules/events/types-route.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
formats.default(ajv);

interface WebhookEntry {
  post: {
    description: string;
    parameters: { name: string; in: string }[];
    requestBody: {
      content: { 'application/json': { schema: Record<string, unknown>; example: Record<string, unknown> } };
    };
  };
}

/** The catalog published: `GET /v1/events/types` and the OpenAPI document's `webhooks` section. */
describe('event types', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite', { cacheTtlMs: 60_000 });
  });
  after(() => ctx.close());

  it('GET /v1/events/types lists every type with its schema and an example that fits it', async () => {
    const res = await ctx.inject({
      method: 'GET',
      url: '/v1/events/types',
      headers: { authorization: `Bearer ${ctx.key}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.headers.etag);
    const { data } = json<EventTypesBody>(res);
    assert.equal(data.length, EVENT_CATALOG.size);
    assert.ok(data.length >= 50);
    for (const item of data) {
      const validate = ajv.compile(item.schema);
      assert.ok(validate(item.example), `${item.type}: ${ajv.errorsText(validate.errors)}`);
      assert.equal(item.scope, EVENT_CATALOG.get(item.type)?.scope);
    }
    const kill = data.find((d) => d.type === 'kill.recorded');
    assert.equal(kill?.high_volume, true);
    assert.equal(kill.audience, 'public');
    assert.equal(data.find((d) => d.type === 'economy.transfer.created')?.audience, 'user');
    const again = await ctx.inject({
      method: 'GET',
      url: '/v1/events/types',
      headers: { authorization: `Bearer ${ctx.key}`, 'if-none-match': res.headers.etag },
    });
    assert.equal(again.statusCode, 304);
  });

  it('needs a credential', async () => {
    const res = await ctx.inject({ method: 'GET', url: '/v1/events/types' });
    assert.equal(res.statusCode, 401);
    assert.match(String(res.headers['content-type']), /application\/problem\+json/);
  });

  it('the OpenAPI webhooks section has every type: event object, signature headers, example', async () => {
    const doc = json<OpenApiDocument>(
      await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }),
    );
    const webhooks = (doc.webhooks ?? {}) as unknown as Record<string, WebhookEntry>;
    assert.deepEqual(Object.keys(webhooks).sort(), [...EVENT_CATALOG.keys()].sort());
    for (const [type, entry] of Object.entries(webhooks)) {
      const body = entry.post.requestBody.content['application/json'];
      // the body is a named component (`KillRecordedEvent`): its reference resolves in the document
      const validate = ajv.compile({ ...body.schema, components: doc.components });
      assert.ok(validate(body.example), `${type}: ${ajv.errorsText(validate.errors)}`);
      assert.equal(body.example.type, type);
      assert.equal(validate({ ...body.example, type: 'something.else' }), false, type);
      assert.deepEqual(
        entry.post.parameters.map((p) => p.name),
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
      );
    }
    assert.match(webhooks['kill.recorded']?.post.description ?? '', /High volume/);
    assert.match(webhooks['economy.transfer.created']?.post.description ?? '', /economy:read/);
  });
});
