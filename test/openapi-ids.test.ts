import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { OpenApiDocument } from '../src/http/docs/openapi-types.js';
import { createTestContext, json } from './helpers/context.js';

// The operation-id rule of docs/development.md ("Operation ids"), checked over the document the
// service serves, so a route added later is held to it without this file changing. Generators
// name methods after these ids (Go's `ClansList`, Rust's `clans_list`): they must be unique and
// say which surface they belong to.

const ctx = await createTestContext('sqlite');
const doc = json<OpenApiDocument & { webhooks?: Record<string, Record<string, { operationId?: string }>> }>(
  await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }),
);
after(() => ctx.close());

/** Each surface's namespace: the published API has none, the others one word each. */
const SURFACES: readonly {
  name: string;
  namespace: string;
  resourcePath: (path: string) => string | null;
}[] = [
  { name: 'published API', namespace: '', resourcePath: (p) => after_(p, '/api-platform/v1/') },
  { name: 'preview /v1', namespace: 'v1_', resourcePath: (p) => after_(p, '/v1/') },
  {
    name: 'developer portal',
    namespace: 'developer_',
    resourcePath: (p) => after_(p, '/api-platform/developer/'),
  },
  { name: 'ingest', namespace: 'ingest_', resourcePath: (p) => after_(p, '/api-platform/ingest/') },
  // operations routes are single segments at the root (/health, /ready, /metrics)
  { name: 'operations', namespace: 'ops_', resourcePath: (p) => (/^\/[a-z]+$/.test(p) ? p.slice(1) : null) },
];

function after_(path: string, prefix: string): string | null {
  return path.startsWith(prefix) ? path.slice(prefix.length) : null;
}

const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/** `/clans/{id}/members/{user_id}/promote` -> ['clans', 'members', 'promote']; `@me` -> `me`, `top-frag` -> `top_frag`. */
const staticWords = (resourcePath: string) =>
  resourcePath
    .split('/')
    .filter((segment) => segment !== '' && !segment.startsWith('{'))
    .map((segment) => segment.replace(/^@/, '').replace(/-/g, '_'));

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method, id: op.operationId ?? '' })),
);
const webhookOperations = Object.entries(doc.webhooks ?? {}).flatMap(([type, item]) =>
  Object.values(item).map((op) => ({ type, id: op.operationId ?? '' })),
);

describe('operation ids: snake_case resource_action, one namespace per surface', () => {
  it('are unique across paths and webhooks', () => {
    const ids = [...operations, ...webhookOperations].map(({ id }) => id);
    const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
    assert.deepEqual(repeated, []);
    assert.ok(operations.length >= 70 && webhookOperations.length >= 40, 'the whole document was read');
  });

  for (const { path, method, id } of operations) {
    it(`${method.toUpperCase()} ${path}: ${id}`, () => {
      assert.match(id, SNAKE);
      const surfaces = SURFACES.filter((s) => s.resourcePath(path) !== null);
      assert.equal(surfaces.length, 1, `${path} belongs to exactly one surface`);
      const [surface] = surfaces;
      assert.ok(
        surface && id.startsWith(surface.namespace),
        `${id} starts with "${surface?.namespace}" (${surface?.name})`,
      );
      const rest = id.slice(surface.namespace.length);
      // the other namespaces are not resources of the published API
      assert.ok(
        !SURFACES.some((s) => s.namespace !== '' && rest.startsWith(s.namespace)),
        `${rest}: one namespace`,
      );
      const words = staticWords(surface.resourcePath(path) ?? '');
      assert.ok(words.length > 0, path);
      // the resource: every static segment in path order; the last one may be the action itself
      // (`rotate-secret` -> `secret_rotate`, `join`), so its words only have to appear
      const resource = words.slice(0, -1).join('_');
      assert.ok(rest.startsWith(resource === '' ? '' : `${resource}_`), `${rest} starts with ${resource}_`);
      const tail = rest.slice(resource === '' ? 0 : resource.length + 1).split('_');
      for (const word of (words.at(-1) ?? '').split('_'))
        assert.ok(tail.includes(word), `${id} names ${word}`);
    });
  }

  it('webhook events are event_ + their type', () => {
    for (const { type, id } of webhookOperations) assert.equal(id, `event_${type.replace(/\./g, '_')}`);
  });
});
