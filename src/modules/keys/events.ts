import { Type } from 'typebox';
import { defineEvent, eventOf } from '../events/define.js';
import type { NewEvent } from '../events/outbox.js';
import { Id, Text, UserId } from '../events/fields.js';
import { originsOf } from './origins.js';
import type { KeyRecord } from './repo.js';

/**
 * Events of API keys, private to the key's owner (scope identify): an app the owner authorized
 * learns that their keys changed, nobody else does. Never the secret, only its display prefix.
 */

const KeyFields = {
  key_id: Id('API key', 31),
  user_id: UserId('The key’s owner'),
  name: Text('Key name', 'stats bot'),
  prefix: Text('Display prefix of the key', 'ghk_3kd9'),
};
const KEY_EXAMPLE = { key_id: 31, user_id: 42, name: 'stats bot', prefix: 'ghk_3kd9' };

export const KEY_CREATED = defineEvent({
  type: 'key.created',
  description: 'The user created an API key (portal or `hub keys create`).',
  properties: KeyFields,
  example: KEY_EXAMPLE,
  scope: 'identify',
  audience: 'user',
});

export const KEY_REVOKED = defineEvent({
  type: 'key.revoked',
  description: 'An API key of the user was revoked; it stops working at once.',
  properties: KeyFields,
  example: KEY_EXAMPLE,
  scope: 'identify',
  audience: 'user',
});

export const KEY_ORIGINS_CHANGED = defineEvent({
  type: 'key.origins_changed',
  description: 'The browser origins allowed to use an API key of the user changed (empty: any origin).',
  properties: {
    ...KeyFields,
    allowed_origins: Type.Array(Type.String(), {
      description: 'Allowed origins',
      examples: [['https://stats.example.com']],
    }),
  },
  example: { ...KEY_EXAMPLE, allowed_origins: ['https://stats.example.com'] },
  scope: 'identify',
  audience: 'user',
});

type KeyRow = Pick<KeyRecord, 'id' | 'user_id' | 'name' | 'prefix' | 'allowed_origins'>;

const owned = (key: KeyRow) =>
  key.user_id === null
    ? undefined
    : {
        data: { key_id: key.id, user_id: key.user_id, name: key.name, prefix: key.prefix },
        userId: key.user_id,
      };

/** A key created or revoked; an operator's key without an owner tells nobody. */
export function keyEvents(definition: typeof KEY_CREATED, key: KeyRow): NewEvent[] {
  const of = owned(key);
  return of ? [eventOf(definition, of.data, { userId: of.userId })] : [];
}

/** A key's allowed origins changed (none: any origin). */
export function originsEvents(key: KeyRow): NewEvent[] {
  const of = owned(key);
  if (!of) return [];
  const allowed_origins = originsOf(key.allowed_origins);
  return [eventOf(KEY_ORIGINS_CHANGED, { ...of.data, allowed_origins }, { userId: of.userId })];
}

export const KEY_EVENTS = [KEY_CREATED, KEY_REVOKED, KEY_ORIGINS_CHANGED];
