import { ProblemError } from '../../http/problem.js';
import { checkTarget, hostOf, type Resolver } from './delivery/ssrf.js';
import { ALL_EVENTS, isSubscribableType } from './event-types.js';

export const URL_MAX = 2048;
export const DESCRIPTION_MAX = 200;
export const EVENTS_MAX = 100;

/** The setting that lets webhooks reach this machine and private networks, named in refusals. */
const LOCAL_TESTING =
  'To test with a receiver on your own machine or network, run the hub with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true (it also allows plain http).';

const refuse = (why: string) => new ProblemError('invalid_webhook_url', `The webhook URL ${why}.`);

/**
 * The form of a webhook target: an absolute https URL without credentials or fragment; plain http
 * only where private targets are allowed (tests, private deployments). Says nothing of where the
 * host points: checkWebhookUrl does, and the portal's test send checks that as it sends.
 */
export function parseWebhookUrl(raw: string, allowPrivateTargets: boolean): URL {
  if (raw.length > URL_MAX) throw refuse(`must be at most ${URL_MAX} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('must be an absolute URL');
  }
  if (url.username || url.password) throw refuse('must not carry credentials');
  if (url.hash || raw.includes('#')) throw refuse('must not have a fragment');
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && allowPrivateTargets) return url;
  if (url.protocol === 'http:') throw refuse(`must use https. ${LOCAL_TESTING}`);
  throw refuse('must use https');
}

/** Where targets may point, and how names are resolved (tests inject the resolver). */
export interface TargetPolicy {
  /** WEBHOOKS_ALLOW_PRIVATE_TARGETS */
  allowPrivateTargets: boolean;
  resolve?: Resolver | undefined;
}

/**
 * A webhook target that can be delivered to, as it will be stored (normalised by the URL parser):
 * its form (parseWebhookUrl), then its host through the send-time SSRF guard (delivery/ssrf.ts):
 * an address that is not public, a loopback name, or a name that does not resolve (or resolves to
 * any address that is not public) is refused now rather than failing every delivery for days. The
 * guard runs again at every send, since a name can change its address.
 */
export async function checkWebhookUrl(raw: string, policy: TargetPolicy): Promise<string> {
  const url = parseWebhookUrl(raw, policy.allowPrivateTargets);
  const target = await checkTarget(hostOf(url), policy.allowPrivateTargets, policy.resolve);
  if (target.ok) return url.href;
  if (target.kind === 'forbidden_address')
    throw refuse(
      `cannot receive webhooks: ${target.message}; webhooks go only to public addresses. ${LOCAL_TESTING}`,
    );
  throw refuse(
    `cannot receive webhooks: ${target.message}. Register a name that resolves (to a public address)`,
  );
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
