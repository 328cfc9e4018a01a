import { describeAllowed } from '../errors.js';
import type { InvalidParam } from '../problem.js';
import type { ParameterObject, SchemaObject } from './openapi-types.js';

const COMPONENT_PREFIX = '#/components/schemas/';
const FALLBACK_TIMESTAMP = '2026-11-20T18:04:11.000Z';

/**
 * A value for a schema, built from the `examples` each field declares (or its const, default or
 * first enum value), so response examples always have the shape of the schema they document.
 * A field without any of those gets a neutral value of its type that still satisfies its bounds;
 * the OpenAPI test reports such fields, since a neutral value teaches a reader little.
 */
export function exampleFor(
  schema: SchemaObject,
  components: Record<string, SchemaObject>,
  depth = 0,
): unknown {
  if (depth > 20) return null; // a recursive schema: stop rather than loop
  if (schema.$ref) {
    const target = components[schema.$ref.slice(COMPONENT_PREFIX.length)];
    return target ? exampleFor(target, components, depth + 1) : null;
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  const union = schema.anyOf ?? schema.oneOf;
  if (union) {
    const member = union.find((s) => s.type !== 'null') ?? union[0];
    return member ? exampleFor(member, components, depth + 1) : null;
  }
  if (schema.allOf) {
    return Object.assign({}, ...schema.allOf.map((s) => exampleFor(s, components, depth + 1))) as unknown;
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, property]) => [
          name,
          exampleFor(property, components, depth + 1),
        ]),
      );
    case 'array': {
      const item = schema.items ? exampleFor(schema.items, components, depth + 1) : null;
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
    }
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'date-time') return FALLBACK_TIMESTAMP;
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case undefined:
    default:
      return null;
  }
}

const isConstUnion = (schema: SchemaObject): boolean =>
  (schema.anyOf ?? []).length > 0 && (schema.anyOf ?? []).every((s) => s.const !== undefined);

/** A value the parameter rejects, so the documented 400 shows a real validation answer. */
export function invalidValueFor(schema: SchemaObject): string | number | undefined {
  if (schema.type === 'integer' || schema.type === 'number') {
    if (schema.maximum !== undefined) return schema.maximum + 1;
    if (schema.minimum !== undefined) return schema.minimum - 1;
    return undefined;
  }
  const allowed = [...(schema.enum ?? []), ...(schema.anyOf ?? []).map((s) => s.const)];
  if (schema.enum?.length || isConstUnion(schema))
    return ['unknown', 'none', 'x'].find((v) => !allowed.includes(v));
  if (schema.maxLength !== undefined) return 'x'.repeat(schema.maxLength + 1);
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern, 'u');
    return ['!', '~', 'x', '0'].find((v) => !pattern.test(v));
  }
  return undefined;
}

/**
 * The `errors` entry the service answers when `parameter` gets a value out of its range: the same
 * wording the error handler produces (see `describeAllowed`). Undefined for a parameter with no
 * value that could be rejected.
 */
export function invalidParamExample(
  parameter: ParameterObject,
): { param: InvalidParam; value: string | number } | undefined {
  if (!parameter.schema || (parameter.in !== 'query' && parameter.in !== 'path')) return undefined;
  const value = invalidValueFor(parameter.schema);
  const allowed = describeAllowed({ ...parameter.schema, description: parameter.description });
  if (value === undefined || !allowed) return undefined;
  return {
    param: {
      in: parameter.in,
      name: parameter.name,
      reason: `must be ${allowed} (got ${JSON.stringify(value)})`,
    },
    value,
  };
}
