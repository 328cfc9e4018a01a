// What every TypeScript scenario needs: the fixture the runner wrote, the scenarios, clients that
// name their scenario to the conformance proxy, and the proxy's control routes (acting as the user
// at the consent step, webhook inboxes, the requests it saw). No node:* import: the scenarios also
// run bundled in a browser page (browser.ts), which hands over what run.ts reads from files.
import { HubClient, HubOAuth, type HubClientOptions, type OAuthTokens } from '../src/index.js';

export interface Fixture {
  base_url: string;
  hub_url: string;
  api_key: string;
  users: Record<'alice' | 'bob', { id: number; username: string; password: string }>;
  /** a partner developer's portal account (the browser run registers its web app with it) */
  developer: { id: number; username: string; password: string };
  oauth_app: { client_id: string; redirect_uri: string };
  forum: { thread_id: number };
  counts: Record<string, number>;
  scenarios_file: string;
  vectors_file: string;
}

export interface Scenario {
  name: string;
  kind: 'calls' | 'paginate' | 'custom';
  description: string;
  steps?: Step[];
  call?: string;
  params?: Record<string, unknown>;
  expect?: Record<string, unknown>;
}

export interface Step {
  call: string;
  params?: Record<string, unknown>;
  auth?: 'api_key' | 'invalid_api_key' | 'none';
  expect: { status: number; code?: string; fields?: string[]; items_min?: number };
}

export interface WebhookVector {
  name: string;
  secrets: string[];
  headers: Record<string, string>;
  body: string;
  now: number;
  valid: boolean;
}

/** What a run hands the scenarios: the fixture and the contents of the files it names. */
export interface Conformance {
  fixture: Fixture;
  scenarios: Scenario[];
  vectors: WebhookVector[];
}

/** The run's fixture and webhook vectors, set once by the entry point (run.ts, browser.ts). */
export let fixture: Fixture;
export let webhookVectors: WebhookVector[];

export function configure(conformance: Conformance): void {
  fixture = conformance.fixture;
  webhookVectors = conformance.vectors;
}

/** Replaces every `"$fixture.a.b"` string with the fixture's value there. */
export function resolveRefs<T>(value: T): T {
  if (typeof value === 'string' && value.startsWith('$fixture.')) {
    let at: unknown = fixture;
    for (const key of value.slice('$fixture.'.length).split('.')) at = (at as Record<string, unknown>)[key];
    if (at === undefined) throw new Error(`the fixture has no ${value}`);
    return at as T;
  }
  if (Array.isArray(value)) return value.map((v: unknown) => resolveRefs(v)) as T;
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v)])) as T;
  return value;
}

export const SCENARIO_HEADER = 'x-conformance-scenario';
/** A well-formed key the hub never issued. */
export const UNKNOWN_KEY = `ghk_${'0'.repeat(38)}`;

/** A client of the scenario, with the fixture's API key unless `options` say otherwise. */
export const clientFor = (scenario: string, options: Partial<HubClientOptions> = {}): HubClient =>
  new HubClient({
    baseUrl: fixture.base_url,
    apiKey: fixture.api_key,
    headers: { [SCENARIO_HEADER]: scenario },
    retryTiming: { initialDelayMs: 50, maxDelayMs: 400 },
    ...options,
  });

/** The fixture's public OAuth app, talking through the proxy as the scenario. */
export const oauthFor = (scenario: string): HubOAuth =>
  new HubOAuth({
    baseUrl: fixture.base_url,
    clientId: fixture.oauth_app.client_id,
    redirectUri: fixture.oauth_app.redirect_uri,
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set(SCENARIO_HEADER, scenario);
      return fetch(input, { ...init, headers });
    },
  });

async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(new URL(`/__conformance/${path}`, fixture.base_url), {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`conformance control ${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The proxy acting as the fixture's user on the consent page: the callback URL the hub sent them to. */
export const actAsUser = async (url: string, user: 'alice' | 'bob' = 'alice'): Promise<string> =>
  (await control<{ callback: string }>('POST', 'authorize', { url, user })).callback;

export const newInbox = () => control<{ id: string; url: string }>('POST', 'inbox');
export const deliveries = (id: string, waitMs = 20_000) =>
  control<{ deliveries: { headers: Record<string, string>; body: string }[] }>(
    'GET',
    `inbox/${id}?wait_ms=${waitMs}`,
  ).then((r) => r.deliveries);
export const proxySaw = (scenario: string) =>
  control<{
    requests: {
      method: string;
      path: string;
      idempotency_key: string | null;
      last_event_id: string | null;
    }[];
  }>('GET', `requests?scenario=${encodeURIComponent(scenario)}`).then((r) => r.requests);

/** The code flow for alice with `scope`, through the library: her tokens and the app's OAuth client. */
export async function signIn(
  scenario: string,
  scope: string,
): Promise<{ tokens: OAuthTokens; oauth: HubOAuth }> {
  const oauth = oauthFor(scenario);
  // prompt=consent: a refresh token is issued on a new consent, even when alice granted the app before
  const pending = await oauth.authorizationUrl({ scope, extra: { prompt: 'consent' } });
  const tokens = await oauth.handleCallback(await actAsUser(pending.url), pending);
  return { tokens, oauth };
}

/** A client acting for alice (OAuth) with `scope`. */
export async function aliceClient(scenario: string, scope: string): Promise<HubClient> {
  const { tokens, oauth } = await signIn(scenario, scope);
  return clientFor(scenario, { apiKey: undefined, oauth: { tokens, client: oauth } });
}
