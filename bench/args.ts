import { parseArgs } from 'node:util';

/** `value` as a whole number of at least `min`, or the run stops with a usage message (exit 2). */
export function wholeNumber(value: string, name: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer ≥ ${min} (got ${value})`);
    process.exit(2);
  }
  return n;
}

/**
 * A benchmark's whole-number options (`--rounds 5`), each with its default and at least 1:
 * `countArgs({ duration: 3, rounds: 5, connections: 50 })`.
 */
export function countArgs<K extends string>(defaults: Record<K, number>): Record<K, number> {
  const names = Object.keys(defaults) as K[];
  const { values } = parseArgs({
    options: Object.fromEntries(names.map((name) => [name, { type: 'string' as const }])),
  });
  const given = values as Partial<Record<K, string>>;
  const counts = {} as Record<K, number>;
  for (const name of names) counts[name] = wholeNumber(given[name] ?? String(defaults[name]), name, 1);
  return counts;
}
