import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { OpenApiDocument } from '../src/http/docs/openapi-types.js';
import { createTestContext, json } from './helpers/context.js';

// DESIGN.md ("Client libraries"): every schema a named component, so generators produce named
// types (an inline answer becomes `Data7` in Python and an anonymous type elsewhere). Checked over
// the document the service serves: no request body and no answer holds an inline object or array
// schema; text answers (`text/plain`, `text/event-stream`) are plain strings and exempt.

const ctx = await createTestContext('sqlite');
type Node = Record<string, unknown>;
const doc = json<OpenApiDocument & { webhooks?: Record<string, Record<string, Node>> }>(
  await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }),
);
after(() => ctx.close());

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every media object of a body or an answer: `[where, media type, schema]`. */
function mediaOf(where: string, operation: Node): [string, string, Node][] {
  const out: [string, string, Node][] = [];
  const add = (at: string, content: unknown) => {
    if (!isNode(content)) return;
    for (const [type, media] of Object.entries(content))
      if (isNode(media) && isNode(media.schema)) out.push([at, type, media.schema]);
  };
  if (isNode(operation.requestBody)) add(`${where} request body`, operation.requestBody.content);
  for (const [status, response] of Object.entries(isNode(operation.responses) ? operation.responses : {}))
    if (isNode(response)) add(`${where} ${status}`, response.content);
  return out;
}

const media = [
  ...Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) =>
      mediaOf(`${method.toUpperCase()} ${path}`, op as unknown as Node),
    ),
  ),
  ...Object.entries(doc.webhooks ?? {}).flatMap(([type, item]) =>
    Object.values(item).flatMap((op) => mediaOf(`webhook ${type}`, op)),
  ),
];

describe('every body and answer schema is a named component', () => {
  it('has no inline schema in a body or an answer, except text', () => {
    const inline = media
      .filter(([, , schema]) => schema.$ref === undefined)
      .filter(([, type, schema]) => !(type.startsWith('text/') && schema.type === 'string'))
      .map(([where, type]) => `${where} ${type}`);
    assert.deepEqual(inline, []);
    assert.ok(media.length > 200, `read the whole document (${media.length} media objects)`);
  });

  it('refers only to components that exist, each named in PascalCase', () => {
    const schemas = doc.components.schemas ?? {};
    for (const [where, , schema] of media) {
      if (typeof schema.$ref !== 'string') continue;
      const name = schema.$ref.replace('#/components/schemas/', '');
      assert.ok(schemas[name], `${where}: ${schema.$ref}`);
      assert.match(name, /^[A-Z][A-Za-z0-9]*$/, where);
    }
  });
});
