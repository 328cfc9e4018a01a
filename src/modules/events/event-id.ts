/**
 * An event's public id: `evt_` and its outbox position in 16 digits, so ids sort as strings the
 * way they sort as numbers. The same id is the webhook `webhook-id`, the SSE `id` and the pull
 * cursor.
 */
const PREFIX = 'evt_';
const DIGITS = 16;
const PATTERN = /^evt_\d{16}$/;

export const EVENT_ID_EXAMPLE = 'evt_0000000000004711';

export const formatEventId = (position: number): string => PREFIX + String(position).padStart(DIGITS, '0');

/** The outbox position of an id, or undefined when it is not one of ours. */
export function parseEventId(id: string): number | undefined {
  if (!PATTERN.test(id)) return undefined;
  const position = Number(id.slice(PREFIX.length));
  return Number.isSafeInteger(position) ? position : undefined;
}
