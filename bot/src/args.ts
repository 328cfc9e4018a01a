/**
 * Typed command arguments: each parses one word of the chat line (`text` takes the rest of it),
 * in the order they are declared. A word that does not parse is a usage error the player sees.
 */
export interface Arg<T> {
  readonly kind: string;
  /** false: the word may be left out (shown as `[name]` in the usage line) */
  readonly required: boolean;
  /** takes every remaining word */
  readonly rest: boolean;
  parse(raw: string): { ok: true; value: T } | { ok: false; reason: string };
  /** the value when the word is left out */
  readonly fallback?: T | undefined;
}

/** A declared argument; `.optional()` and `.default(value)` make it optional. */
export class ArgBuilder<T> implements Arg<T> {
  constructor(
    readonly kind: string,
    readonly parse: Arg<T>['parse'],
    readonly rest = false,
    readonly required = true,
    readonly fallback?: T,
  ) {}

  /** the argument may be left out: the handler gets undefined */
  optional(): Arg<T | undefined> {
    return new ArgBuilder<T | undefined>(this.kind, this.parse, this.rest, false);
  }

  /** the argument may be left out: the handler gets `value` */
  default(value: T): Arg<T> {
    return new ArgBuilder<T>(this.kind, this.parse, this.rest, false, value);
  }
}

const builder = <T>(kind: string, parse: Arg<T>['parse'], rest = false) =>
  new ArgBuilder<T>(kind, parse, rest);

export const arg = {
  /** one word */
  string: (): ArgBuilder<string> => builder('string', (raw) => ({ ok: true, value: raw })),

  /** the rest of the line, spaces and all */
  text: (): ArgBuilder<string> => builder('text', (raw) => ({ ok: true, value: raw }), true),

  /** a whole number, within bounds */
  integer: ({ min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = {}): ArgBuilder<number> =>
    builder('integer', (raw) => {
      const value = /^-?\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
      return Number.isInteger(value) && value >= min && value <= max
        ? { ok: true, value }
        : { ok: false, reason: `a whole number from ${min} to ${max}` };
    }),

  /** one of a few words (case-insensitive) */
  choice: <const V extends readonly string[]>(values: V): ArgBuilder<V[number]> =>
    builder('choice', (raw) => {
      const value = values.find((v) => v.toLowerCase() === raw.toLowerCase());
      return value === undefined ? { ok: false, reason: `one of ${values.join(', ')}` } : { ok: true, value };
    }),
};

/** The handler's `args` for a command's declared arguments. */
export type ArgsOf<A extends Record<string, Arg<unknown>>> = {
  [K in keyof A]: A[K] extends Arg<infer T> ? T : never;
};

export type ParsedArgs<A extends Record<string, Arg<unknown>>> =
  { ok: true; args: ArgsOf<A> } | { ok: false; reason: string };

/** Parses the words after the command name against its declared arguments. */
export function parseArgs<A extends Record<string, Arg<unknown>>>(declared: A, line: string): ParsedArgs<A> {
  const words = line.split(/\s+/).filter(Boolean);
  const args: Record<string, unknown> = {};
  let i = 0;
  for (const [name, spec] of Object.entries(declared)) {
    const raw = spec.rest ? words.slice(i).join(' ') : words[i];
    if (raw === undefined || raw === '') {
      if (spec.required) return { ok: false, reason: `${name} is missing` };
      args[name] = spec.fallback;
      continue;
    }
    const parsed = spec.parse(raw);
    if (!parsed.ok) return { ok: false, reason: `${name} must be ${parsed.reason}` };
    args[name] = parsed.value;
    i = spec.rest ? words.length : i + 1;
  }
  if (i < words.length) return { ok: false, reason: `too many arguments (${words.slice(i).join(' ')})` };
  return { ok: true, args: args as ArgsOf<A> };
}

/** `<player> [count]` */
export const usageOf = (declared: Record<string, Arg<unknown>>): string =>
  Object.entries(declared)
    .map(([name, spec]) => {
      const label = spec.rest ? `${name}...` : name;
      return spec.required ? `<${label}>` : `[${label}]`;
    })
    .join(' ');
