// oapi-codegen (Go, through kin-openapi) and progenitor (Rust, through the openapiv3 crate) read
// OpenAPI 3.0 only, and the service serves 3.1. This turns the generator document into the 3.0
// form of the same contract, for both:
// - `type: [T, "null"]` becomes `type: T, nullable: true`; a union with a `{type: "null"}` member
//   (`anyOf`/`oneOf`) becomes its other member, nullable (a lone `$ref` wrapped in `allOf`: 3.0
//   ignores a `$ref`'s siblings, and oapi-codegen makes `anyOf: [$ref]` a union wrapper type);
// - `const` becomes a one-value `enum`, a schema's `examples` its `example` (the first one), a
//   numeric `exclusiveMinimum`/`exclusiveMaximum` a `minimum`/`maximum` with the boolean flag;
// - the 3.1-only `webhooks` section goes: each event's body becomes a named component schema (the
//   name tables.ts's webhookEvents gives it), so both languages get the events' types; the 3.1-only
//   `jsonSchemaDialect` and `license.identifier` go too.
// What one generator needs and the other must not get is an option (Openapi30Options).
import { isNode, type JsonNode as Json } from '../../src/http/docs/json-node.js';
import type { GeneratorDocument } from './generate.js';
import { webhookEvents } from './tables.js';

export interface Openapi30Options {
  /**
   * Answers in `application/problem+json` are read as `application/json`. For progenitor (Rust):
   * it reads only `application/json` bodies, so the error answers would have no type. Not for
   * oapi-codegen (Go): it reads both, and names the problem answers by their media type
   * (`ApplicationproblemJSON404`), which the Go client's layer uses.
   */
  problemAsJson?: boolean;
}

/** Schema keywords whose value is a map of names (data, not keywords) to schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);
/** Schema keywords whose value is a list of schemas. */
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Schema keywords whose value is one schema. */
const SCHEMA_ONE = new Set(['items', 'additionalProperties', 'not', 'contains', 'propertyNames']);

const isNullSchema = (value: unknown): boolean => isNode(value) && value.type === 'null';

/** A 3.0 copy of one JSON Schema 2020-12 schema (recursively). */
function schema30(input: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(input)) {
    if (SCHEMA_MAPS.has(key) && isNode(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isNode(v) ? schema30(v) : v]));
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value))
      out[key] = value.map((v: unknown) => (isNode(v) ? schema30(v) : v));
    else if (SCHEMA_ONE.has(key) && isNode(value)) out[key] = schema30(value);
    else if (key === 'examples' && Array.isArray(value)) {
      if (value.length > 0 && out.example === undefined) out.example = value[0];
    } else if (key === 'const') out.enum = [value];
    else if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((t) => t !== 'null');
      // neither generator has a type for "one of several": a caller would get an untyped value
      if (types.length !== 1) throw new Error(`type ${JSON.stringify(value)}: one type, or one and null`);
      if (types.length !== value.length) out.nullable = true;
      out.type = types[0];
    } else if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'number') {
      out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
      out[key] = true;
    } else out[key] = value;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = out[key];
    if (!Array.isArray(members) || !members.some(isNullSchema)) continue;
    const rest: unknown[] = members.filter((m) => !isNullSchema(m));
    const [only] = rest;
    out[key] = rest;
    if (rest.length === 1 && isNode(only)) {
      Reflect.deleteProperty(out, key);
      Object.assign(out, '$ref' in only ? { allOf: [only] } : only);
    }
    out.nullable = true;
  }
  return out;
}

/**
 * A 3.0 copy of a part of the document that is not a schema: the schemas under it (a `schema`,
 * `components.schemas`) are converted, examples (data) are kept as they are.
 */
function convert(value: unknown, options: Openapi30Options, parentKey = ''): unknown {
  if (Array.isArray(value)) return value.map((v: unknown) => convert(v, options));
  if (!isNode(value)) return value;
  if (parentKey === 'schema') return schema30(value);
  if (parentKey === 'schemas')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isNode(v) ? schema30(v) : v]));
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    const name = parentKey === 'content' && options.problemAsJson && key === 'application/problem+json';
    out[name ? 'application/json' : key] =
      key === 'example' || key === 'examples' ? child : convert(child, options, key);
  }
  return out;
}

/** The 3.0 document oapi-codegen and progenitor read (see the comment at the top). */
export function openapi30(doc: GeneratorDocument, options: Openapi30Options = {}): Json {
  const source = structuredClone(doc);
  const components = isNode(source.components) ? source.components : {};
  const schemas = isNode(components.schemas) ? components.schemas : {};
  const webhooks = (source.webhooks ?? {}) as Record<string, Json>;
  for (const [type, name] of webhookEvents(doc)) {
    const body = (webhooks[type]?.post as Json | undefined)?.requestBody as Json | undefined;
    const schema = (body?.content as Record<string, Json> | undefined)?.['application/json']?.schema;
    if (!isNode(schema)) throw new Error(`webhook ${type} has no JSON body schema`);
    if (schema.$ref === `#/components/schemas/${name}`) continue;
    if (schemas[name] !== undefined) throw new Error(`components.schemas.${name} exists already`);
    schemas[name] = schema;
  }
  delete source.webhooks;
  components.schemas = schemas;
  source.components = components;
  const license = (source.info as Json | undefined)?.license as Json | undefined;
  if (license) delete license.identifier;
  delete source.jsonSchemaDialect;
  const document = convert(source, options) as Json;
  document.openapi = '3.0.3';
  return document;
}
