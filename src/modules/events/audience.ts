import { EVENT_CATALOG } from './catalog.js';

/**
 * Who reads events, by any channel: the pull route and the stream (the caller's credential) and a
 * webhook (the credential it stands for, see webhooks/audience.ts). Exactly one kind:
 * - an API key of a user (`keyOwnerId`): app context, the public read scopes;
 * - an OAuth app (`appId`), in app context (its client_credentials token, or its webhook for
 *   public and its own events), or acting for a user who authorized it (`userId`: a user's access
 *   token, or the app's webhook for that user's events) with the scopes the user granted.
 */
export interface EventReader {
  /** the OAuth app reading; null for an API key */
  appId: number | null;
  /** the user an OAuth app acts for (user context); null in app context and for an API key */
  userId: number | null;
  /** the owner of the API key reading; null for an OAuth app */
  keyOwnerId: number | null;
  scopes: ReadonlySet<string>;
}

/** An outbox row as far as who may read it (its type says its audience, see define.ts). */
export interface EventAddress {
  type: string;
  /** the user a private event is for (or the owner of a webhook an `app` event is about) */
  userId: number | null;
  /** the app an `app` event is for */
  appId: number | null;
  /** the scope a reader needs (null: none) */
  scope: string | null;
}

/**
 * The one audience rule (issue 23): whatever a channel hands a credential, the other two hand it
 * too, because all three ask this. A reader needs the event's scope, and then:
 * - an event for an app (`app_id`) reaches only that app, in any context;
 * - a public event reaches everyone;
 * - a user's private event (audience `user`: their coins, invites, keys) reaches only an app acting
 *   for that user, so only an app the user authorized with the scope; never an API key, which is
 *   app context, public data only (DESIGN.md), even its owner's;
 * - an `app` event addressed to a user (a webhook registered with their API key was disabled)
 *   reaches that user's API keys, and no app acting for them.
 */
export function mayRead(reader: EventReader, event: EventAddress): boolean {
  if (event.scope !== null && !reader.scopes.has(event.scope)) return false;
  if (event.appId !== null) return event.appId === reader.appId;
  if (event.userId === null) return true;
  return EVENT_CATALOG.get(event.type)?.audience === 'app'
    ? event.userId === reader.keyOwnerId
    : event.userId === reader.userId;
}
