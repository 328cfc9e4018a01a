import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { createTestContext, json } from './helpers/context.js';

// Every example the served document shows (parameters, headers, bodies, answers, and every
// `examples` of every schema in it) validated against its schema by an Ajv of its own: JSON Schema
// 2020-12 in strict mode, whatever the service's validator is set to. A reader (and a generator's
// mock server) takes these examples as true; none may contradict the schema beside it.

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ctx = await createTestContext('sqlite');
const served = json<Node>(await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }));
after(() => ctx.close());

// Components get absolute ids, so a `$ref` resolves in whichever schema it is compiled from.
const BASE = 'https://hub.invalid/components/schemas/';
const rewriteRefs = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (!isNode(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string'
        ? value.replace('#/components/schemas/', BASE)
        : rewriteRefs(value),
    ]),
  );
};
const doc = rewriteRefs(served) as Node;

const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
formats.default(ajv);
// OpenAPI's own keyword beside JSON Schema's (`example`, deprecated in 3.1 but still read)
ajv.addKeyword('example');

const components = (
  isNode(doc.components) && isNode(doc.components.schemas) ? doc.components.schemas : {}
) as Record<string, Node>;
for (const [name, schema] of Object.entries(components)) ajv.addSchema(schema, `${BASE}${name}`);

interface Check {
  where: string;
  schema: Node;
  value: unknown;
}
const checks: Check[] = [];

/** The example values of an OpenAPI object: `example`, and `examples` as a map of `{ value }`. */
function objectExamples(where: string, holder: Node, schema: unknown): void {
  if (!isNode(schema)) return;
  if (holder.example !== undefined) checks.push({ where: `${where} example`, schema, value: holder.example });
  if (isNode(holder.examples))
    for (const [name, example] of Object.entries(holder.examples))
      if (isNode(example) && 'value' in example)
        checks.push({ where: `${where} examples.${name}`, schema, value: example.value });
}

/** Every subschema, with the `examples` (a list) and `example` each one carries. */
function schemaExamples(where: string, schema: unknown): void {
  if (!isNode(schema)) return;
  if (Array.isArray(schema.examples))
    schema.examples.forEach((value, i) => checks.push({ where: `${where} examples[${i}]`, schema, value }));
  if (schema.example !== undefined) checks.push({ where: `${where} example`, schema, value: schema.example });
  for (const key of ['properties', 'patternProperties', '$defs'])
    if (isNode(schema[key]))
      for (const [name, sub] of Object.entries(schema[key])) schemaExamples(`${where}.${name}`, sub);
  for (const key of ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'])
    schemaExamples(`${where}/${key}`, schema[key]);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'])
    if (Array.isArray(schema[key]))
      (schema[key] as unknown[]).forEach((sub, i) => schemaExamples(`${where}/${key}[${i}]`, sub));
}

function mediaExamples(where: string, content: unknown): void {
  if (!isNode(content)) return;
  for (const [type, media] of Object.entries(content)) {
    if (!isNode(media)) continue;
    objectExamples(`${where} ${type}`, media, media.schema);
    schemaExamples(`${where} ${type} schema`, media.schema);
  }
}

function headerExamples(where: string, headers: unknown): void {
  if (!isNode(headers)) return;
  for (const [name, header] of Object.entries(headers)) {
    if (!isNode(header) || header.$ref !== undefined) continue;
    objectExamples(`${where} header ${name}`, header, header.schema);
    schemaExamples(`${where} header ${name} schema`, header.schema);
  }
}

function operationExamples(where: string, operation: Node): void {
  for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
    if (!isNode(parameter)) continue;
    const name = `${where} ${String(parameter.in)} ${String(parameter.name)}`;
    objectExamples(name, parameter, parameter.schema);
    schemaExamples(`${name} schema`, parameter.schema);
  }
  if (isNode(operation.requestBody)) mediaExamples(`${where} body`, operation.requestBody.content);
  for (const [status, response] of Object.entries(isNode(operation.responses) ? operation.responses : {})) {
    if (!isNode(response)) continue;
    mediaExamples(`${where} ${status}`, response.content);
    headerExamples(`${where} ${status}`, response.headers);
  }
}

for (const [name, schema] of Object.entries(components))
  schemaExamples(`#/components/schemas/${name}`, schema);
headerExamples('#/components/headers', isNode(doc.components) ? doc.components.headers : undefined);
for (const section of ['paths', 'webhooks'])
  for (const [path, item] of Object.entries(isNode(doc[section]) ? doc[section] : {}))
    for (const [method, operation] of Object.entries(isNode(item) ? item : {}))
      if (isNode(operation)) operationExamples(`${method.toUpperCase()} ${path}`, operation);

const compiled = new WeakMap<Node, ValidateFunction>();
const validatorOf = (schema: Node) => {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
};

describe('every example in the OpenAPI document fits its schema (Ajv 2020, strict)', () => {
  it('reads examples of every kind', () => {
    const kinds = (pattern: RegExp) => checks.filter((c) => pattern.test(c.where)).length;
    assert.ok(checks.length > 1000, `${checks.length} examples`);
    assert.ok(kinds(/ (path|query) \w+ example$/) > 50, 'parameter examples');
    assert.ok(kinds(/ body application\/json example$/) > 20, 'request body examples');
    assert.ok(kinds(/ 2\d\d application\/json example$/) > 50, 'answer examples');
    assert.ok(kinds(/application\/problem\+json examples\./) > 200, 'problem examples');
    assert.ok(kinds(/ header [\w-]+ example$/) > 100, 'header examples');
  });

  it('each one is valid', () => {
    const invalid = checks.flatMap(({ where, schema, value }) => {
      const validate = validatorOf(schema);
      return validate(value) ? [] : [`${where}: ${ajv.errorsText(validate.errors)}`];
    });
    assert.deepEqual(invalid, []);
  });
});
