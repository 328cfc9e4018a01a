import fc from 'fast-check';

/**
 * Request bodies generated from a published JSON Schema alone (the OpenAPI document's), never from
 * the route code: values that satisfy it, and bodies that break it one way at a time.
 */
export type Schema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  examples?: unknown[];
};

/** The schema with every `#/components/schemas/…` reference replaced by what it names. */
export function inlineRefs(schema: unknown, components: Record<string, unknown>): Schema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') return walk(components[ref.split('/').pop() ?? '']);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'examples' ? v : walk(v)]));
  };
  return walk(schema) as Schema;
}

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const typesOf = (schema: Schema): string[] =>
  schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];

/** Values the schema accepts (its examples among them); the caller keeps those a validator agrees with. */
export function validValue(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map(validValue));
  const generated = byType(schema);
  const examples = (schema.examples ?? []).filter(
    (e) => typeof e !== 'object' || typesOf(schema).includes('object') || typesOf(schema).includes('array'),
  );
  return examples.length > 0 ? fc.oneof(fc.constantFrom(...examples), generated) : generated;
}

function byType(schema: Schema): fc.Arbitrary<unknown> {
  const [type] = typesOf(schema);
  switch (type) {
    case 'integer': {
      const min = num(schema.minimum) ?? -1_000_000;
      return fc.integer({ min, max: num(schema.maximum) ?? min + 2_000_000 });
    }
    case 'number':
      return fc.double({
        min: num(schema.minimum) ?? -1e6,
        max: num(schema.maximum) ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? validValue(schema.items) : fc.jsonValue(), {
        minLength: num(schema.minItems) ?? 0,
        maxLength: Math.min(num(schema.maxItems) ?? 5, 5),
      });
    case 'object':
      return validObject(schema);
    case 'string':
    case undefined:
    default:
      return stringFor(schema);
  }
}

function stringFor(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'date-time') {
    return fc
      .date({ min: new Date(Date.now() - 20 * 86_400_000), max: new Date(Date.now()), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  const minLength = num(schema.minLength) ?? 0;
  const maxLength = num(schema.maxLength) ?? 40;
  if (typeof schema.pattern === 'string') {
    return fc
      .stringMatching(new RegExp(schema.pattern, 'u'))
      .filter((s) => Array.from(s).length >= minLength && Array.from(s).length <= maxLength);
  }
  return fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 40), unit: 'grapheme' });
}

function validObject(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const shape = Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, validValue(s)]));
  return fc.record(shape, { requiredKeys: schema.required ?? [] }).filter((body) => {
    const min = num(schema.minProperties) ?? 0;
    return Object.keys(body).length >= min;
  });
}

/** A JSON value of each type, for "the wrong type" of a field. */
const OF_TYPE: Record<string, unknown[]> = {
  string: ['5', '', 'true', '[]'],
  integer: [5, 0, -1, 2 ** 53],
  number: [1.5, -0.25, 1e300],
  boolean: [true, false],
  null: [null],
  array: [[], [3], ['x']],
  object: [{}, { a: 1 }],
};

/** Values of a JSON type the field's schema does not name (a union's own types excepted). */
function wrongTypes(schema: Schema): unknown[] {
  const allowed = new Set(
    [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((s) => {
      const types = typesOf(s);
      if (s.const !== undefined) types.push(s.const === null ? 'null' : typeof s.const);
      if (s.enum) types.push(...s.enum.map((e) => (e === null ? 'null' : typeof e)));
      return types;
    }),
  );
  if (allowed.has('number')) allowed.add('integer');
  return Object.entries(OF_TYPE)
    .filter(([type]) => !allowed.has(type))
    .flatMap(([, values]) => values);
}

/** Values just out of the field's range or length, when it has one. */
function outOfRange(schema: Schema): unknown[] {
  const out: unknown[] = [];
  const min = num(schema.minimum);
  const max = num(schema.maximum);
  if (min !== undefined) out.push(min - 1);
  if (max !== undefined) out.push(max + 1);
  if (typesOf(schema).includes('integer')) out.push(1.5);
  const minLength = num(schema.minLength);
  const maxLength = num(schema.maxLength);
  if (minLength !== undefined && minLength > 0) out.push('x'.repeat(minLength - 1));
  if (maxLength !== undefined) out.push('x'.repeat(maxLength + 1));
  const minItems = num(schema.minItems);
  const maxItems = num(schema.maxItems);
  if (minItems !== undefined && minItems > 0) out.push([]);
  if (maxItems !== undefined && schema.items) out.push(Array.from({ length: maxItems + 1 }, () => 'x'));
  return out;
}

/** One way a body breaks its schema, described for the failure message. */
export interface Breach {
  what: string;
  body: unknown;
}

/**
 * Bodies that break `schema` one way each, built on `valid` (a body that satisfies it): every
 * property of a wrong type or out of range, each required property missing, an unknown property,
 * an empty object, and bodies that are not objects at all.
 */
export function breaches(schema: Schema, valid: Record<string, unknown>): fc.Arbitrary<Breach> {
  const properties = Object.entries(schema.properties ?? {});
  const fixed: Breach[] = [
    ...properties.flatMap(([name, field]) => [
      ...wrongTypes(field).map((value) => ({
        what: `${name}: ${JSON.stringify(value)} (wrong type)`,
        body: { ...valid, [name]: value },
      })),
      ...outOfRange(field).map((value) => ({
        what: `${name}: out of range (${JSON.stringify(value).slice(0, 20)})`,
        body: { ...valid, [name]: value },
      })),
    ]),
    ...(schema.required ?? []).map((name) => {
      const { [name]: _, ...rest } = valid;
      return { what: `${name} missing`, body: rest };
    }),
    { what: 'empty object', body: {} },
    ...[[], 'text', 5, null, true].map((body) => ({ what: `not an object: ${JSON.stringify(body)}`, body })),
  ];
  const unknownField = fc
    .tuple(fc.stringMatching(/^[a-z_]{1,12}$/), fc.jsonValue({ maxDepth: 2 }))
    .filter(([name]) => !(name in (schema.properties ?? {})))
    .map(([name, value]): Breach => ({ what: `unknown field ${name}`, body: { ...valid, [name]: value } }));
  return fc.oneof(fc.constantFrom(...fixed), unknownField);
}
