import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import { API_KEY_SCOPES, type Scope } from '../../http/scopes.js';
import { grantedScopes, oauthStoreRepo } from '../oauth/store-repo.js';

/** An outbox row as the audience check reads it. */
export interface AudienceEvent {
  user_id: number | null;
  app_id: number | null;
  scope: string | null;
}

/** A webhook as the audience check reads it. */
export interface Subscriber {
  appId: number | null;
  userId: number | null;
}

/** What each user granted each app: `${userId}:${appId}` -> scopes. */
export type GrantIndex = ReadonlyMap<string, ReadonlySet<Scope>>;

const grantKey = (userId: number, appId: number) => `${userId}:${appId}`;

/**
 * Whether a webhook may receive an event (the outbox's reader rules, events/repo.ts, applied to a
 * webhook instead of a caller):
 * - an app's own event (`app_id`) reaches only that app's webhooks;
 * - a user's private event (`user_id`) reaches the webhooks of that user (their API keys), and
 *   those of apps the user authorized with the event's scope; never an app the user did not;
 * - a public event reaches every webhook whose owner holds its scope in app context (the scopes
 *   of an API key or an app's own token).
 */
export function mayReceive(subscriber: Subscriber, event: AudienceEvent, grants: GrantIndex): boolean {
  if (event.app_id !== null) return subscriber.appId === event.app_id;
  if (event.user_id !== null) {
    if (subscriber.userId !== null) return subscriber.userId === event.user_id;
    if (subscriber.appId === null) return false;
    const granted = grants.get(grantKey(event.user_id, subscriber.appId));
    return granted !== undefined && (event.scope === null || granted.has(event.scope as Scope));
  }
  return event.scope === null || API_KEY_SCOPES.has(event.scope as Scope);
}

/** The grants between the users of these events and these apps, read once per batch. */
export async function grantIndex(
  db: Kysely<Database>,
  userIds: readonly number[],
  appIds: readonly number[],
  now: number,
): Promise<GrantIndex> {
  const index = new Map<string, Set<Scope>>();
  if (userIds.length === 0 || appIds.length === 0) return index;
  const apps = await db
    .selectFrom('oauth_apps')
    .select(['id', 'client_id'])
    .where('id', 'in', [...appIds])
    .execute();
  const appOf = new Map(apps.map((app) => [app.client_id, app.id]));
  const grants = await oauthStoreRepo(db).grantsBetween(
    userIds.map(String),
    apps.map((app) => app.client_id),
    now,
  );
  for (const grant of grants) {
    const appId = appOf.get(grant.client_id ?? '');
    if (appId === undefined || grant.account_id === null) continue;
    const key = grantKey(Number(grant.account_id), appId);
    const scopes = index.get(key) ?? new Set<Scope>();
    for (const scope of grantedScopes(grant.payload)) scopes.add(scope);
    index.set(key, scopes);
  }
  return index;
}
