/**
 * Numbers in a log line are the sender's text: a coordinate or score may have hundreds of digits.
 * Real ones are small (Source maps span ±16,384 units, scores and round counts are in the tens),
 * so an event holding any number beyond ±10,000,000 (or not finite) is refused alone, instead of
 * reaching the database as Infinity or an integer overflow. `at` is checked by the time window.
 */
export const MAX_LOG_NUMBER = 10_000_000;

/** Why the event's numbers are refused (the path of the first bad one), or null. */
export function numbersOutOfBounds(value: object, path = ''): string | null {
  // runs on every line: the path of a key is only spelled out for a bad number or a nested object
  for (const key in value) {
    // times are the window's to judge (the readings of an ambiguous line carry the line's time too)
    if (key === 'at' || !Object.hasOwn(value, key)) continue;
    const v: unknown = (value as Record<string, unknown>)[key];
    if (typeof v === 'number') {
      if (!(Math.abs(v) <= MAX_LOG_NUMBER))
        return `${path ? `${path}.${key}` : key} is out of range (±${MAX_LOG_NUMBER})`;
    } else if (typeof v === 'object' && v !== null) {
      const inner = numbersOutOfBounds(v, path ? `${path}.${key}` : key);
      if (inner !== null) return inner;
    }
  }
  return null;
}
