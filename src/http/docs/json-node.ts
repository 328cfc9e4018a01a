/**
 * A JSON object as the document code walks it. The one home of the check: the document's
 * transforms (named-schemas.ts, plain-unions.ts) and the client generators (scripts/clients/)
 * walk the same trees.
 */
export type JsonNode = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export const isNode = (value: unknown): value is JsonNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
