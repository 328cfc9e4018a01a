import { Type, type TSchema } from 'typebox';

/** Small builders shared by route schemas, so every bound reads the same in docs and errors. */

export const Timestamp = (description?: string) =>
  Type.String({
    format: 'date-time',
    examples: ['2026-11-20T18:04:11.000Z'],
    ...(description ? { description } : {}),
  });

export const toIso = (ms: number): string => new Date(ms).toISOString();

export const IdParam = (what: string) =>
  Type.Object({
    id: Type.Integer({ minimum: 1, maximum: 2147483647, description: `${what} ID`, examples: [1] }),
  });

export const Limit = (defaultValue: number, maximum: number) =>
  Type.Integer({
    minimum: 1,
    maximum,
    default: defaultValue,
    description: `Number of items to return, 1-${maximum} (default ${defaultValue}).`,
  });

export const Offset = () =>
  Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 0,
    description: 'Number of items to skip (default 0).',
  });

/**
 * A name people type (an app's, a key's): stored without its surrounding whitespace, as the
 * document says, so it must hold at least one character that is not whitespace; a name of only
 * spaces is a 400 naming the field, like any other value outside its schema.
 */
export const TrimmedName = (maxLength: number, examples: string[]) =>
  Type.String({
    minLength: 1,
    maxLength,
    pattern: '\\S',
    description: `1 to ${maxLength} characters, at least one of them not whitespace; surrounding whitespace is removed when it is stored`,
    examples,
  });

/** A string enum rendered as `{ type: string, enum: [...] }` in JSON Schema and OpenAPI. */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number]; examples?: T[number][] } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** A success body with exactly one top-level key, as every published response has. */
export const Envelope = <K extends string, S extends TSchema>(key: K, schema: S, description: string) =>
  Type.Object({ [key]: schema } as { [P in K]: S }, { description });

export const GAMES = ['cs2', 'cs16', 'rust', 'minecraft'] as const;
export const KILLBOARD_GAMES = ['cs2', 'cs16', 'rust'] as const;
