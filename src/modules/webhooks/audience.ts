import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import { API_KEY_SCOPES, type Scope } from '../../http/scopes.js';
import type { EventAddress, EventReader } from '../events/audience.js';
import { grantedScopes, oauthStoreRepo } from '../oauth/store-repo.js';

/** A webhook as the audience rule reads it: its owner. */
export interface Subscriber {
  appId: number | null;
  userId: number | null;
}

/**
 * The reader a user's grant to an app makes (that app acting for that user, with the scopes the
 * user granted), by `${userId}:${appId}`.
 */
export type GrantIndex = ReadonlyMap<string, EventReader>;

const grantKey = (userId: number, appId: number) => `${userId}:${appId}`;

/**
 * Who a webhook stands for, outside a user's grant: the API key of its owner (a webhook a user
 * registered with a key or in the portal), or its app in app context. Both hold the app-context
 * scopes, what an API key or an app's client_credentials token holds.
 */
export const ownReader = (subscriber: Subscriber): EventReader =>
  subscriber.appId !== null
    ? { appId: subscriber.appId, userId: null, keyOwnerId: null, scopes: API_KEY_SCOPES }
    : { appId: null, userId: null, keyOwnerId: subscriber.userId, scopes: API_KEY_SCOPES };

/**
 * The reader a webhook is for an event, so that the one audience rule (events/audience.ts) decides
 * what it receives exactly as it decides what a credential pulls or streams: an app's webhook reads
 * an event addressed to a user as the app acting for that user (with the user's grant, if any);
 * anything else as its own reader.
 */
export function readerFor(
  subscriber: Subscriber & { reader: EventReader },
  event: EventAddress,
  grants: GrantIndex,
): EventReader {
  if (subscriber.appId === null || event.userId === null || event.appId !== null) return subscriber.reader;
  return grants.get(grantKey(event.userId, subscriber.appId)) ?? subscriber.reader;
}

/** The grants between the users of these events and these apps, read once per batch. */
export async function grantIndex(
  db: Kysely<Database>,
  userIds: readonly number[],
  appIds: readonly number[],
  now: number,
): Promise<GrantIndex> {
  if (userIds.length === 0 || appIds.length === 0) return new Map();
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
  const index = new Map<string, EventReader & { scopes: Set<Scope> }>();
  for (const grant of grants) {
    const appId = appOf.get(grant.client_id ?? '');
    if (appId === undefined || grant.account_id === null) continue;
    const userId = Number(grant.account_id);
    const key = grantKey(userId, appId);
    const reader = index.get(key) ?? { appId, userId, keyOwnerId: null, scopes: new Set<Scope>() };
    for (const scope of grantedScopes(grant.payload)) reader.scopes.add(scope);
    index.set(key, reader);
  }
  return index;
}
