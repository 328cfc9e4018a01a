/**
 * TypeBox writes a nullable field as `anyOf: [S, { type: 'null' }]` and a literal union as
 * `anyOf: [{ const: 'a' }, { const: 'b' }]`, with no `type` beside the `anyOf`. The reference
 * (Scalar) refuses a schema object without `type` ("document validation errors" for every
 * component holding one), and generators read the plain forms better (`type: ['string', 'null']`
 * is `string | null` in openapi-typescript and `str | None` in openapi-python-client; an `enum` is
 * an enum type), so the document says it that way. Both mean the same to a validator.
 */

import { isNode, type JsonNode as Node } from './json-node.js';

type Json = unknown;

const isNull = (member: Json): boolean =>
  isNode(member) && member.type === 'null' && Object.keys(member).length === 1;

/** `{ type: 'null' }`, perhaps with a description of what null means. */
const isDescribedNull = (member: Json): member is Node =>
  isNode(member) &&
  member.type === 'null' &&
  Object.keys(member).every((key) => key === 'type' || key === 'description');

/** `S` of `anyOf: [S, null]` when S is a plain schema of one type (not a reference or a union). */
function nullableOf(schema: Node): Node | undefined {
  const members: Json = schema.anyOf;
  if (!Array.isArray(members) || members.length !== 2 || !members.some(isDescribedNull)) return undefined;
  const other: Json = members.find((m) => !isDescribedNull(m));
  if (!isNode(other) || typeof other.type !== 'string' || other.$ref !== undefined) return undefined;
  if (other.anyOf !== undefined || other.oneOf !== undefined || other.allOf !== undefined) return undefined;
  return other;
}

function collapse(schema: Node, member: Node): Node {
  const { anyOf: members, ...outer } = schema;
  const { const: constant, ...inner } = member;
  const merged: Node = { ...inner, ...outer, type: [member.type, 'null'] };
  if (typeof inner.description === 'string' && typeof outer.description === 'string')
    merged.description =
      inner.description === outer.description
        ? outer.description
        : `${inner.description}; ${outer.description}`;
  // what null means stays said, after what the value means
  const nullMeaning = (members as Node[]).find(isDescribedNull)?.description;
  if (typeof nullMeaning === 'string')
    merged.description =
      typeof merged.description === 'string' ? `${merged.description} \`null\`: ${nullMeaning}` : nullMeaning;
  if (constant !== undefined) merged.enum = [constant, null];
  else if (Array.isArray(inner.enum)) merged.enum = [...(inner.enum as Json[]), null];
  return merged;
}

/** `anyOf` of literals of one type (and perhaps null): the same as `type` + `enum`. */
function literalUnion(schema: Node): Node | undefined {
  const members = schema.anyOf;
  if (!Array.isArray(members) || members.length < 2) return undefined;
  const literals = members.filter((m) => !isNull(m));
  const type = isNode(literals[0]) ? literals[0].type : undefined;
  if (typeof type !== 'string') return undefined;
  if (!literals.every((m) => isNode(m) && m.const !== undefined && m.type === type)) return undefined;
  const { anyOf: _anyOf, ...outer } = schema;
  const nullable = literals.length < members.length;
  return {
    ...outer,
    type: nullable ? [type, 'null'] : type,
    enum: [...literals.map((m) => (m as Node).const), ...(nullable ? [null] : [])],
  };
}

/**
 * A copy of `value` (a document or any part of it) with every nullable union written as a type
 * list. Examples are data, not schemas: they are kept as they are. Nothing is changed in place,
 * since route and catalog schemas are shared with the validators.
 */
export function withPlainUnions<T>(value: T): T {
  // `inProperties`: the keys are field names, so a field called `example` is still a schema.
  const walk = (node: Json, inProperties = false): Json => {
    if (Array.isArray(node)) return node.map((item) => walk(item));
    if (!isNode(node)) return node;
    const out: Node = {};
    for (const [key, child] of Object.entries(node))
      out[key] =
        !inProperties && (key === 'example' || key === 'examples')
          ? child
          : walk(child, !inProperties && (key === 'properties' || key === 'patternProperties'));
    // `additionalProperties: {}` (any value) as `true`: the same to a validator, and the reference
    // (Scalar) reads no schema object without a type
    if (
      !inProperties &&
      isNode(out.additionalProperties) &&
      Object.keys(out.additionalProperties).length === 0
    )
      out.additionalProperties = true;
    const member = nullableOf(out);
    return member ? collapse(out, member) : (literalUnion(out) ?? out);
  };
  return walk(value) as T;
}
