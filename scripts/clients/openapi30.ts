// oapi-codegen reads OpenAPI 3.0 only (through kin-openapi), and the service serves 3.1. This turns the
// generator document into the 3.0 form of the same contract, for the Go client's generation only:
// `type: [T, "null"]` becomes `nullable`, `const` a one-value `enum`, a schema's `examples` its
// `example`, and the 3.1-only `webhooks` section goes; its events become named component schemas
// (`<Type>Event`, e.g. `EconomyTransferCreatedEvent`) so the Go types of the events are generated.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `economy.transfer.created` -> `EconomyTransferCreatedEvent`. */
export const eventSchemaName = (type: string): string =>
  `${type
    .split(/[._-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Event`;

/** Keys under which a map of names to schemas sits: its keys are names, not keywords. */
const NAMED = new Set(['properties', 'patternProperties', 'schemas', '$defs', 'definitions']);

/** Keys whose value is a list of schemas. */
const COMBINERS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/** A 3.0 copy of one JSON Schema (recursively). */
function schema30(input: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === 'examples' && Array.isArray(value)) {
      if (value.length > 0 && out.example === undefined) out.example = value[0];
      continue;
    }
    if (key === 'const') {
      out.enum = [value];
      continue;
    }
    if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((t) => t !== 'null');
      if (types.length !== value.length) out.nullable = true;
      if (types.length === 1) out.type = types[0];
      continue;
    }
    if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') {
      if (typeof value === 'number') {
        out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
        out[key] = true;
        continue;
      }
    }
    out[key] = convert(value, key);
  }
  // `anyOf: [X, {type: null}]` is 3.0's nullable X
  if (Array.isArray(out.anyOf)) {
    const rest = (out.anyOf as Json[]).filter((s) => !(isObject(s) && s.type === 'null' && !s.nullable));
    const hadNull = rest.length !== (out.anyOf as Json[]).length;
    if (hadNull) {
      out.nullable = true;
      if (rest.length === 1 && isObject(rest[0]) && rest[0].$ref === undefined) {
        delete out.anyOf;
        Object.assign(out, rest[0]);
      } else out.anyOf = rest;
    }
  }
  return out;
}

function convert(value: unknown, parentKey = ''): unknown {
  if (Array.isArray(value))
    return value.map((v) => (COMBINERS.has(parentKey) && isObject(v) ? schema30(v) : convert(v)));
  if (!isObject(value)) return value;
  if (NAMED.has(parentKey))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isObject(v) ? schema30(v) : v]));
  if (parentKey === 'schema' || parentKey === 'items' || parentKey === 'additionalProperties')
    return schema30(value);
  if (parentKey === 'not') return schema30(value);
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) out[key] = convert(v, key);
  return out;
}

/** The 3.0 document oapi-codegen reads, and the component name of each webhook event type. */
export function openapi30(doc: Json): { document: Json; events: [type: string, schema: string][] } {
  const source = structuredClone(doc);
  const components = isObject(source.components) ? source.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  const events: [string, string][] = [];
  for (const [type, item] of Object.entries((source.webhooks ?? {}) as Record<string, Json>)) {
    const body = (item.post as Json | undefined)?.requestBody as Json | undefined;
    const content = (body?.content as Record<string, Json> | undefined)?.['application/json'];
    const eventSchema = content?.schema as Json | undefined;
    if (!eventSchema) throw new Error(`webhook ${type} has no JSON body schema`);
    const ref = typeof eventSchema.$ref === 'string' ? eventSchema.$ref : undefined;
    if (ref?.startsWith('#/components/schemas/')) {
      events.push([type, ref.slice('#/components/schemas/'.length)]);
      continue;
    }
    const name = eventSchemaName(type);
    if (schemas[name] !== undefined) throw new Error(`components.schemas.${name} exists already`);
    schemas[name] = eventSchema;
    events.push([type, name]);
  }
  delete source.webhooks;
  components.schemas = schemas;
  source.components = components;
  const info = source.info as Json | undefined;
  const license = info?.license as Json | undefined;
  if (license) delete license.identifier;
  delete source.jsonSchemaDialect;
  const document = convert(source) as Json;
  document.openapi = '3.0.3';
  return { document, events };
}
