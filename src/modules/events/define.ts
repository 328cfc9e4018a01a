import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import type { Scope } from '../../http/scopes.js';
import type { NewEvent } from './outbox.js';

/**
 * Who may read an event (the outbox's reader rules, repo.ts): `public` events reach every
 * reader holding the scope; `user` events only apps acting for that user with the scope (their
 * balance, their invites); `app` events only that app (its own registration, its grants).
 */
export type EventAudience = 'public' | 'user' | 'app';

/** One event type of the catalog (issue 15): its name, its `data` schema, an example, who reads it. */
export interface EventDefinition<S extends TSchema = TSchema> {
  /** `resource.action` */
  type: string;
  description: string;
  /** the schema of the event's `data` */
  schema: S;
  example: Static<S>;
  /** the scope a reader needs (null: none beyond the audience) */
  scope: Scope | null;
  audience: EventAudience;
  /** one event per kill (or as often): subscribe to its batched variant instead */
  highVolume?: boolean;
}

/** A definition whose example is checked against its schema by the compiler. */
export function defineEvent<P extends TProperties>(
  definition: Omit<EventDefinition<TObject<P>>, 'schema'> & { properties: P },
): EventDefinition<TObject<P>> {
  const { properties, ...rest } = definition;
  return { ...rest, schema: Type.Object(properties, { additionalProperties: false }) };
}

/**
 * Who a private event is for: the user (audience `user`), or the app (audience `app`; a webhook a
 * key owner registered belongs to that user instead).
 */
export interface EventTarget {
  userId?: number;
  appId?: number;
}

/**
 * The one way to build an outbox row: the type and scope come from the definition, `data` must
 * have the definition's shape, and a private event must name whom it is for.
 */
export function eventOf<S extends TSchema>(
  definition: EventDefinition<S>,
  data: Static<S>,
  target: EventTarget = {},
): NewEvent {
  if (definition.audience === 'user' && target.userId === undefined)
    throw new Error(`${definition.type} is private to a user: name the user`);
  if (definition.audience === 'app' && target.appId === undefined && target.userId === undefined)
    throw new Error(`${definition.type} is private to an app: name the app (or the owning user)`);
  return {
    type: definition.type,
    data,
    userId: target.userId ?? null,
    appId: target.appId ?? null,
    scope: definition.scope,
  };
}
