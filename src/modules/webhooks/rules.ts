import { ProblemError } from '../../http/problem.js';
import { ALL_EVENTS, isSubscribableType } from './event-types.js';

export const URL_MAX = 2048;
export const DESCRIPTION_MAX = 200;
export const EVENTS_MAX = 100;

/**
 * A webhook target: an absolute https URL without credentials or fragment; plain http only where
 * private targets are allowed (tests, private deployments). Whether the host resolves to a public
 * address is checked again at every send (delivery/ssrf.ts): a name can change its address.
 */
export function checkWebhookUrl(raw: string, allowPrivateTargets: boolean): string {
  const refuse = (why: string) => new ProblemError('invalid_webhook_url', `The webhook URL ${why}.`);
  if (raw.length > URL_MAX) throw refuse(`must be at most ${URL_MAX} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('must be an absolute URL');
  }
  if (url.username || url.password) throw refuse('must not carry credentials');
  if (url.hash || raw.includes('#')) throw refuse('must not have a fragment');
  if (url.protocol === 'https:') return url.href;
  if (url.protocol === 'http:' && allowPrivateTargets) return url.href;
  throw refuse('must use https');
}

/** The subscribed types, deduplicated and sorted; `["*"]` (alone) for every type. */
export function checkEventTypes(types: readonly string[]): string[] {
  if (types.length === 0)
    throw new ProblemError('unknown_event_type', 'Subscribe to at least one event type, or `*`.');
  if (types.includes(ALL_EVENTS)) return [ALL_EVENTS];
  const unknown = types.filter((type) => !isSubscribableType(type));
  if (unknown.length > 0)
    throw new ProblemError('unknown_event_type', `Unknown event type: ${unknown.slice(0, 5).join(', ')}.`);
  return [...new Set(types)].sort();
}

/** The `events` column: `*`, or a JSON list. */
export const encodeEventTypes = (types: readonly string[]): string =>
  types.includes(ALL_EVENTS) ? ALL_EVENTS : JSON.stringify(types);

export const decodeEventTypes = (column: string): string[] =>
  column === ALL_EVENTS ? [ALL_EVENTS] : (JSON.parse(column) as string[]);

/** Whether a webhook subscribed to the type. */
export const wants = (types: readonly string[], type: string): boolean =>
  types[0] === ALL_EVENTS || types.includes(type);
