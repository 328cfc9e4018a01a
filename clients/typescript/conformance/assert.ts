// The few assertions the scenarios make, without node:assert: the same scenario code runs under
// Node and, bundled, in a browser page (conformance/browser.ts), where node:* modules do not exist.

export class ScenarioAssertionError extends Error {
  override name = 'ScenarioAssertionError';
}

const show = (value: unknown): string => {
  if (value === undefined) return 'undefined'; // no JSON form
  try {
    return JSON.stringify(value);
  } catch {
    return `a ${typeof value} without a JSON form`;
  }
};

/** Fails with `message` unless `value` is truthy. */
function ok(value: unknown, message = 'expected a truthy value'): asserts value {
  if (!value) throw new ScenarioAssertionError(message);
}

/** Fails unless `actual` is `expected` (Object.is). */
function equal<T>(actual: unknown, expected: T, message?: string): asserts actual is T {
  if (!Object.is(actual, expected))
    throw new ScenarioAssertionError(
      `${message ? `${message}: ` : ''}expected ${show(expected)}, got ${show(actual)}`,
    );
}

/** Fails unless `actual` and `expected` have the same JSON form (the scenarios compare id lists). */
function deepEqual<T>(actual: unknown, expected: T, message?: string): asserts actual is T {
  if (show(actual) !== show(expected))
    throw new ScenarioAssertionError(
      `${message ? `${message}: ` : ''}expected ${show(expected)}, got ${show(actual)}`,
    );
}

const assert: {
  ok: typeof ok;
  equal: typeof equal;
  deepEqual: typeof deepEqual;
} = { ok, equal, deepEqual };
export default assert;
