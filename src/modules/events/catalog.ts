import { ACCOUNT_EVENTS } from '../accounts/events.js';
import { APP_EVENTS } from '../apps/events.js';
import { CLAN_EVENTS } from '../clans/events.js';
import { ECONOMY_EVENTS } from '../economy/events.js';
import { IDENTITY_EVENTS } from '../identities/events.js';
import { INGEST_EVENTS } from '../ingest/events.js';
import { KEY_EVENTS } from '../keys/events.js';
import { OAUTH_EVENTS } from '../oauth/events.js';
import { SERVER_EVENTS } from '../servers/events.js';
import { WEBHOOK_EVENTS } from '../webhooks/events.js';
import type { EventDefinition } from './define.js';

export type { EventAudience, EventDefinition } from './define.js';

/**
 * Every event type the hub tells (issue 15), gathered from the features that emit them (each
 * feature's `events.ts`). Only types something emits belong here. Ordered by feature, then as
 * each feature lists them.
 */
const ALL: readonly EventDefinition[] = [
  ...INGEST_EVENTS,
  ...SERVER_EVENTS,
  ...ECONOMY_EVENTS,
  ...CLAN_EVENTS,
  ...ACCOUNT_EVENTS,
  ...IDENTITY_EVENTS,
  ...KEY_EVENTS,
  ...APP_EVENTS,
  ...OAUTH_EVENTS,
  ...WEBHOOK_EVENTS,
];

export const EVENT_CATALOG: ReadonlyMap<string, EventDefinition> = new Map(
  ALL.map((definition) => [definition.type, definition]),
);
if (EVENT_CATALOG.size !== ALL.length) throw new Error('two event definitions share a type');

export const isEventType = (type: string): boolean => EVENT_CATALOG.has(type);
