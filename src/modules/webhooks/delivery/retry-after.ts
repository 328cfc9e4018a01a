/**
 * A `Retry-After` header (RFC 9110 §10.2.3) as a delay from `nowMs`: delay-seconds or an
 * HTTP-date. Undefined when absent or unreadable; a date in the past is 0. The scheduler bounds
 * the delay (schedule.ts), so a receiver cannot park a delivery for a year.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
  }
  // IMF-fixdate and the two obsolete forms all parse with Date.parse; a bare number was handled above
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
